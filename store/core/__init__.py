"""store/core"""

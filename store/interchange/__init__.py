"""store/interchange"""

"""store/appkb"""

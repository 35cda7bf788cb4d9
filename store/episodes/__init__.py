"""store/episodes"""

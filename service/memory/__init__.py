"""service/memory"""

"""service/demo"""

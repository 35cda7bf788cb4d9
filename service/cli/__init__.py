"""service/cli"""

"""service/evaluation"""

"""service/rpc"""

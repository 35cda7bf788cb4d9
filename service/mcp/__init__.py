"""`jiyi mcp`: the desk operations served to desktop agents over the Model Context Protocol.

A client of the service like any agent (it never opens the store): `tools.py`
derives each tool from one declared operation, `link.py` reaches the service,
`server.py` speaks MCP (the official SDK, imported only here).
"""

"""The socket: the wire protocol, validated params, the method registry, dispatch and the Qt host."""

"""The service: the `Memory` facade, configuration, the CLI (and later the socket host)."""

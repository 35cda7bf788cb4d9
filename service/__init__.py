"""The service: the `Memory` facade (memory/), the socket (rpc/), the `jiyi` commands (cli/),
the agent client, demo data and evaluation."""

__version__ = "0.1.0"

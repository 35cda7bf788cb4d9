"""The `Memory` facade (`memory.py`) and its services, one per domain: App-KB, runs and episodes, recall,
lessons, desk, context packing and dream, sharing one `Parts` and one change bus (docs/architecture.md)."""

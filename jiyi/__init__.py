"""记忆 Jiyi: a local memory console and memory service for personal AI agents."""

__version__ = "0.1.0"

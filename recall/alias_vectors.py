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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from recall.embedders import Embedder, tuning
from recall.normalize import has_cjk
from recall.registry import AppRegistry
from recall.vectors import Document, VectorIndex, source_hash

ALIAS = "app_alias"
SCOPE = "global"
NEIGHBOURS = 5


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


class AliasRoute:
    """Nearest packages to a name by meaning: `route(normalized_name) -> [(text, package, similarity)]`."""

    def __init__(self, index: VectorIndex, embedder: Embedder) -> None:
        self.index, self.embedder = index, embedder
        self.min_similarity = tuning(embedder.id).alias_min_similarity

    def sync(self, documents: Sequence[Document]) -> dict[str, int]:
        """Make the collection hold exactly `documents` (unchanged ones are not embedded again)."""
        embedded = self.index.upsert(ALIAS, SCOPE, documents)
        wanted = {d.id for d in documents}
        extra = [i for i in self.index.ids(ALIAS, SCOPE) if i not in wanted]
        self.index.delete(ALIAS, SCOPE, extra)
        return {"documents": len(documents), "embedded": embedded, "removed": len(extra)}

    def __call__(self, name: str) -> list[tuple[str, str, float]]:
        if not name.strip():
            return []
        vector = self.embedder.queries([name])[0]
        hits = self.index.query(ALIAS, SCOPE, vector, NEIGHBOURS)
        out = []
        for hit in hits:
            similarity = max(0.0, min(1.0, 1.0 - hit.distance))
            if similarity >= self.min_similarity:
                package = str(hit.metadata.get("package", hit.id))
                out.append((str(hit.metadata.get("name", package)), package, similarity))
        return out

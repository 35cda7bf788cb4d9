"""Lexical similarity of two normalized names, as the reference's resolver measures it.

The best of: an edit-based ratio, 0.6 × bigram Dice + 0.4 × trigram Dice, and
containment (candidate in query: 0.86 + 0.10 × length ratio; query in
candidate: 0.72 + 0.12 × length ratio).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Indel

from store.core.name_forms import FILLER


@lru_cache(maxsize=131072)
def ngrams(text: str, size: int) -> frozenset[str]:
    """Character n-grams; a string shorter than `size` is its own gram."""
    if len(text) < size:
        return frozenset({text}) if text else frozenset()
    return frozenset(text[i : i + size] for i in range(len(text) - size + 1))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


@dataclass(frozen=True)
class LexicalMatch:
    similarity: float
    containment: str | None  # "candidate_in_query" / "query_in_candidate"
    leftover_is_filler: bool


def lexical_similarity(query: str, candidate: str) -> LexicalMatch:
    """How alike two normalized names are, and whether one contains the other."""
    if not query or not candidate:
        return LexicalMatch(0.0, None, False)
    if query == candidate:
        return LexicalMatch(1.0, None, False)
    ratio = Indel.normalized_similarity(query, candidate)
    grams = 0.6 * dice(ngrams(query, 2), ngrams(candidate, 2)) + 0.4 * dice(ngrams(query, 3), ngrams(candidate, 3))
    best = max(ratio, grams)
    containment = None
    filler = False
    if len(candidate) >= 2 and candidate in query:
        best = max(best, 0.86 + 0.10 * len(candidate) / len(query))
        containment = "candidate_in_query"
        filler = query.replace(candidate, "", 1) in FILLER
    elif len(query) >= 2 and query in candidate:
        best = max(best, 0.72 + 0.12 * len(query) / len(candidate))
        containment = "query_in_candidate"
    return LexicalMatch(min(best, 0.99), containment, filler)

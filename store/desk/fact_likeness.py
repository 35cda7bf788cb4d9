"""When two facts say the same thing: a near-duplicate adds evidence to the fact already there instead of
becoming a second one ("打印机在客厅，型号 HP M227" beside "客厅打印机是 HP M227").

A fact is compared by what it names, not how it is worded:

- its **marks**: numbers and identifiers (`M227`, `24.04`, `192.168.1.5`, Chinese numerals), which must be
  the same on both sides (an HP M227 is not an HP M428, the third floor not the second);
- its **negations** (不, 没, 未, 别, 非, 无; not, no, never, n't), which must be the same too (喜欢咖啡 is not
  不喜欢咖啡);
- its **words**: each Han character and each Latin word, without the few that only link them (的, 是, 在; the,
  is, in), of which the smaller fact's must nearly all be in the larger (`CONTAINED`) and the two must share
  most of their words overall (`SHARED`).

Linear in the facts' lengths; the signatures are cached by content.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from store.core.names import strip_invisible

CONTAINED = 0.8  # of the smaller fact's words, at least this share is in the larger
SHARED = 0.6  # of both facts' words together, at least this share is in both (Jaccard)

_TOKEN = re.compile(r"[a-z0-9]+(?:[._:/'-][a-z0-9]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HAN_NUMERALS = frozenset("零〇一二三四五六七八九十百千万亿两")
_HAN_NEGATIONS = frozenset("不没未别非无勿莫否")
_HAN_LINKS = frozenset("的地得是在了着过和与及或也都就把被给对于其之这那个为有而并")
_LATIN_NEGATIONS = frozenset({"not", "no", "never", "none", "cannot", "nor", "without"})
_LATIN_LINKS = frozenset(
    {"a", "an", "the", "is", "are", "was", "were", "be", "been", "am", "of", "in", "on", "at", "to", "for", "with"}
    | {"by", "from", "and", "or", "as", "it", "its", "this", "that", "there"}
)


@dataclass(frozen=True)
class Signature:
    """What a fact names: its marks, its negations and its words."""

    marks: frozenset[str]
    negations: frozenset[str]
    words: frozenset[str]


@lru_cache(maxsize=16384)
def signature(content: str) -> Signature:
    """The fact's signature (see the module docstring)."""
    text = strip_invisible(unicodedata.normalize("NFKC", content)).casefold()
    marks: set[str] = set()
    negations: set[str] = set()
    words: set[str] = set()
    for token in _TOKEN.findall(text):
        if len(token) == 1 and not token.isascii():
            if token in _HAN_NUMERALS:
                marks.add(token)
            elif token in _HAN_NEGATIONS:
                negations.add(token)
            elif token not in _HAN_LINKS:
                words.add(token)
        elif any(ch.isdigit() for ch in token):
            marks.add(token)
        elif token in _LATIN_NEGATIONS or token.endswith("n't"):
            negations.add("not")
        elif token not in _LATIN_LINKS:
            words.add(token)
    return Signature(frozenset(marks), frozenset(negations), frozenset(words))


def marks_key(content: str) -> str:
    """The fact's marks as one text (sorted): two alike facts have the same, so a near-duplicate is looked for only
    among the facts with this key (`desk_fact.marks`)."""
    return " ".join(sorted(signature(content).marks))


def alike(one: str, other: str) -> bool:
    """Whether two facts' contents say the same thing (see the module docstring)."""
    a, b = signature(one), signature(other)
    if a.marks != b.marks or a.negations != b.negations or not a.words or not b.words:
        return False
    shared = len(a.words & b.words)
    return shared >= CONTAINED * min(len(a.words), len(b.words)) and shared >= SHARED * len(a.words | b.words)

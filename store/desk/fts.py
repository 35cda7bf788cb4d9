"""Full-text search that handles Chinese: CJK bigrams plus whole ASCII words.

Text is split into tokens before it reaches the database (runs of Han
characters become overlapping bigrams, a lone character stays itself; Latin
letters and digits stay whole words, lower-cased), and stored space-separated
in a search table: SQLite's FTS5 (`unicode61`) or PostgreSQL's `tsvector`
(`store.core.fulltext` speaks each one's terms). A query is split the same way. Filler bigrams ("之前",
"怎么") are dropped; terms so common that ranking them would touch a large
share of the table are used only when nothing rarer is left, and then as an
AND over the most recent rows; rare terms are taken rarest first until their
posting lists reach a budget. The cost of a search so follows a bounded
number of rows, not the table's size.
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from store.core import fulltext

_SPANS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[0-9a-z]+")
# Bigrams that carry no topic: question words, time fillers, politeness.
STOP_BIGRAMS = frozenset(
    {
        "之前",
        "以前",
        "刚才",
        "刚刚",
        "怎么",
        "么样",
        "样了",
        "怎样",
        "什么",
        "一下",
        "帮我",
        "请帮",
        "我们",
        "你们",
        "可以",
        "现在",
        "今天",
        "昨天",
        "一个",
        "这个",
        "那个",
        "还是",
        "是不",
        "不是",
        "有没",
        "没有",
        "的话",
        "了吗",
        "好的",
        "谢谢",
        "麻烦",
        "看看",
        "情况",
        "结果",
    }
)
STOP_WORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "of",
        "to",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "in",
        "on",
        "at",
        "for",
        "with",
        "it",
        "this",
        "that",
    }
)
RARE_SHARE = 0.02  # a term in more than this share of rows is "common"
RARE_FLOOR = 300  # ...but never below this many rows
RECENT_WINDOW = 20_000  # rows an all-common query is confined to
POSTINGS_BUDGET = 6000  # rows a ranked OR may touch once it has MIN_TERMS terms (bench: 0 of 300 misses at 100k)
MIN_TERMS = 3


def tokens(text: str) -> list[str]:
    """The index terms of `text`, in order (duplicates kept)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for match in _SPANS.finditer(folded):
        span = match.group()
        if span[0] <= "z" or len(span) == 1:
            out.append(span)
        else:
            out.extend(span[i : i + 2] for i in range(len(span) - 1))
    return out


def index_text(*parts: str | None) -> str:
    """What goes into the FTS column for a row made of `parts`."""
    return " ".join(t for part in parts if part for t in tokens(part))


def query_terms(text: str) -> list[str]:
    """The distinct, meaningful terms of a query, in order."""
    seen: dict[str, None] = {}
    for term in tokens(text):
        if term in STOP_BIGRAMS or term in STOP_WORDS:
            continue
        seen.setdefault(term, None)
    return list(seen)


@dataclass(frozen=True)
class Hit:
    rowid: int
    score: float  # higher is better (negated bm25 on SQLite, ts_rank on PostgreSQL)
    matched: int  # how many of the query's terms the plan used


# Document frequencies change slowly and only steer the plan (rare or common), so they are
# cached per table and dropped when the table has grown by a tenth since they were read.
# A term not found is never cached: the next turn may bring it.
_DF_CACHE: weakref.WeakKeyDictionary[Any, dict[str, tuple[int, dict[str, int]]]] = (
    weakref.WeakKeyDictionary()
)  # db -> table -> (rows when read, term -> df)
_DF_CACHE_TERMS = 50_000


class FtsTable:
    """One search table (`<name>`: `rowid`, `tokens`)."""

    def __init__(self, db: Any, name: str) -> None:
        self.db = db
        self.name = name

    def put(self, rowid: int, text: str) -> None:
        self.db.execute_sql(f"DELETE FROM {self.name} WHERE rowid = ?", (rowid,))
        if text:
            self.db.execute_sql(f"INSERT INTO {self.name}(rowid, tokens) VALUES (?, ?)", (rowid, text))

    def frequencies(self, terms: Iterable[str], newest: int | None = None) -> dict[str, int]:
        """How many rows hold each term (0 for unknown terms); cached while the table grows by < 10%."""
        newest = self.rows() if newest is None else newest
        tables = _DF_CACHE.setdefault(self.db, {})
        size, cache = tables.get(self.name, (newest, {}))
        if newest > size * 1.1 + 100 or newest < size or len(cache) > _DF_CACHE_TERMS:
            size, cache = newest, {}
        tables[self.name] = (size, cache)
        missing = [t for t in terms if t not in cache]
        found: dict[str, int] = {}
        if missing:
            found = fulltext.document_frequencies(self.db, self.name, missing)
            cache.update(found)
        return {t: cache.get(t, found.get(t, 0)) for t in terms}

    def rows(self) -> int:
        """The highest rowid (a proxy for the table's size; `max(rowid)` would scan an FTS5 table)."""
        row = self.db.execute_sql(f"SELECT {_newest(self.name)}").fetchone()
        return int(row[0] or 0)

    def search(self, text: str, limit: int, newest: int | None = None) -> list[Hit]:
        """Rows matching `text`, best first (at most `limit`); `newest` is `rows()` when the caller read it already."""
        terms = query_terms(text)
        if not terms or limit <= 0:
            return []
        newest = self.rows() if newest is None else newest
        if newest == 0:
            return []  # an empty table: no need to ask for any term's rows (a round trip on a server)
        df = {t: n for t, n in self.frequencies(terms, newest).items() if n > 0}
        if not df:
            return []
        cap = max(RARE_FLOOR, int(newest * RARE_SHARE))
        rare = sorted((t for t in df if df[t] <= cap), key=df.__getitem__)
        if rare:
            # The rarest terms carry the most weight; stop adding terms once ranking would touch
            # more than POSTINGS_BUDGET rows (the common tail adds cost, hardly any precision).
            chosen: list[str] = []
            postings = 0
            for term in rare:
                if len(chosen) >= MIN_TERMS and postings + df[term] > POSTINGS_BUDGET:
                    break
                chosen.append(term)
                postings += df[term]
            return self._match(chosen, False, limit, len(chosen))
        common = sorted(df, key=df.__getitem__)[:4]
        hits = self._match(common, True, limit, len(common), after=newest - RECENT_WINDOW)
        if len(hits) < limit:
            seen = {h.rowid for h in hits}
            more = self._match(common, False, limit, 1, after=newest - RECENT_WINDOW)
            hits += [h for h in more if h.rowid not in seen][: limit - len(hits)]
        return hits

    def _match(self, terms: list[str], every: bool, limit: int, matched: int, after: int = 0) -> list[Hit]:
        found = fulltext.match(self.db, self.name, terms, every=every, limit=limit, after=after)
        return [Hit(rowid, score, matched) for rowid, score in found]


def overlap(query: str, text: str) -> float:
    """Share of the query's terms found in `text` (0..1): a cheap relevance for small sets."""
    terms = query_terms(query)
    if not terms:
        return 0.0
    have = set(tokens(text))
    return sum(1 for t in terms if t in have) / len(terms)


def _newest(name: str) -> str:
    return f"(SELECT rowid FROM {name} ORDER BY rowid DESC LIMIT 1)"


def newest_rows(names: Sequence[str], *, meta_key: str) -> tuple[str, list[Any]]:
    """A statement reading `rows()` of each table and the `meta` value under `meta_key` (one round trip)."""
    columns = ", ".join(f"{_newest(name)} AS newest_{i}" for i, name in enumerate(names))
    return f"SELECT {columns}, (SELECT value FROM meta WHERE key = ?) AS meta", [meta_key]

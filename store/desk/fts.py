"""Full-text search that handles Chinese: CJK bigrams plus whole ASCII words.

Text is split into tokens before it reaches the database (runs of Han
characters become overlapping bigrams, a lone character stays itself; Latin
letters and digits stay whole words, lower-cased, English words stemmed by
`stem`), and stored space-separated
in a search table: SQLite's FTS5 (`unicode61`) or PostgreSQL's `tsvector`
(`store.core.fulltext` speaks each one's terms). A query is split the same way. Filler bigrams ("之前",
"怎么") are dropped; terms so common that ranking them would touch a large
share of the table are used only when nothing rarer is left, and then as an
AND over the most recent rows; rare terms are taken rarest first until their
posting lists reach a budget. The cost of a search so follows a bounded
number of rows, not the table's size.
"""

from __future__ import annotations

import math
import re
import unicodedata
import weakref
from collections import Counter
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
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "did",
        "does",
    ]
)
RARE_SHARE = 0.02  # a term in more than this share of rows is "common"
RARE_FLOOR = 300  # ...but never below this many rows
RECENT_WINDOW = 20_000  # rows an all-common query is confined to
POSTINGS_BUDGET = 6000  # rows a ranked OR may touch once it has MIN_TERMS terms (bench: 0 of 300 misses at 100k)
MIN_TERMS = 3


_VOWEL = re.compile("[aeiouy]")


def stem(word: str) -> str:
    """A light English stemmer (plural, -ing, -ed, -ly, a final e; a doubled last consonant undone), applied
    alike when indexing and when asking, so "hiked", "hikes" and "hiking" meet at "hik". Digits stay as they are."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "ly"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and _VOWEL.search(base):
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # running -> run, planned -> plan
            return base
    if word.endswith("e") and not word.endswith("ee") and len(word) > 3:
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """The index terms of `text`, in order (duplicates kept)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for match in _SPANS.finditer(folded):
        span = match.group()
        if span[0] <= "z":
            out.append(stem(span))
        elif len(span) == 1:
            out.append(span)
        else:
            out.extend(span[i : i + 2] for i in range(len(span) - 1))
    return out


def index_text(*parts: str | None) -> str:
    """What goes into the FTS column for a row made of `parts`."""
    return " ".join(t for part in parts if part for t in tokens(part))


def mostly_chinese(text: str) -> bool:
    """Whether `text` is mostly Chinese: at least two Chinese characters (about a word) per Latin word."""
    chinese = words = 0
    for match in _SPANS.finditer(unicodedata.normalize("NFKC", text).lower()):
        span = match.group()
        if span[0] <= "z":
            words += 1
        else:
            chinese += len(span)
    return chinese > 0 and chinese >= 2 * words


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


@dataclass(frozen=True)
class Scored:
    rowid: int
    bm25: float  # Okapi BM25 (k1 1.2, b 0.75) over the query's terms, computed by `FtsTable.ranked`
    share: float  # the part of the query's terms the row holds, each weighed by its rarity (0..1)
    held: frozenset[str] = frozenset()  # which terms it holds
    # `share` counting every query term, those no row holds as the rarest: how much of the question the row
    # answers in words, whatever memory holds
    coverage: float = 0.0


BM25_K1 = 1.2
BM25_B = 0.75


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
        return self._search(text, limit, newest)[0]

    def _search(self, text: str, limit: int, newest: int | None) -> tuple[list[Hit], dict[str, int]]:
        """`search`, and the document frequencies of the query's terms it read (for `ranked`: a term no row
        holds is never cached, so reading them again would ask the table again)."""
        terms = query_terms(text)
        if not terms or limit <= 0:
            return [], {}
        newest = self.rows() if newest is None else newest
        if newest == 0:
            return [], {}  # an empty table: no need to ask for any term's rows (a round trip on a server)
        read = self.frequencies(terms, newest)
        return self._planned(read, limit, newest), read

    def _planned(self, read: dict[str, int], limit: int, newest: int) -> list[Hit]:
        """The rows the search plan finds for the query's terms (`read`: their document frequencies)."""
        df = {t: n for t, n in read.items() if n > 0}
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

    def ranked(self, text: str, limit: int, newest: int | None = None) -> list[Scored]:
        """The rows `search` finds (up to `limit`), scored by BM25 over every query term the table holds.

        Scored here, not by the back end, from the rows' own tokens and the terms' document counts (which
        `frequencies` caches): FTS5's `bm25()` and PostgreSQL's `ts_rank` differ, this is the same on both.
        The best first; `share` is the part of the query's terms each row holds.
        """
        newest = self.rows() if newest is None else newest
        hits, df = self._search(text, limit, newest)
        if not hits:
            return []
        terms = query_terms(text)
        ids = [h.rowid for h in hits]
        cursor = self.db.execute_sql(
            f"SELECT rowid, tokens FROM {self.name} WHERE rowid IN ({','.join('?' * len(ids))})", ids
        )
        docs = {int(r[0]): str(r[1]).split() for r in cursor.fetchall()}
        if not docs:
            return []
        average = sum(len(d) for d in docs.values()) / len(docs)
        n = max(newest, max(df.values(), default=0))
        # Each query term the table holds weighs its rarity (a term no row holds is left out: in Chinese most
        # such bigrams straddle two words, "次打" of "那次打车").
        idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms if df.get(t)}
        mass = sum(idf.values()) or 1.0
        # a term no row holds weighs as much as the rarest a row can hold (one row of n): however rare it is, in a
        # memory of six turns nothing can be told rarer than that
        unheld = (len(terms) - len(idf)) * math.log(1 + (n - 0.5) / 1.5)
        out = []
        for rowid, words in docs.items():
            counts = Counter(words)
            score = 0.0
            for term, weight in idf.items():
                tf = counts.get(term, 0)
                if tf:
                    score += weight * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len(words) / average))
            held = frozenset(t for t in terms if t in counts)
            weight = sum(idf[t] for t in held)
            out.append(Scored(rowid, score, weight / mass, held, weight / (mass + unheld)))
        out.sort(key=lambda s: (-s.bm25, -s.rowid))
        return out

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

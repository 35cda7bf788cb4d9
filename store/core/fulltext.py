"""Full-text matching over pre-tokenized text, in each back end's own terms.

A search table holds `rowid` and `tokens` (space-separated terms, already
split by the caller: CJK bigrams and whole words). On SQLite it is an FTS5
table ranked by bm25 and counted through its `fts5vocab` companion; on
PostgreSQL a table with a `tsvector` of the same tokens (the `simple`
configuration, GIN-indexed; see `postgres.py`), ranked by `ts_rank`. Either
way a row matches when it holds the terms, and a higher score is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.core.dialect import POSTGRESQL, dialect_of


def _postgres(db: Any) -> bool:
    return dialect_of(db) is POSTGRESQL


def document_frequencies(db: Any, table: str, terms: Sequence[str]) -> dict[str, int]:
    """How many rows of `table` hold each of `terms` (terms held by none are left out)."""
    if not terms:
        return {}
    if _postgres(db):
        # One GIN probe per term; the caller caches the answers.
        sql = (
            f"SELECT term, (SELECT count(*) FROM {table} WHERE tsv @@ to_tsquery('simple', quote_literal(term))) "
            "FROM unnest(CAST(? AS text[])) AS term"
        )
        return {str(t): int(n) for t, n in db.execute_sql(sql, (list(terms),)).fetchall() if n}
    # In the connection's temp schema, not the file: a read must not write (it answers on a full disk too).
    db.execute_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_vocab USING fts5vocab(main, {table}, 'row')")
    marks = ",".join("?" * len(terms))
    sql = f"SELECT term, doc FROM temp.{table}_vocab WHERE term IN ({marks})"
    return {str(t): int(n) for t, n in db.execute_sql(sql, list(terms)).fetchall()}


def match(
    db: Any, table: str, terms: Sequence[str], *, every: bool, limit: int, after: int = 0
) -> list[tuple[int, float]]:
    """(rowid, score) of the rows holding any (or, with `every`, all) of `terms`, best first, at most `limit`.

    `after` confines the search to rows with a higher rowid (the newest ones).
    """
    if _postgres(db):
        joiner = " & " if every else " | "
        expression = joiner.join(_tsquery_literal(t) for t in terms)
        sql = f"SELECT rowid, ts_rank(tsv, q) AS score FROM {table}, to_tsquery('simple', ?) AS q WHERE tsv @@ q"
        order = " ORDER BY score DESC, rowid DESC LIMIT ?"
    else:
        joiner = " AND " if every else " OR "
        expression = joiner.join('"' + t.replace('"', '""') + '"' for t in terms)
        sql = f"SELECT rowid, -bm25({table}) FROM {table} WHERE {table} MATCH ?"
        order = " ORDER BY rank LIMIT ?"
    args: list[object] = [expression]
    if after > 0:
        sql += " AND rowid > ?"
        args.append(after)
    args.append(limit)
    return [(int(r[0]), float(r[1])) for r in db.execute_sql(sql + order, args).fetchall()]


def _tsquery_literal(term: str) -> str:
    """`term` quoted for to_tsquery: the parser then splits it exactly as it split the indexed tokens."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"

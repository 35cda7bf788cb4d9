"""The desk index's queue: searchable items whose text changed since they were last embedded.

The projection queues an item in the same transaction that writes it (so a
committed turn is never forgotten by the index, and a rebuild of the views
queues everything again); the indexer takes a batch, embeds it and removes
exactly the entries it embedded (an entry re-queued meanwhile carries a newer
`seq` and stays). The queue's length is the index lag.
"""

from __future__ import annotations

from dataclasses import dataclass

from store.core.database import Store
from store.desk import sql

KINDS = ("interaction", "task", "topic", "fact")


@dataclass(frozen=True)
class Queued:
    kind: str
    item: int
    seq: int


@dataclass(frozen=True)
class Text:
    """What the index holds of one item: its key (the item's own id), text and time."""

    kind: str
    key: str
    text: str
    epoch: float


# Per kind: the statement reading the key, the text's parts, the time and whether the item was withdrawn from
# recall (a deactivated fact: its vector is removed, and made again if it is confirmed) of rows by their ids.
_READ = {
    "interaction": "SELECT id, interaction_id, user_text, assistant_text, epoch, 0 FROM desk_interaction "
    "WHERE id IN ({})",
    "task": "SELECT id, task_id, title, result, epoch, 0 FROM desk_task_card WHERE id IN ({})",
    # a topic is embedded with its latest segment (what it came to last)
    "topic": "SELECT id, topic_id, title, summary, (SELECT s.summary FROM desk_topic_segment s "
    "WHERE s.topic_id = t.topic_id ORDER BY s.workday DESC LIMIT 1), updated_epoch, 0 FROM desk_topic t "
    "WHERE id IN ({})",
    "fact": "SELECT id, fact_id, content, project, 0, CASE WHEN status = 'inactive' THEN 1 ELSE 0 END "
    "FROM desk_fact WHERE id IN ({})",
}
# Per kind: the keys of every item that may be in the index (what `DeskIndexer.sweep` keeps).
KEYS = {
    "interaction": "SELECT interaction_id FROM desk_interaction",
    "task": "SELECT task_id FROM desk_task_card",
    "topic": "SELECT topic_id FROM desk_topic",
    "fact": "SELECT fact_id FROM desk_fact WHERE status <> 'inactive'",
}


def lag(store: Store, since: int | None = None, upto: int | None = None) -> int:
    """How many items wait to be embedded (those queued by the events after `since` up to `upto`, when given)."""
    where, params = _between(since, upto)
    return int(store.db.execute_sql(f"SELECT count(*) FROM desk_embed_queue{where}", params).fetchone()[0])


def take(store: Store, limit: int, since: int | None = None, upto: int | None = None) -> list[Queued]:
    """The oldest `limit` entries (by the event that queued them; of the events after `since` up to `upto`)."""
    where, params = _between(since, upto)
    rows = store.db.execute_sql(
        f"SELECT kind, item, seq FROM desk_embed_queue{where} ORDER BY seq LIMIT ?", (*params, limit)
    )
    return [Queued(str(k), int(i), int(s)) for k, i, s in rows.fetchall()]


def _between(since: int | None, upto: int | None) -> tuple[str, tuple[int, ...]]:
    """The WHERE clause (and its params) of the entries queued by the events after `since` up to `upto`."""
    bounds = [(f"seq {op} ?", value) for op, value in ((">", since), ("<=", upto)) if value is not None]
    if not bounds:
        return "", ()
    return " WHERE " + " AND ".join(clause for clause, _ in bounds), tuple(value for _, value in bounds)


@dataclass
class Read:
    """What the queued entries hold now: texts to embed, items withdrawn from recall (their vectors go), and
    entries whose item is gone from the views (`DeskIndexer.sweep` finds their vectors)."""

    found: list[Text]
    withdrawn: list[Text]
    gone: list[Queued]


def texts(store: Store, queued: list[Queued]) -> Read:
    """The current text of each queued item (see `Read`)."""
    out = Read([], [], [])
    for kind in KINDS:
        wanted = [q for q in queued if q.kind == kind]
        if not wanted:
            continue
        ids = [q.item for q in wanted]
        rows = {int(r[0]): r for r in store.db.execute_sql(_READ[kind].format(sql.marks(ids)), ids).fetchall()}
        for q in wanted:
            row = rows.get(q.item)
            if row is None:
                out.gone.append(q)
                continue
            text = "\n".join(str(part) for part in row[2:-2] if part)
            item = Text(kind, str(row[1]), text, float(row[-2] or 0))
            (out.withdrawn if row[-1] else out.found).append(item)
    return out


def keys(store: Store, kind: str) -> set[str]:
    """The keys of every item of `kind` that may be in the index."""
    return {str(r[0]) for r in store.db.execute_sql(KEYS[kind]).fetchall()}


def done(store: Store, queued: list[Queued]) -> None:
    """Remove the entries embedded (an entry queued again since keeps its newer `seq` and stays)."""
    with store.atomic():
        for q in queued:
            store.db.execute_sql(
                "DELETE FROM desk_embed_queue WHERE kind = ? AND item = ? AND seq = ?", (q.kind, q.item, q.seq)
            )


def queue_everything(store: Store) -> int:
    """Queue every searchable item again (the index was dropped); returns how many are queued now."""
    with store.atomic():
        for kind, table in (
            ("interaction", "desk_interaction"),
            ("task", "desk_task_card"),
            ("topic", "desk_topic"),
            ("fact", "desk_fact"),
        ):
            store.db.execute_sql(
                f"INSERT INTO desk_embed_queue (kind, item, seq) SELECT ?, id, 0 FROM {table} WHERE true "
                "ON CONFLICT (kind, item) DO NOTHING",
                (kind,),
            )
    return lag(store)

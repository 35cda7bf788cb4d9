"""Per-alias history read from the event log, and undo by reverting events.

The history of a name is every App-KB event about its normalized term. Undoing
a transaction never deletes events: it appends `delete`/`upsert` events (marked
`undo_of`) that bring the term's entries back to what they were just before
that transaction. Undoing an undo is a redo.
"""

from __future__ import annotations

from store.appkb.entry import AppKbEntry, normalize_term
from store.appkb.kb import entries_for_term
from store.appkb.projection import DOMAIN, replay
from store.appkb.results import HistoryItem, UndoResult
from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound
from store.core.projection import EventRecord


def history(store: Store, name: str, *, limit: int = 500) -> list[HistoryItem]:
    """Events about `name`'s normalized term, newest first."""
    subject = normalize_term(name)
    if not subject:
        raise InvalidInput("name is empty")
    items = [_item(event) for event in store.events(DOMAIN, subject=subject)]
    items.reverse()
    return items[:limit]


def _item(event: EventRecord) -> HistoryItem:
    return HistoryItem(event.seq, event.ts, event.actor, event.type, event.txn, event.payload)


def undo(store: Store, txn: int, *, actor: str) -> UndoResult:
    """Append events that revert App-KB transaction `txn`.

    Refused with `Conflict` when a term it touched has gained or lost entries
    since (undo the later change first); `NotFound` when there is no such
    transaction; `InvalidInput` when it changed nothing.
    """
    if isinstance(txn, bool) or not isinstance(txn, int) or txn <= 0:
        raise InvalidInput("txn must be a positive whole number")
    events = list(store.events(DOMAIN, txn=txn))
    if not events:
        raise NotFound(f"no App-KB change with id {txn}")
    first, last = events[0].seq, events[-1].seq
    subjects = sorted({e.subject for e in events if e.subject})
    removed: list[AppKbEntry] = []
    restored: list[AppKbEntry] = []
    now = clock.iso_now()
    with store.atomic() as new:
        for subject in subjects:
            log = list(store.events(DOMAIN, subject=subject))
            before = replay(e for e in log if e.seq < first)
            after = replay(e for e in log if e.seq <= last)
            current = {e.key: e for e in entries_for_term(store, subject)}
            if set(current) != set(after):
                later = [e.seq for e in log if e.seq > last]
                raise Conflict(
                    f"the entries of {subject!r} changed after change {txn} "
                    f"(by change {later[-1] if later else '?'}); undo that first"
                )
            for key in current.keys() - before.keys():
                gone = current[key]
                store.append(
                    DOMAIN,
                    "delete",
                    {"entry": gone.to_dict(), "ts": now, "undo_of": txn},
                    actor=actor,
                )
                removed.append(gone)
            for key, entry in before.items():
                if current.get(key) != entry:
                    store.append(
                        DOMAIN,
                        "upsert",
                        {"entry": entry.to_dict(), "ts": now, "undo_of": txn},
                        actor=actor,
                    )
                    restored.append(entry)
        if not removed and not restored:
            raise InvalidInput(f"change {txn} left nothing to undo")
        return UndoResult(new.id, txn, removed, restored)

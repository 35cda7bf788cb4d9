"""How App-KB events change the view, shared by the SQL view and in-memory replays.

`changes_for(event)` turns one event into primitive changes; `SqlView` applies
them to the `app_entry` table and `MemoryView` to a dict. Replaying the log for
one term (history, undo) therefore follows exactly the rules the view follows,
which are the reference's replay rules.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from store.appkb.entry import ALIAS_KINDS, AppKbEntry, EntryKey, normalize_term
from store.appkb.models import AppEntry, NameKey
from store.core.errors import InvalidInput
from store.core.models import BaseModel
from store.core.name_forms import CJK_RE, normalize
from store.core.pinyin import computed_key
from store.core.projection import EventRecord

log = logging.getLogger("jiyi.store.appkb")

DOMAIN = "app_kb"


@dataclass(frozen=True)
class Put:
    entry: AppKbEntry


@dataclass(frozen=True)
class Remove:
    key: EntryKey


@dataclass(frozen=True)
class RemoveGlobalAliases:
    """Remove every global entry of `kinds` whose normalized term is `term_norm`."""

    term_norm: str
    kinds: frozenset[str]


Change = Put | Remove | RemoveGlobalAliases


def changes_for(event_type: str, payload: Mapping[str, object]) -> list[Change]:
    """The view changes one event makes; malformed or evidence-only events make none."""
    if payload.get("audit_only"):
        return []
    if event_type == "alias_forgotten":
        term = payload.get("term")
        norm = normalize_term(term) if isinstance(term, str) else ""
        # An agent's forget names the kinds it removed (learned only); the person's and TaskWizard's remove both.
        named = payload.get("kinds")
        kinds = frozenset(k for k in named if k in ALIAS_KINDS) if isinstance(named, list) else ALIAS_KINDS
        return [RemoveGlobalAliases(norm, kinds)] if norm and kinds else []
    if event_type not in {"upsert", "mark_stale", "delete", "alias_overwritten", "alias_user_set"}:
        return []
    try:
        entry = AppKbEntry.from_dict(payload.get("entry"))
    except InvalidInput as exc:
        log.debug("skipping %s event with a bad entry: %s", event_type, exc)
        return []
    if event_type == "delete":
        return [Remove(entry.key)]
    if event_type == "alias_overwritten":
        return [RemoveGlobalAliases(entry.term_norm, frozenset({"learned"})), Put(entry)]
    if event_type == "alias_user_set":
        return [RemoveGlobalAliases(entry.term_norm, ALIAS_KINDS), Put(entry)]
    return [Put(entry)]


def subject_of(event_type: str, payload: Mapping[str, object]) -> str | None:
    """The normalized term an event is about (its history key)."""
    entry = payload.get("entry")
    term = entry.get("term") if isinstance(entry, dict) else payload.get("term")
    return normalize_term(term) if isinstance(term, str) and term.strip() else None


class MemoryView:
    """A dict of entries that replays events the way the view does."""

    def __init__(self) -> None:
        self.entries: dict[EntryKey, AppKbEntry] = {}

    def apply(self, event_type: str, payload: Mapping[str, object]) -> None:
        for change in changes_for(event_type, payload):
            if isinstance(change, Put):
                self.entries[change.entry.key] = change.entry
            elif isinstance(change, Remove):
                self.entries.pop(change.key, None)
            else:
                for key, entry in list(self.entries.items()):
                    if entry.scope == "global" and entry.kind in change.kinds and entry.term_norm == change.term_norm:
                        del self.entries[key]


@lru_cache(maxsize=65536)
def _pinyin(text: str) -> str:
    # pypinyin reads its dictionaries as it is imported (~0.2 s of CPU): only a write to the view needs it
    from pypinyin import Style, lazy_pinyin

    syllables = [s.lower() for s in lazy_pinyin(text, style=Style.NORMAL, errors="ignore")]
    return "".join(syllables) + " " + "".join(s[0] for s in syllables if s) if syllables else ""


def pinyin_text(term: str, label: str) -> str:
    """The full pinyin and initials of a term and its label, as one searchable string."""
    return f"{_pinyin(term)} {_pinyin(label)}".strip()


def row_to_entry(row: AppEntry) -> AppKbEntry:
    return AppKbEntry(
        term=row.term,
        label=row.label,
        package=row.package,
        kind=row.kind,
        scope=row.scope,
        confidence=row.confidence,
        success_count=row.success_count,
        first_seen=row.first_seen,
        last_seen=row.last_seen,
        stale=bool(row.stale),
        last_success=row.last_success,
    )


def put_row(entry: AppKbEntry) -> None:
    """Insert or replace the row with the entry's identity."""
    AppEntry.insert(
        term=entry.term,
        term_norm=entry.term_norm,
        term_pinyin=pinyin_text(entry.term, entry.label),
        label=entry.label,
        package=entry.package,
        kind=entry.kind,
        scope=entry.scope,
        confidence=entry.confidence,
        success_count=entry.success_count,
        first_seen=entry.first_seen,
        last_seen=entry.last_seen,
        last_success=entry.last_success,
        stale=entry.stale,
    ).on_conflict(
        conflict_target=[AppEntry.term, AppEntry.package, AppEntry.kind, AppEntry.scope],
        preserve=[
            AppEntry.label,
            AppEntry.term_norm,
            AppEntry.term_pinyin,
            AppEntry.confidence,
            AppEntry.success_count,
            AppEntry.first_seen,
            AppEntry.last_seen,
            AppEntry.last_success,
            AppEntry.stale,
        ],
    ).execute()
    put_name_key(entry.term)


def put_name_key(term: str) -> None:
    """Keep the resolver's key of `term`'s name (`NameKey`), once per name."""
    alnum = normalize(term).alnum
    if CJK_RE.search(alnum) and not NameKey.select().where(NameKey.alnum == alnum).exists():
        key = computed_key(alnum)
        NameKey.insert(alnum=alnum, full=key.full, initials=key.initials).on_conflict_ignore().execute()


class AppKbProjection:
    """The store's projection for the `app_kb` domain."""

    domain = DOMAIN
    version = 4  # 2: term_pinyin; 3: one name normalization (store.core.names); 4: app_name_key
    models: Sequence[type[BaseModel]] = (AppEntry, NameKey)

    def apply(self, event: EventRecord) -> None:
        for change in changes_for(event.type, event.payload):
            if isinstance(change, Put):
                put_row(change.entry)
            elif isinstance(change, Remove):
                term, package, kind, scope = change.key
                AppEntry.delete().where(
                    (AppEntry.term == term)
                    & (AppEntry.package == package)
                    & (AppEntry.kind == kind)
                    & (AppEntry.scope == scope)
                ).execute()
            else:
                AppEntry.delete().where(
                    (AppEntry.scope == "global")
                    & (AppEntry.kind.in_(sorted(change.kinds)))
                    & (AppEntry.term_norm == change.term_norm)
                ).execute()

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        return subject_of(event_type, payload)


def replay(events: Iterable[EventRecord]) -> dict[EntryKey, AppKbEntry]:
    """Replay events into a fresh in-memory view."""
    view = MemoryView()
    for event in events:
        view.apply(event.type, event.payload)
    return view.entries

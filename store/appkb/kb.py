"""App-KB operations: the trust-ordered app facts and aliases (docs/cli.md, App-KB aliases).

Each mutation reads what it needs and appends reference-shaped events inside
one IMMEDIATE transaction; the view follows from the events (see
`appkb_projection`). Trust: user > device > learned. Only global learned and
user entries are ever written by `learn_alias` (the person's user alias),
`teach_alias` (an agent's learned one), `forget_alias` or the learning paths;
device entries change only through inventory sync.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from peewee import Case, Tuple, fn

from store.appkb.entry import (
    ALIAS_KINDS,
    KINDS,
    AppKbEntry,
    EntryKey,
    device_scope,
    is_package_name,
    normalize_term,
)
from store.appkb.models import AppEntry, NameKey
from store.appkb.projection import DOMAIN, row_to_entry
from store.appkb.results import ForgetAliasResult, LearnAliasResult, SyncReport
from store.core import clock
from store.core.database import Store
from store.core.errors import Forbidden, InvalidInput, SensitiveContent
from store.core.models import tuples
from store.core.names import clean_name
from store.core.redaction.redactor import Redactor

TRUST_ORDER = ("user", "device", "learned", "alias")
MAX_TERM_CHARS = 64
MAX_LABEL_CHARS = 128


def check_name(name: object, redactor: Redactor, what: str = "name") -> str:
    """Validate an app name a person or agent wants stored; return it cleaned (`store.core.names.clean_name`:
    invisible characters removed, whitespace runs made one space). A name that is nothing but invisible
    characters, or folds to nothing, is refused as empty."""
    if not isinstance(name, str):
        raise InvalidInput(f"{what} must be text")
    if not name.strip():
        raise InvalidInput(f"{what} is empty")
    clean = clean_name(name)
    if not clean or not normalize_term(clean):
        raise InvalidInput(f"{what} is empty once its invisible characters (zero-width, fillers, selectors) go")
    if len(clean) > MAX_TERM_CHARS:
        raise InvalidInput(f"{what} is longer than {MAX_TERM_CHARS} characters")
    if any(not ch.isprintable() for ch in clean):
        raise InvalidInput(f"{what} contains control characters")
    if redactor.is_sensitive(clean) or redactor.is_sensitive(name):  # as sent too: a key wrapped over lines
        raise SensitiveContent(f"{what} looks sensitive (a credential, number or listed word); it is not stored")
    return clean


def check_package(package: object) -> str:
    if not isinstance(package, str) or not is_package_name(package):
        raise InvalidInput(f"{package!r} is not a package name (expected something like com.tencent.mm)")
    return package.strip()


# -- reads -------------------------------------------------------------------------


def list_entries(
    store: Store,
    *,
    device: str | None = None,
    scope: str | None = None,
    kind: str | None = None,
    include_stale: bool = True,
    text: str | None = None,
    limit: int | None = None,
    offset: int = 0,
    order: str = "reference",
    after: EntryKey | None = None,
) -> list[AppKbEntry]:
    """Entries, filtered and paged in SQL.

    `device` keeps global entries and those of that device; `text` matches the
    normalized term, label or package as a substring, and Latin letters also the
    pinyin (full or initials) of the term and label. `order` is "reference"
    (scope, kind, term, package: the reference's kb.json order) or "trust"
    (user, device, learned, alias; then term, package, scope); the entry's own
    term ends each order, so that it is total. `after` pages by key (keyset
    paging): only entries after the one with that storage key (term, package,
    kind, scope) in the order, so a page asked after an agent learned an alias
    neither repeats a row nor skips one, as an offset would.
    """
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}")
    query = AppEntry.select()
    if device is not None:
        query = query.where(AppEntry.scope.in_(["global", device_scope(device)]))
    if scope is not None:
        query = query.where(AppEntry.scope == scope)
    if kind is not None:
        query = query.where(AppEntry.kind == kind)
    if not include_stale:
        query = query.where(AppEntry.stale == False)  # noqa: E712 (peewee expression)
    if text:
        needle = normalize_term(text)
        match = (
            AppEntry.term_norm.contains(needle)
            | fn.lower(AppEntry.label).contains(needle)
            | AppEntry.package.contains(needle)
        )
        if needle.isascii() and needle.isalpha():
            match = match | AppEntry.term_pinyin.contains(needle)  # "weixin" and "wx" find 微信
        query = query.where(match)
    columns: tuple[Any, ...]
    if order == "trust":
        rank = Case(AppEntry.kind, [(kind, position) for position, kind in enumerate(TRUST_ORDER)], len(TRUST_ORDER))
        columns = (rank, AppEntry.term_norm, AppEntry.package, AppEntry.scope, AppEntry.kind, AppEntry.term)
    elif order == "reference":
        columns = (AppEntry.scope, AppEntry.kind, AppEntry.term_norm, AppEntry.package, AppEntry.term)
    else:
        raise InvalidInput("order must be 'reference' or 'trust'")
    query = query.order_by(*columns)
    if after is not None:
        query = query.where(Tuple(*columns) > Tuple(*_sort_values(after, order)))
    if limit is not None:
        query = query.limit(limit).offset(offset)
    return [row_to_entry(row) for row in query]


def _sort_values(key: EntryKey, order: str) -> tuple[object, ...]:
    """What the entry with storage `key` sorts by in `order` (the columns of `list_entries`)."""
    term, package, kind, scope = key
    norm = normalize_term(term)
    if order == "trust":
        rank = TRUST_ORDER.index(kind) if kind in TRUST_ORDER else len(TRUST_ORDER)
        return (rank, norm, package, scope, kind, term)
    return (scope, kind, norm, package, term)


def name_keys(store: Store) -> dict[str, tuple[str, str]]:
    """The resolver's pinyin key, (full, initials), of each Chinese name the view has held, by the name as the
    resolver indexes it (`projection.put_name_key`); none from a view an older Jiyi wrote, read as it is."""
    if not store.db.table_exists(NameKey._meta.table_name):
        return {}
    return {alnum: (full, initials) for alnum, full, initials in tuples(NameKey.select())}


def count_entries(store: Store) -> int:
    return int(AppEntry.select().count())


def entries_for_term(store: Store, term: str) -> list[AppKbEntry]:
    rows = AppEntry.select().where(AppEntry.term_norm == normalize_term(term))
    return [row_to_entry(row) for row in rows]


def devices(store: Store) -> list[str]:
    """Serials of every device with an inventory."""
    rows = tuples(AppEntry.select(AppEntry.scope).where(AppEntry.kind == "device").distinct())
    return sorted(scope[7:] for (scope,) in rows if scope.startswith("device:"))


def devices_with(store: Store, package: str) -> list[str]:
    """Serials of the devices that have `package` installed now."""
    rows = tuples(
        AppEntry.select(AppEntry.scope)
        .where((AppEntry.kind == "device") & (AppEntry.package == package) & (AppEntry.stale == False))  # noqa: E712
        .distinct()
    )
    return sorted(scope[7:] for (scope,) in rows)


def installed(store: Store, device: str) -> dict[str, str] | None:
    """Package → label of the device's current inventory; None when it never synced."""
    rows = tuples(
        AppEntry.select(AppEntry.package, AppEntry.label, AppEntry.stale).where(
            (AppEntry.kind == "device") & (AppEntry.scope == device_scope(device))
        )
    )
    if not rows:
        return None
    return {package: label for package, label, stale in rows if not stale}


def device_labels(store: Store, packages: Sequence[str]) -> dict[str, str]:
    """Package → the label a device's current inventory shows for it, for those of `packages` some device has."""
    if not packages:
        return {}
    rows = tuples(
        AppEntry.select(AppEntry.package, AppEntry.label)
        .where((AppEntry.kind == "device") & (AppEntry.stale == False) & AppEntry.package.in_(list(packages)))  # noqa: E712
        .order_by(AppEntry.package, AppEntry.scope)
    )
    labels: dict[str, str] = {}
    for package, label in rows:
        labels.setdefault(package, label)
    return labels


# -- writes ------------------------------------------------------------------------


def _upsert(store: Store, entry: AppKbEntry, *, actor: str, note: str | None = None) -> AppKbEntry:
    """Append an `upsert`, keeping the earlier first_seen of an existing entry."""
    row = AppEntry.get_or_none(
        (AppEntry.term == entry.term)
        & (AppEntry.package == entry.package)
        & (AppEntry.kind == entry.kind)
        & (AppEntry.scope == entry.scope)
    )
    if row is not None and clock.parse_iso(row.first_seen) < clock.parse_iso(entry.first_seen):
        entry = entry.with_(first_seen=row.first_seen)
    payload: dict[str, object] = {"entry": entry.to_dict(), "ts": clock.iso_now()}
    if note:
        payload["evidence_note"] = note
    store.append(DOMAIN, "upsert", payload, actor=actor)
    return entry


def _global_aliases(term: str, kinds: Iterable[str] = ALIAS_KINDS) -> list[AppKbEntry]:
    rows = AppEntry.select().where(
        (AppEntry.scope == "global") & (AppEntry.kind.in_(sorted(kinds))) & (AppEntry.term_norm == normalize_term(term))
    )
    return [row_to_entry(row) for row in rows]


def learn_alias(store: Store, name: str, package: str, *, actor: str, redactor: Redactor) -> LearnAliasResult:
    """The user's correction `名称=包名`: one global user entry replaces the term's learned and user entries.

    Always logs `alias_user_set`, with `changed: false` when the alias was already so.
    """
    name = check_name(name, redactor)
    package = check_package(package)
    now = clock.iso_now()
    with store.atomic() as txn:
        matches = _global_aliases(name)
        if len(matches) == 1 and matches[0].kind == "user" and matches[0].package == package and not matches[0].stale:
            same = matches[0]
            payload = {"entry": same.to_dict(), "changed": False, "replaced": [], "ts": now}
            store.append(DOMAIN, "alias_user_set", payload, actor=actor)
            return LearnAliasResult(False, same, [], txn.id)
        first_seen = min((m.first_seen for m in matches), key=clock.parse_iso, default=now)
        entry = AppKbEntry(name, name, package, "user", "global", 1.0, 0, first_seen, now)
        payload = {
            "entry": entry.to_dict(),
            "changed": True,
            "replaced": [{"kind": m.kind, "package": m.package} for m in matches],
            "ts": now,
        }
        store.append(DOMAIN, "alias_user_set", payload, actor=actor)
        return LearnAliasResult(True, entry, matches, txn.id)


def teach_alias(store: Store, name: str, package: str, *, actor: str, redactor: Redactor) -> LearnAliasResult:
    """An agent's alias: one global learned entry (0.9, below the device's own list), beside the term's other
    entries (two learned aliases of one name make it ambiguous until one is forgotten). Logged as an `upsert`
    with its evidence note; `changed` is false when the same learned entry was there already."""
    name = check_name(name, redactor)
    package = check_package(package)
    now = clock.iso_now()
    with store.atomic() as txn:
        same = [m for m in _global_aliases(name, ("learned",)) if m.package == package and not m.stale]
        old = same[0] if same else None
        entry = AppKbEntry(
            old.term if old else name,
            old.label if old else name,
            package,
            "learned",
            "global",
            0.9,
            old.success_count if old else 0,
            old.first_seen if old else now,
            now,
            last_success=old.last_success if old else None,
        )
        _upsert(store, entry, actor=actor, note="taught by an agent")
        return LearnAliasResult(old is None, entry, [], txn.id)


def forget_alias(
    store: Store, name: str, *, actor: str, redactor: Redactor, kinds: Iterable[str] = ALIAS_KINDS
) -> ForgetAliasResult:
    """Remove the term's global entries of `kinds` (learned and user); device entries stay. Always logged.

    Forgetting only learned ones (an agent's) is refused (`Forbidden`) while the person's user alias holds the
    name: that one is the person's to forget. The log names the term, so a sensitive-looking name is refused,
    unless an alias holds it already (imported as it was): forgetting that one writes nothing new.
    """
    kinds = frozenset(kinds)
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("name is empty")
    term = clean_name(name)
    if not normalize_term(term):
        raise InvalidInput("name is empty once its invisible characters (zero-width, fillers, selectors) go")
    with store.atomic() as txn:
        if "user" not in kinds and _global_aliases(term, ("user",)):
            raise Forbidden(
                f"{term!r} holds the person's own alias (user trust): only the person forgets it, in the console "
                "or with jiyi alias forget; nothing was removed"
            )
        matches = _global_aliases(term, kinds)
        if not matches and (redactor.is_sensitive(term) or redactor.is_sensitive(name)):
            raise SensitiveContent("name looks sensitive (a credential, number or listed word); it is not stored")
        payload: dict[str, object] = {
            "term": term,
            "removed": [{"kind": m.kind, "package": m.package} for m in matches],
            "ts": clock.iso_now(),
        }
        if kinds != ALIAS_KINDS:
            payload["kinds"] = sorted(kinds)
        store.append(DOMAIN, "alias_forgotten", payload, actor=actor)
        return ForgetAliasResult(term, matches, txn.id)


def sync_inventory(
    store: Store,
    device: str,
    apps: Sequence[tuple[str, str]],
    *,
    actor: str,
    redactor: Redactor,
    touch_after_hours: float = 24.0,
) -> SyncReport:
    """Make the device's entries match its installed apps: new ones added, missing ones stale.

    Never deletes. An unchanged entry is rewritten only to refresh `last_seen`
    when it is older than `touch_after_hours`, so that the log does not grow by
    one event per app on every run.
    """
    if not isinstance(device, str) or not device.strip() or any(c.isspace() for c in device.strip()):
        raise InvalidInput("device serial must be non-empty text without spaces")
    serial = device.strip()
    scope = device_scope(serial)
    report = SyncReport(serial)
    wanted = _wanted_apps(apps, redactor, report.rejected)
    now = clock.iso_now()
    cutoff = clock.now().timestamp() - touch_after_hours * 3600
    with store.atomic():
        existing = {
            e.key: e
            for e in (
                row_to_entry(r)
                for r in AppEntry.select().where((AppEntry.kind == "device") & (AppEntry.scope == scope))
            )
        }
        for label, package in wanted:
            key = (label, package, "device", scope)
            old = existing.get(key)
            if old is not None and not old.stale and clock.parse_iso(old.last_seen).timestamp() >= cutoff:
                report.unchanged += 1
                continue
            entry = AppKbEntry(
                term=label,
                label=label,
                package=package,
                kind="device",
                scope=scope,
                confidence=1.0,
                success_count=old.success_count if old else 0,
                first_seen=old.first_seen if old else now,
                last_seen=now,
                last_success=old.last_success if old else None,
            )
            _upsert(store, entry, actor=actor)
            if old is None:
                report.added += 1
            else:
                report.updated += 1
        for key, old in existing.items():
            if (key[0], key[1]) not in wanted and not old.stale:
                stale = old.with_(stale=True)
                store.append(DOMAIN, "mark_stale", {"entry": stale.to_dict(), "ts": now}, actor=actor)
                report.staled += 1
    return report


def _wanted_apps(
    apps: Sequence[tuple[str, str]], redactor: Redactor, rejected: list[str]
) -> dict[tuple[str, str], None]:
    """The (label, package) pairs a sync asks for; malformed items go to `rejected`. A missing, overlong
    or sensitive label is replaced by the package name. Ordered as asked (the events follow that order)."""
    wanted: dict[tuple[str, str], None] = {}
    for item in apps:
        if not (isinstance(item, tuple | list) and len(item) == 2):
            rejected.append(repr(item)[:80])
            continue
        package, label = item
        if not isinstance(package, str) or not is_package_name(package):
            rejected.append(str(package)[:80])
            continue
        package = package.strip()
        sent = label if isinstance(label, str) else ""
        label = clean_name(sent)
        if not label or len(label) > MAX_LABEL_CHARS or redactor.is_sensitive(label) or redactor.is_sensitive(sent):
            label = package
        wanted[(label, package)] = None
    return wanted


def record_success(store: Store, term: str, package: str, *, device: str | None, actor: str) -> int:
    """A verified launch through an entry: success_count + 1, last_seen = last_success = now.

    Matches non-stale entries of the normalized term and package that apply to
    the device (global or its own). Returns how many were updated.
    """
    scopes = ["global"] + ([device_scope(device)] if device else [])
    now = clock.iso_now()
    with store.atomic():
        rows = AppEntry.select().where(
            (AppEntry.term_norm == normalize_term(term))
            & (AppEntry.package == package)
            & (AppEntry.stale == False)  # noqa: E712
            & (AppEntry.scope.in_(scopes))
        )
        entries = [row_to_entry(r) for r in rows]
        for entry in entries:
            updated = entry.with_(success_count=entry.success_count + 1, last_seen=now, last_success=now)
            store.append(DOMAIN, "upsert", {"entry": updated.to_dict(), "ts": now}, actor=actor)
    return len(entries)


def learn_observed(
    store: Store,
    name: str,
    package: str,
    *,
    label: str,
    note: str,
    actor: str,
    redactor: Redactor,
) -> AppKbEntry | None:
    """Write a learned alias from a verified launch (by label or implicit evidence).

    Returns None, writing nothing, when the name is the package itself, is not
    a storable name, or is sensitive; those are expected on this path and not errors.
    """
    if not is_package_name(package) or normalize_term(name) == normalize_term(package):
        return None
    try:
        name = check_name(name, redactor)
    except InvalidInput:
        return None
    now = clock.iso_now()
    entry = AppKbEntry(name, label or package, package, "learned", "global", 0.9, 1, now, now, last_success=now)
    with store.atomic():
        return _upsert(store, entry, actor=actor, note=note)


PACKAGE_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+(?![A-Za-z0-9_])")


def packages_named_in(message: str) -> list[str]:
    """Package-shaped words in a failed resolution's message, in order, deduplicated."""
    seen: dict[str, None] = {}
    for match in PACKAGE_IN_TEXT.finditer(message or ""):
        seen.setdefault(match.group(), None)
    return list(seen)

"""The App-KB operations: resolve a spoken app name; learn, forget, list, trace and undo aliases; sync inventories."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from recall.verdict import Candidate, Resolution
from service.memory.alias_outcome import LearnAliasOutcome
from service.memory.domain import Domain
from service.ops.declare import Args, NoArgs, Operation, Reply, always, as_user
from service.ops.fields import MAX_NAME, Apps, Boolean, Choice, Integer, Raw, Text, text_key
from service.wire.appkb import SyncReport
from store.appkb.entry import KINDS, AppKbEntry
from store.appkb.results import ForgetAliasResult, HistoryItem, LearnAliasResult, UndoResult
from store.core.errors import InvalidInput

ACTORS = ("agent", "user")
Name = Annotated[str, Text(MAX_NAME)]
Device = Annotated[str, Text(128)]
Actor = Annotated[str, Choice(ACTORS)]


class CandidateRow(Reply, frozen=True):
    package: str
    label: str
    name: str
    source: str
    evidence: str
    strong: bool  # device-fact evidence: the kind that may launch on its own
    route: str
    similarity: float
    prior: float
    score: float
    installed: bool | None

    @classmethod
    def of(cls, c: Candidate) -> CandidateRow:
        return cls(
            package=c.package,
            label=c.label,
            name=c.name,
            source=c.source,
            evidence=c.evidence,
            strong=c.strong,
            route=c.route,
            similarity=round(c.similarity, 4),
            prior=round(c.prior, 4),
            score=round(c.score, 4),
            installed=c.installed,
        )


class Resolved(Reply, frozen=True):
    query: str
    normalized: str
    state: str  # resolved / ambiguous / unknown
    package: str | None
    reason: str
    device: str | None
    candidates: list[CandidateRow]
    not_installed: list[CandidateRow]
    elapsed_ms: float

    @classmethod
    def of(cls, r: Resolution) -> Resolved:
        return cls(
            query=r.query,
            normalized=r.normalized,
            state=r.state,
            package=r.package,
            reason=r.reason,
            device=r.device,
            candidates=[CandidateRow.of(c) for c in r.candidates],
            not_installed=[CandidateRow.of(c) for c in r.not_installed],
            elapsed_ms=round(r.elapsed_ms, 3),
        )

    def back(self) -> Resolution:
        return msgspec.convert(self, Resolution, from_attributes=True)


class AliasEntry(Reply, frozen=True, omit_defaults=True):
    """An App-KB entry in the reference's JSON shape (`last_success` only when set)."""

    term: str
    label: str
    package: str
    kind: str
    scope: str
    confidence: float
    success_count: int
    first_seen: str
    last_seen: str
    stale: bool
    last_success: str | None = None

    @classmethod
    def of(cls, e: AppKbEntry) -> AliasEntry:
        return cls(
            term=e.term,
            label=e.label,
            package=e.package,
            kind=e.kind,
            scope=e.scope,
            confidence=e.confidence,
            success_count=e.success_count,
            first_seen=e.first_seen,
            last_seen=e.last_seen,
            stale=e.stale,
            last_success=e.last_success,
        )

    def back(self) -> AppKbEntry:
        return msgspec.convert(self, AppKbEntry, from_attributes=True)


class ResolveArgs(Args, frozen=True):
    name: Name
    device: Annotated[str | None, Text(128)] = None


class LearnArgs(Args, frozen=True):
    assignment: Annotated[str | None, Text(512)] = None  # `名称=包名`, instead of name and package
    name: Annotated[str | None, Text(MAX_NAME)] = None
    package: Annotated[str | None, Text(MAX_NAME)] = None
    actor: Actor = "agent"

    def check(self) -> None:
        if self.assignment is not None:
            extra = "name" if self.name is not None else "package" if self.package is not None else None
            if extra is not None:
                raise InvalidInput(f"unknown parameter {extra!r}")
            return
        for name in ("name", "package"):
            if getattr(self, name) is None:
                raise InvalidInput(f"params.{name} is required")


class AliasLearned(Reply, frozen=True):
    changed: bool
    entry: AliasEntry
    replaced: list[AliasEntry]
    change: int
    warnings: list[str]
    installed_on: list[str]
    missing_on: list[str]

    @classmethod
    def of(cls, outcome: LearnAliasOutcome) -> AliasLearned:
        result = outcome.result
        return cls(
            changed=result.changed,
            entry=AliasEntry.of(result.entry),
            replaced=[AliasEntry.of(e) for e in result.replaced],
            change=result.txn,
            warnings=outcome.warnings,
            installed_on=outcome.installed_on,
            missing_on=outcome.missing_on,
        )

    def back(self) -> LearnAliasOutcome:
        result = LearnAliasResult(self.changed, self.entry.back(), [e.back() for e in self.replaced], self.change)
        outcome = LearnAliasOutcome(result, self.installed_on, self.missing_on)
        outcome.notes = [w for w in self.warnings if w not in outcome.installation()]
        return outcome


class ForgetArgs(Args, frozen=True):
    name: Name
    actor: Actor = "agent"


class AliasForgotten(Reply, frozen=True):
    term: str
    removed: list[AliasEntry]
    change: int

    @classmethod
    def of(cls, result: ForgetAliasResult) -> AliasForgotten:
        return cls(term=result.term, removed=[AliasEntry.of(e) for e in result.removed], change=result.txn)

    def back(self) -> ForgetAliasResult:
        return ForgetAliasResult(term=self.term, removed=[e.back() for e in self.removed], txn=self.change)


class ListArgs(Args, frozen=True):
    device: Annotated[str | None, Text(128)] = None
    kind: Annotated[str | None, Choice(KINDS)] = None
    text: Annotated[str | None, Text(MAX_NAME)] = None
    include_stale: Annotated[bool, Boolean()] = True
    limit: Annotated[int, Integer(1, 5000)] = 200
    offset: Annotated[int, Integer()] = 0
    order: Annotated[str, Choice(("reference", "trust"))] = "reference"
    # Keyset paging: the `[term, package, kind, scope]` of the last entry the client holds; the page starts after it.
    after: Annotated[tuple[str, str, str, str] | None, Raw()] = None

    def check(self) -> None:
        text_key(self.after, KEY_PARTS)

    @property
    def key(self) -> tuple[str, str, str, str] | None:
        """`after` as an entry's storage key, or None."""
        return None if self.after is None else (self.after[0], self.after[1], self.after[2], self.after[3])


KEY_PARTS = ("term", "package", "kind", "scope")


class AliasPage(Reply, frozen=True):
    entries: list[AliasEntry]
    next_offset: int | None  # None: this was the last page


class HistoryArgs(Args, frozen=True):
    name: Name
    limit: Annotated[int, Integer(1, 1000)] = 100


class HistoryRow(Reply, frozen=True):
    seq: int
    ts: str
    actor: str
    type: str
    change: int | None
    payload: dict[str, Any]

    @classmethod
    def of(cls, i: HistoryItem) -> HistoryRow:
        return cls(seq=i.seq, ts=i.ts, actor=i.actor, type=i.type, change=i.txn, payload=i.payload)

    def back(self) -> HistoryItem:
        return HistoryItem(self.seq, self.ts, self.actor, self.type, self.change, self.payload)


class AliasHistory(Reply, frozen=True):
    items: list[HistoryRow]


class UndoArgs(Args, frozen=True):
    change: Annotated[int, Integer(low=1)]
    actor: Actor = "agent"


class AliasUndone(Reply, frozen=True):
    change: int
    reverted: int
    removed: list[AliasEntry]
    restored: list[AliasEntry]

    @classmethod
    def of(cls, result: UndoResult) -> AliasUndone:
        return cls(
            change=result.txn,
            reverted=result.reverted_txn,
            removed=[AliasEntry.of(e) for e in result.removed],
            restored=[AliasEntry.of(e) for e in result.restored],
        )

    def back(self) -> UndoResult:
        return UndoResult(
            self.change, self.reverted, [e.back() for e in self.removed], [e.back() for e in self.restored]
        )


class Devices(Reply, frozen=True):
    devices: list[str]
    aliases: int


class SyncArgs(Args, frozen=True):
    device: Device
    apps: Annotated[list[tuple[str, str]], Apps()]  # on the wire: {package, label} objects or pairs


RESOLVE = Operation(
    "app.resolve",
    ResolveArgs,
    Resolved,
    kind="read",
    idempotent=True,
    description="Turn an app name as the user said it (绿泡泡, weixin, 威信) into an Android package: `resolved` "
    "(safe to launch), `ambiguous` (ranked candidates to choose from) or `unknown`. Give `device` to prefer "
    "what is installed there.",
)
LEARN = Operation(
    "app.alias.learn",
    LearnArgs,
    AliasLearned,
    kind="write",
    idempotent=True,
    description="Remember that a name means a package (`name` and `package`, or `assignment` as 名称=包名), "
    "so that the next resolve finds it. An agent's alias is `learned`: below the device's own list, and "
    "refused (`conflict`) for a name that already names another app. Says on which devices it is installed.",
    errors=("forbidden", "conflict"),
    changes=frozenset({Domain.APP_KB}),
    person=as_user(
        "a user-trust alias (the highest trust, above the device's own app list)",
        "an agent teaches a learned alias: send actor agent, or no actor",
    ),
)
FORGET = Operation(
    "app.alias.forget",
    ForgetArgs,
    AliasForgotten,
    kind="write",
    idempotent=True,
    description="Forget the aliases taught for a name (the installed apps' own labels stay). An agent forgets "
    "learned aliases only; a name with the person's own alias is refused (`forbidden`).",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.APP_KB}),
    person=as_user("forgetting the person's aliases", "an agent forgets learned aliases only: send actor agent"),
)
LIST = Operation(
    "app.alias.list",
    ListArgs,
    AliasPage,
    kind="read",
    idempotent=True,
    description="List App-KB entries, filtered by device, kind or text, a page at a time (`next_offset`).",
)
HISTORY = Operation(
    "app.alias.history",
    HistoryArgs,
    AliasHistory,
    kind="read",
    idempotent=True,
    description="What happened to a name's aliases, newest first: each change with its number, for undo.",
)
UNDO = Operation(
    "app.alias.undo",
    UndoArgs,
    AliasUndone,
    kind="write",
    idempotent=False,
    description="Undo one App-KB change by its number (from the history): what it removed comes back. "
    "The person's act.",
    errors=("not_found", "conflict", "forbidden"),
    changes=frozenset({Domain.APP_KB}),
    person=always("undoing an App-KB change"),
)
DEVICES = Operation(
    "app.devices",
    NoArgs,
    Devices,
    kind="read",
    idempotent=True,
    description="The devices whose inventory the App-KB knows, and how many aliases it holds.",
)
SYNC = Operation(
    "app.inventory.sync",
    SyncArgs,
    SyncReport,
    kind="write",
    idempotent=True,
    description="Tell the App-KB which apps are installed on a device ({package, label} each); apps gone "
    "from the list turn stale.",
    changes=frozenset({Domain.APP_KB}),
)

OPERATIONS = (RESOLVE, LEARN, FORGET, LIST, HISTORY, UNDO, DEVICES, SYNC)

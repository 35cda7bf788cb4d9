"""The App-KB methods: resolve a spoken app name, and learn, forget, list and undo aliases."""

from __future__ import annotations

from collections.abc import Callable

from service.memory.memory import Memory
from service.ops import appkb
from service.ops.appkb import AliasEntry
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from store.appkb.entry import parse_assignment

TABLE = MethodTable("app-KB")


def _resolve_is_warm(memory: Memory) -> bool:
    return memory.appkb.resolve_is_warm()


# A warm resolve is answered on the socket's thread: CPU-bound work on several workers only contends
# for the GIL (8 clients: ~2,300/s on 4 workers against ~3,000-4,000/s on one).
@TABLE.op(appkb.RESOLVE, instant=_resolve_is_warm)
def app_resolve(memory: Memory, args: appkb.ResolveArgs, _context: CallContext) -> appkb.Resolved:
    return appkb.Resolved.of(memory.appkb.resolve_app(args.name, device=args.device))


# An agent's alias and inventory writes share a group commit with the other agents' writes (many agents
# learning at once each waited for a transaction of its own: one commit, and on SQLite one fsync, per write).
@TABLE.grouped(appkb.LEARN)
def app_alias_learn(memory: Memory, args: appkb.LearnArgs, _context: CallContext) -> Callable[[], appkb.AliasLearned]:
    if args.assignment is not None:
        name, package = parse_assignment(args.assignment)
    else:
        assert args.name is not None and args.package is not None  # LearnArgs.check
        name, package = args.name, args.package
    learn = memory.appkb.prepare_learn_alias(name, package, actor=args.actor)

    def write() -> appkb.AliasLearned:
        outcome = learn()
        result = outcome.result
        return appkb.AliasLearned(
            changed=result.changed,
            entry=AliasEntry.of(result.entry),
            replaced=[AliasEntry.of(e) for e in result.replaced],
            change=result.txn,
            warnings=outcome.warnings,
            installed_on=outcome.installed_on,
            missing_on=outcome.missing_on,
        )

    return write


@TABLE.grouped(appkb.FORGET)
def app_alias_forget(
    memory: Memory, args: appkb.ForgetArgs, _context: CallContext
) -> Callable[[], appkb.AliasForgotten]:
    forget = memory.appkb.prepare_forget_alias(args.name, actor=args.actor)

    def write() -> appkb.AliasForgotten:
        result = forget()
        return appkb.AliasForgotten(
            term=result.term, removed=[AliasEntry.of(e) for e in result.removed], change=result.txn
        )

    return write


@TABLE.op(appkb.LIST)
def app_alias_list(memory: Memory, args: appkb.ListArgs, _context: CallContext) -> appkb.AliasPage:
    rows = memory.appkb.list_aliases(
        device=args.device,
        kind=args.kind,
        text=args.text,
        include_stale=args.include_stale,
        limit=args.limit + 1,
        offset=args.offset,
        order=args.order,
        after=args.key,
    )
    more = len(rows) > args.limit
    return appkb.AliasPage(
        entries=[AliasEntry.of(e) for e in rows[: args.limit]],
        next_offset=args.offset + args.limit if more else None,
    )


@TABLE.op(appkb.HISTORY)
def app_alias_history(memory: Memory, args: appkb.HistoryArgs, _context: CallContext) -> appkb.AliasHistory:
    items = memory.appkb.alias_history(args.name, limit=args.limit)
    return appkb.AliasHistory(
        items=[
            appkb.HistoryRow(seq=i.seq, ts=i.ts, actor=i.actor, type=i.type, change=i.txn, payload=i.payload)
            for i in items
        ]
    )


@TABLE.op(appkb.UNDO)
def app_alias_undo(memory: Memory, args: appkb.UndoArgs, _context: CallContext) -> appkb.AliasUndone:
    result = memory.appkb.undo_change(args.change, actor="user")  # the person's (declared)
    return appkb.AliasUndone(
        change=result.txn,
        reverted=result.reverted_txn,
        removed=[AliasEntry.of(e) for e in result.removed],
        restored=[AliasEntry.of(e) for e in result.restored],
    )


@TABLE.op(appkb.DEVICES)
def app_devices(memory: Memory, _args: NoArgs, _context: CallContext) -> appkb.Devices:
    return appkb.Devices(devices=memory.appkb.devices(), aliases=memory.appkb.count_aliases())

"""`jiyi alias …` and the flag forms `jiyi --learn-alias` / `--forget-alias`: the App-KB's aliases."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command, add_group, open_memory, positive_int
from service.cli.output import pad, print_json
from store.appkb.entry import KINDS, parse_assignment

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`alias list`, `learn`, `forget`, `history` and `undo`."""
    alias = add_group(sub, "alias", common, "App-KB aliases", dest="alias_command", metavar="ACTION")
    listing = add_command(alias, "list", common, list_aliases, "list App-KB entries")
    listing.add_argument("--device", help="only global entries and this device's")
    listing.add_argument("--kind", choices=KINDS, help="only entries of this source")
    listing.add_argument("--text", help="substring of the name, label or package")
    listing.add_argument("--no-stale", action="store_true", help="hide stale entries")
    listing.add_argument("--limit", type=positive_int, metavar="N", help="at most N entries (default: all)")
    listing.add_argument("--json", action="store_true", help="print JSON instead of columns")
    learn = add_command(alias, "learn", common, learn_alias, "set a global user alias: 名称=包名", home="create")
    learn.add_argument("assignment", metavar="名称=包名", help="the name and the package it opens")
    forget = add_command(alias, "forget", common, forget_alias, "forget a name's user and learned aliases")
    forget.add_argument("name", metavar="名称", help="the name to forget")
    history = add_command(alias, "history", common, alias_history, "every change to a name, newest first")
    history.add_argument("name", metavar="名称", help="the name whose changes to list")
    history.add_argument("--json", action="store_true", help="print JSON instead of lines")
    undo = add_command(alias, "undo", common, undo_change, "revert a change by its id (from history)")
    undo.add_argument("change", type=int, metavar="CHANGE", help="the change id `alias history` shows")


def list_aliases(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        entries = memory.appkb.list_aliases(
            device=args.device, kind=args.kind, text=args.text, include_stale=not args.no_stale, limit=args.limit
        )
    if args.json:
        print_json([e.to_dict() for e in entries])
        return 0
    if not entries:
        print("no App-KB entries match")
        return 0
    print(f"{pad('name', 20)}{pad('package', 40)}{pad('kind', 8)}{pad('scope', 18)}  ok  state")
    for e in entries:
        state = "stale" if e.stale else ""
        print(f"{pad(e.term, 20)}{pad(e.package, 40)}{pad(e.kind, 8)}{pad(e.scope, 18)}{e.success_count:>4}  {state}")
    more = args.limit is not None and len(entries) == args.limit
    print(f"{len(entries)} entries" + (" (the first; a larger --limit shows more)" if more else ""))
    return 0


def learn_alias(args: argparse.Namespace, config: Config) -> int:
    return _learn(config, args.assignment)


def forget_alias(args: argparse.Namespace, config: Config) -> int:
    return _forget(config, args.name)


def flags(args: argparse.Namespace, config: Config) -> int:
    """`--learn-alias 名称=包名` and `--forget-alias 名称` (both may be given: learn, then forget)."""
    status = 0
    if args.learn_alias:
        status = _learn(config, args.learn_alias)
    if args.forget_alias:
        status = status or _forget(config, args.forget_alias)
    return status


def _learn(config: Config, assignment: str) -> int:
    name, package = parse_assignment(assignment)
    with open_memory(config) as memory:
        outcome = memory.appkb.learn_alias(name, package, actor="user")
    result = outcome.result
    if result.changed:
        replaced = ", ".join(f"{r.kind} {r.package}" for r in result.replaced) or "nothing"
        print(
            f"learned: {result.entry.term} → {result.entry.package} (user, global; replaced {replaced}); "
            f"change {result.txn}"
        )
    else:
        print(f"unchanged: {result.entry.term} → {result.entry.package} was already your alias; change {result.txn}")
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _forget(config: Config, name: str) -> int:
    with open_memory(config) as memory:
        result = memory.appkb.forget_alias(name, actor="user")
    if result.removed:
        removed = ", ".join(f"{r.kind} {r.package}" for r in result.removed)
        print(f"forgot {result.term}: removed {removed}; device entries kept; change {result.txn}")
    else:
        print(f"nothing to forget for {result.term} (device entries are never touched); change {result.txn}")
    return 0


def alias_history(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        items = memory.appkb.alias_history(args.name)
    if args.json:
        print_json(
            [{"seq": i.seq, "ts": i.ts, "actor": i.actor, "type": i.type, "change": i.txn, **i.payload} for i in items]
        )
        return 0
    if not items:
        print(f"no history for {args.name}")
        return 0
    for item in items:
        detail = f"{item.kind or ''} {item.package or ''}".strip()
        if item.type == "alias_forgotten":
            detail = "removed " + (
                ", ".join(f"{r['kind']} {r['package']}" for r in item.payload.get("removed", [])) or "nothing"
            )
        undo = f" (undo of {item.undo_of})" if item.undo_of else ""
        print(f"change {item.txn:>6}  {item.ts[:19]}  {item.actor:<7} {item.type:<16} {detail}{undo}")
    return 0


def undo_change(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        result = memory.appkb.undo_change(args.change, actor="user")
    removed = ", ".join(f"{e.term}→{e.package} ({e.kind})" for e in result.removed) or "nothing"
    restored = ", ".join(f"{e.term}→{e.package} ({e.kind})" for e in result.restored) or "nothing"
    print(f"undid change {result.reverted_txn}: removed {removed}; restored {restored}; change {result.txn}")
    return 0

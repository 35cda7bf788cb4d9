"""`jiyi learn …`: the learning grant, its status, a scan now, and the reference worker (docs/learning.md)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from service.cli.command import LazyChoices, Subparsers, add_command, add_group, open_memory
from store.core.errors import InvalidInput

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`learn status`, `scan`, `grant --example` and `worker --role … --endpoint … --model …`."""
    learn = add_group(
        sub, "learn", common, "automatic learning inside the owner's grant", dest="learn_command", metavar="ACTION"
    )
    status = add_command(learn, "status", common, show_status, "the grant, its quotas, cursors and queue")
    status.add_argument("--json", action="store_true", help="print the whole status as JSON")
    add_command(learn, "scan", common, scan_now, "advance the cursors now; prints how many sources were queued")
    grant = add_command(
        learn, "grant", common, print_grant, "print a [learning] section to append to config.toml", home="none"
    )
    grant.add_argument(
        "--example", action="store_true", required=True, help="a complete, valid example expiring in 30 days"
    )
    worker = add_command(
        learn, "worker", common, run_worker, "extract or review with an OpenAI-compatible chat endpoint", home="none"
    )
    worker.add_argument(
        "--role",
        choices=LazyChoices("service.learn_worker", "ROLES"),
        required=True,
        metavar="ROLE",
        help="%(choices)s: extract candidates, or review them",
    )
    worker.add_argument("--endpoint", required=True, metavar="URL", help="e.g. http://127.0.0.1:11434/v1")
    worker.add_argument("--model", required=True, metavar="NAME", help="the model name the endpoint serves")
    worker.add_argument("--socket", type=Path, help="the service's socket (default: JIYI_SOCKET, else the home's own)")
    worker.add_argument("--once", action="store_true", help="stop when nothing waits (default: poll for more)")
    worker.add_argument("--poll", type=float, default=30.0, metavar="SECONDS", help="wait between empty leases")
    worker.add_argument("--limit", type=int, metavar="N", help="handle at most N items")
    worker.add_argument(
        "--max-tokens", type=int, metavar="N", help="the model's answer (default: the grant's max_output_tokens)"
    )
    worker.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="one model call (default: a third of the grant's timeout: a failed call is retried within the lease)",
    )


def print_grant(args: argparse.Namespace, config: Config) -> int:
    from store.learning.grant import example_section

    print(example_section(), end="")
    return 0


def show_status(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:  # through the service that owns the home, if one runs
        status = memory.learning.status()
    if args.json:
        print(json.dumps(msgspec.to_builtins(status), ensure_ascii=False, indent=2))
        return 0
    grant, quotas, fingerprints = status.grant, status.quotas, status.fingerprints
    if not status.enabled or grant is None or quotas is None or fingerprints is None:
        print("learning is off: add a [learning] section to config.toml (jiyi learn grant --example)")
        return 0
    print(f"grant {grant.id} of {grant.owner}, expires {grant.expires_at}: {status.state}")
    if status.stopped_because:
        print(f"  stopped: {status.stopped_because}")
    for part, value in fingerprints.items():
        print(f"  {part:<10} {value}")
    for name, quota in quotas.items():
        print(f"  {name:<12} used {quota.used:>7,} of {quota.limit:>9,} ({quota.left:,} left)")
    print("  cursors     " + ", ".join(f"{feed} at {seq}" for feed, seq in status.cursors.items()))
    queue = ", ".join(f"{state} {count}" for state, count in status.queue.items() if count)
    print(f"  queue       {queue or 'empty'} ({status.pending} of {status.max_pending} pending)")
    print(f"  records     {status.records} active")
    return 0


def scan_now(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        report = memory.learning.scan()
    print(_line(report, ("added", "stopped", "revoked", "read", "backpressure")))
    return 0


def run_worker(args: argparse.Namespace, config: Config) -> int:
    from service.client import JiyiClient
    from service.learn_worker import ChatEndpoint, Worker
    from service.remote.attach import configured_socket

    grant = config.learning
    if grant is None:
        raise InvalidInput("learning is off: config.toml has no [learning] grant (jiyi learn grant --example)")
    max_tokens = args.max_tokens or grant.max_output_tokens
    if not 1 <= max_tokens <= grant.max_output_tokens:
        raise InvalidInput(f"--max-tokens must be 1–{grant.max_output_tokens} (the grant's max_output_tokens)")
    timeout = args.timeout or grant.timeout / 3
    if not 0 < timeout <= grant.timeout:
        raise InvalidInput(f"--timeout must be within the grant's {grant.timeout} seconds")
    path = configured_socket(config, args.socket)
    endpoint = ChatEndpoint(args.endpoint, args.model, max_tokens, timeout, os.environ.get("OPENAI_API_KEY", ""))
    with JiyiClient(path, timeout=timeout + 10) as client:
        tally = Worker(client, endpoint, args.role).run(once=args.once, poll=args.poll, limit=args.limit)
    for note in tally.notes:
        print(f"  {note}")
    print(_line(tally.to_dict(), ("leased", "submitted", "refused", "failed")))
    return 0 if not (tally.failed or tally.refused) else 1


def _line(values: Mapping[str, object], keys: tuple[str, ...]) -> str:
    return "  ".join(f"{key} {values[key]}" for key in keys)

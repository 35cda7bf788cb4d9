"""`jiyi schema [METHOD] [--docs FILE]`: the JSON Schema of the declared socket operations."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`schema [METHOD] [--docs FILE]`."""
    schema = add_command(
        sub, "schema", common, print_schema, "print the JSON Schema of the socket's methods", home="none"
    )
    schema.add_argument("method", nargs="?", help="one method (default: every declared one)")
    schema.add_argument("--docs", metavar="FILE", type=Path, help="rewrite the method table in FILE (docs/protocol.md)")


def print_schema(args: argparse.Namespace, _config: Config) -> int:
    # Imported here: `jiyi --help` imports no domain module (tests/cli/test_startup.py).
    from service.ops import DECLARED, declared
    from service.ops.docs import method_table, replace_table

    if args.docs is not None:
        text = args.docs.read_text("utf-8")
        args.docs.write_text(replace_table(text, method_table(list(DECLARED.values()))), "utf-8")
        print(f"wrote the method table of {len(DECLARED)} operations into {args.docs}")
        return 0
    if args.method is not None:
        operation = declared(args.method)  # its own name or an alias
        if operation is None:
            print(
                f"jiyi: no declared method {args.method!r} (declared: {', '.join(sorted(DECLARED))})", file=sys.stderr
            )
            return 4
        document: object = operation.schema()
    else:
        document = {name: DECLARED[name].schema() for name in sorted(DECLARED)}
    json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0

"""The method table of `docs/protocol.md`, rendered from the declarations (a test compares the two;
`jiyi schema --docs docs/protocol.md` writes it: edit `service/ops/`, not the table)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgspec

from service.ops.declare import Operation

BEGIN = "<!-- declared operations: begin -->"
END = "<!-- declared operations: end -->"


def _params(operation: Operation[Any, Any]) -> str:
    names = []
    for field in msgspec.structs.fields(operation.params):
        names.append(f"`{field.encode_name}`" if field.required else f"`{field.encode_name}`?")
    return ", ".join(names) or "—"


def method_table(operations: list[Operation[Any, Any]]) -> str:
    """The table, one row per operation: name (and its aliases, served the same), kind, idempotent, params
    (`?`: optional), errors, the domains a write may change (its reply's `changes` names those it did), when
    only the person may call it, what it does."""
    lines = [
        BEGIN,
        "| method | kind | idempotent | params | errors | changes | person only | what it does |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for op in sorted(operations, key=lambda o: o.name):
        errors = ", ".join(f"`{code}`" for code in op.all_errors())
        description = op.description.replace("|", "\\|")
        idempotent = "yes" if op.idempotent else "no"
        changes = ", ".join(f"`{domain}`" for domain in sorted(op.changes)) or "—"
        person = "—" if op.person is None else op.person.describe().replace("|", "\\|")
        names = f"`{op.name}`" + "".join(f" (alias `{alias}`)" for alias in op.aliases)
        lines.append(
            f"| {names} | {op.kind} | {idempotent} | {_params(op)} | {errors} | {changes} | {person} | {description} |"
        )
    lines.append(END)
    return "\n".join(lines)


def replace_table(document: str, table: str) -> str:
    """`document` with the text between the markers replaced by `table` (the markers must be there)."""
    start, end = document.index(BEGIN), document.index(END) + len(END)
    return document[:start] + table + document[end:]


def schema_digest(operations: list[Operation[Any, Any]]) -> str:
    """A digest of the operations' JSON Schema (what `jiyi schema` prints): it changes when the wire does.

    `tests/service/schema_digests.json` records it per protocol version: a change to the schema that does
    not bump the version fails a test."""
    document = {op.name: op.schema() for op in sorted(operations, key=lambda op: op.name)}
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

"""The wire's schema is versioned: a change to what `jiyi schema` prints that does not bump the protocol
version fails here. Bumping it means recording the new digest in `schema_digests.json` beside the old ones
(`.venv/bin/python tests/service/test_schema_version.py` prints it)."""

from __future__ import annotations

import json
from pathlib import Path

from service.ops import DECLARED
from service.ops.declare import Operation
from service.ops.docs import schema_digest
from service.rpc.protocol import PROTOCOL_VERSION

RECORDED = Path(__file__).with_name("schema_digests.json")


def test_the_schema_is_the_one_recorded_for_this_protocol_version() -> None:
    recorded = json.loads(RECORDED.read_text("utf-8"))
    assert PROTOCOL_VERSION in recorded, f"protocol {PROTOCOL_VERSION} has no recorded schema: record it"
    assert schema_digest(list(DECLARED.values())) == recorded[PROTOCOL_VERSION], (
        "`jiyi schema` changed while the protocol version did not: bump it (service/rpc/protocol.py) and record "
        "the new digest in tests/service/schema_digests.json"
    )


def test_a_version_records_one_schema_and_no_two_versions_share_one() -> None:
    recorded = json.loads(RECORDED.read_text("utf-8"))
    assert len(set(recorded.values())) == len(recorded)


def test_the_digest_changes_with_a_declaration() -> None:
    operations = list(DECLARED.values())
    first = operations[0]
    described = Operation(first.name, first.params, first.result, first.kind, first.idempotent, "changed")
    assert schema_digest([described, *operations[1:]]) != schema_digest(operations)
    assert schema_digest(operations[1:]) != schema_digest(operations)


if __name__ == "__main__":
    print(json.dumps({PROTOCOL_VERSION: schema_digest(list(DECLARED.values()))}))

"""Extraction: a lease admits one source (spending one extraction admission) and hands out its snapshot;
a submission answers it with one candidate or an explicit no-op.

The snapshot (the source's raw turns or outcome, the owner's policy, the
managed records it may replace or remove) is persisted with the lease before
it is returned, and bounded by `max_input_bytes`.
"""

from __future__ import annotations

import json
from typing import TypedDict

from store.core import clock
from store.core.database import Store
from store.core.errors import NotFound
from store.core.redaction.redactor import Redactor
from store.learning import admission, candidate, lease, ledger, records, sources
from store.learning.grant import Grant
from store.learning.models import LearningIntent, LearningOperation
from store.learning.projection import DOMAIN

TRUNCATED = "…[truncated {n} characters]"
MANAGED_IN_SNAPSHOT = 20


def _size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


class Snapshot(TypedDict):
    """What an extraction lease gives its extractor (kept with the lease, so its source is redacted)."""

    operation_id: str
    feed: str
    source: sources.SourceJson
    policy: str
    kinds: list[str]
    operations: list[str]
    managed: list[records.ManagedRecord]  # the records it may update or remove
    max_output_tokens: int
    deadline: str


def snapshot(
    grant: Grant,
    intent: LearningIntent,
    source: sources.Source,
    operation_id: str,
    deadline: str,
    redactor: Redactor,
) -> Snapshot:
    """What the extractor sees, within `max_input_bytes` (the longest turns are cut first, marked)."""
    kinds = list(grant.adoption.kinds)
    shot: Snapshot = {
        "operation_id": operation_id,
        "feed": intent.feed,
        "source": source.to_stored_dict(redactor),
        "policy": grant.policy,
        "kinds": kinds,
        "operations": list(grant.adoption.operations),
        "managed": records.managed(tuple(kinds), MANAGED_IN_SNAPSHOT),
        "max_output_tokens": grant.max_output_tokens,
        "deadline": deadline,
    }
    while _size(shot) > grant.max_input_bytes and shot["managed"]:
        shot["managed"].pop()
    turns = shot["source"]["turns"]
    while _size(shot) > grant.max_input_bytes:
        longest = max(range(len(turns)), key=lambda i: len(turns[i]["text"]), default=None)
        if longest is None or len(turns[longest]["text"]) <= 64:
            break
        text = turns[longest]["text"]
        over = _size(shot) - grant.max_input_bytes
        keep = max(32, len(text) - over - 64)
        turns[longest] = {**turns[longest], "text": text[:keep] + TRUNCATED.format(n=len(text) - keep)}
    return shot


EXTRACTION = lease.Kind("learning.extract.lease", "extractions", "extract_leased", "operation_id", "op_")


def lease_source(
    store: Store, grant: Grant, request_id: str, redactor: Redactor, *, actor: str = "agent"
) -> dict[str, object]:
    """Admit the oldest queued source: `{operation_id, snapshot}`, or `{"empty": true}` when nothing waits.

    The snapshot is persisted with the lease (and its reply in the ledger), so its source is redacted.
    """
    queued = (
        LearningIntent.select()
        .where((LearningIntent.grant_id == grant.id) & (LearningIntent.state == "queued"))
        .order_by(LearningIntent.queued, LearningIntent.intent_id)
    )

    def offer(
        intent: LearningIntent, source: sources.Source, operation_id: str, deadline: str
    ) -> tuple[dict[str, object], dict[str, object]]:
        shot = snapshot(grant, intent, source, operation_id, deadline, redactor)
        return {"snapshot": shot}, {"operation_id": operation_id, "snapshot": shot}

    params = {"grant_id": grant.id}
    return lease.admit(store, grant, EXTRACTION, request_id, params, queued, offer, actor=actor)


def submit(
    store: Store,
    grant: Grant | None,
    operation_id: str,
    request_id: str,
    result: object,
    redactor: Redactor,
    *,
    actor: str = "agent",
) -> dict[str, object]:
    """Answer a lease with a candidate or a no-op: `{"accepted": true, ...}` or `{"accepted": false, "reason"}`.

    A malformed candidate is refused (`InvalidInput`) and nothing is written:
    the extractor may send a corrected one while its lease lasts. A late answer
    (lease expired, cancelled, source revised or retracted, grant changed) is
    refused, recorded, and never reviewed or adopted.
    """
    params = {"operation_id": operation_id, "result": result}
    with store.atomic():
        done = ledger.recorded(request_id, "learning.extract.submit", params)
        if done is not None:
            return done
        op = LearningOperation.get_or_none(LearningOperation.operation_id == operation_id)
        if op is None:
            raise NotFound(f"no extraction operation {operation_id!r}")
        intent = LearningIntent.get(LearningIntent.intent_id == op.intent_id)
        refusal = _late(op, intent, grant)
        reply: dict[str, object]
        if refusal is not None:
            if op.state == "leased":
                admission.fail_operation(store, op, refusal, actor="system")
            reply = {"accepted": False, "reason": refusal}
        else:
            assert grant is not None
            source = sources.read(intent.source_kind, intent.source_id)
            assert source is not None
            found = candidate.parse(result, source=source, feed=intent.feed, grant=grant, redactor=redactor)
            store.append(
                DOMAIN,
                "extract_submitted",
                {
                    "operation_id": operation_id,
                    "intent_id": intent.intent_id,
                    "request_id": request_id,
                    "candidate": None if found is None else found.to_dict(),
                },
                actor=actor,
            )
            reply = {"accepted": True, "outcome": "noop" if found is None else "candidate"}
        ledger.record(store, request_id, "learning.extract.submit", params, reply)
    return reply


def _late(op: LearningOperation, intent: LearningIntent, grant: Grant | None) -> str | None:
    """Why a submission for `op` comes too late (None when it is on time)."""
    if op.state == "submitted":
        return "this operation was already answered (by another request)"
    if op.state == "failed":
        return f"this operation ended: {op.reason}"
    if op.deadline <= clock.iso_now():
        return "the extraction lease expired before this result arrived"
    if intent.state != "extracting":
        return f"the source's intent was {intent.state}: {intent.reason}"
    return lease.late(intent, grant, op.grant_id, revised="the source was revised after the lease")

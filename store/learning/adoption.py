"""Adoption: Jiyi's own step, taken only on a review receipt found in its ledger.

Before it writes, it checks again that the grant is the same (id, owner,
fingerprints, not expired), that the sources still exist unchanged and
unretracted, and that kind, operation, record count, bytes and TTL fit the
adoption grant. The mutation, the record with its provenance and the quota it
spends commit together; an intent already adopted is never adopted twice.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TypedDict, final

from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput
from store.learning import admission, candidate, records, sources
from store.learning.candidate import Candidate
from store.learning.grant import Grant
from store.learning.models import LearningIntent, LearningRecord, LearningReview
from store.learning.projection import DOMAIN
from store.learning.review import operation_of


@final  # final, so that a key test (`"adopted" in outcome`) tells which one it is
class Adopted(TypedDict):
    adopted: dict[str, object]  # the record as adopted (`records.record_dict`)


@final
class Refused(TypedDict):
    refused: str  # why adoption refused it (the intent is `refused`)


@final
class Skipped(TypedDict):
    skipped: str  # why there was nothing to adopt (the intent is not approved, or has no receipt)


Adoption = Adopted | Refused | Skipped
"""What `adopt` did: one key, `adopted`, `refused` or `skipped`."""


def adopt(store: Store, grant: Grant | None, intent_id: str, *, actor: str = "system") -> Adoption:
    """Adopt what review approved for `intent_id`: `{"adopted": record}` or `{"refused": reason}`."""
    with store.atomic():
        intent = LearningIntent.get_or_none(LearningIntent.intent_id == intent_id)
        if intent is None or intent.state != "approved":
            state = None if intent is None else intent.state
            return {"skipped": f"the intent is {state}, not approved"}
        receipt = (
            LearningReview.select()
            .where((LearningReview.intent_id == intent_id) & (LearningReview.state == "approved"))
            .first()
        )
        if receipt is None:
            return {"skipped": "no approved review receipt in the ledger"}
        found = Candidate.from_dict(json.loads(intent.candidate or "null"))
        problem = _recheck(grant, intent, found)
        target_row: LearningRecord | None = None
        if problem is None and found.target is not None:
            try:
                target_row = candidate.check_target(found.target["id"], found.target["version"], found.kind)
            except InvalidInput as exc:
                problem = str(exc).removeprefix("result.target: ")
        if problem is not None:
            store.append(
                DOMAIN, "adoption_refused", {"intent_id": intent_id, "state": "refused", "reason": problem}, actor=actor
            )
            return {"refused": problem}
        assert grant is not None
        source = sources.read(intent.source_kind, intent.source_id)
        assert source is not None
        try:
            outcome = _mutate(store, grant, intent, receipt, found, source, target_row, actor=actor)
        except Conflict as exc:
            store.append(
                DOMAIN,
                "adoption_refused",
                {"intent_id": intent_id, "state": "refused", "reason": str(exc)},
                actor=actor,
            )
            return {"refused": str(exc)}
    return {"adopted": outcome}


def _recheck(grant: Grant | None, intent: LearningIntent, found: Candidate) -> str | None:
    if grant is None or grant.id != intent.grant_id:
        return "the grant changed since the source was admitted"
    problem = admission.stop_reason(grant)
    if problem:
        return problem
    source = sources.read(intent.source_kind, intent.source_id)
    if source is None or source.retracted:
        return "the source was retracted"
    if source.fingerprint != intent.source_fp:
        return "the source was revised"
    if found.kind not in grant.adoption.kinds:
        return f"kind {found.kind} is not in the adoption grant"
    if found.operation not in grant.adoption.operations:
        return f"operation {found.operation} is not in the adoption grant"
    quota = admission.quotas(grant, admission.grant_row(grant.id))
    if quota["mutations"]["left"] < 1:
        return f"the adoption quota of {grant.adoption.max_records} mutations is used up; it is never renewed"
    if found.bytes > quota["bytes"]["left"]:
        return f"{found.bytes} bytes do not fit the {quota['bytes']['left']} adoption bytes left"
    return None


def _mutate(
    store: Store,
    grant: Grant,
    intent: LearningIntent,
    receipt: LearningReview,
    found: Candidate,
    source: sources.Source,
    target_row: LearningRecord | None,
    *,
    actor: str,
) -> dict[str, object]:
    now = clock.now()
    operation = operation_of(intent.intent_id)
    provenance = {
        "sources": [f"{source.kind}:{source.source_id}"],
        "source_fingerprints": [source.fingerprint],
        "quotations": found.quotations,
        "operation": found.operation,
        "operation_id": operation.operation_id if operation else None,
        "review_id": receipt.review_id,
        "reviewer": receipt.reviewer,
        "review_reason": receipt.reason,
        "intent_id": intent.intent_id,
        "feed": intent.feed,
        "grant_id": grant.id,
        "owner": grant.owner,
        "adopted_at": now.isoformat(),
    }
    if found.operation == "remove":
        assert target_row is not None
        records.withdraw(store, target_row.target_ref, "removed by learning", actor=actor)
        record_id, version, state, target_ref = (
            target_row.record_id,
            target_row.version + 1,
            "removed",
            target_row.target_ref,
        )
        content = target_row.content
    else:
        if target_row is not None:
            records.withdraw(store, target_row.target_ref, "replaced by learning", actor=actor)
            record_id, version = target_row.record_id, target_row.version + 1
        else:
            record_id, version = records.record_id_for(receipt.review_id), 1
        target_ref = records.place(store, found.kind, found.content, found.quotations, source, actor=actor)
        state, content = "active", found.content
    expires_at = (now + timedelta(seconds=grant.adoption.ttl)).isoformat()
    store.append(
        DOMAIN,
        "adopted",
        {
            "record_id": record_id,
            "version": version,
            "intent_id": intent.intent_id,
            "review_id": receipt.review_id,
            "grant_id": grant.id,
            "kind": found.kind,
            "operation": found.operation,
            "content": content,
            "state": state,
            "target_ref": target_ref,
            "provenance": provenance,
            "bytes": found.bytes,
            "expires_at": expires_at,
        },
        actor=actor,
    )
    return records.record_dict(LearningRecord.get(LearningRecord.record_id == record_id))


def approved_waiting() -> list[str]:
    """Intents whose approval is in the ledger but not yet adopted (a restart between the two steps)."""
    return [
        i.intent_id for i in LearningIntent.select(LearningIntent.intent_id).where(LearningIntent.state == "approved")
    ]

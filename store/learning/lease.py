"""The one skeleton of a learning lease, shared by extraction and review.

A lease is admitted in one write transaction: a request answered before is
answered again from the ledger; leases past their deadline end first (their
admissions stay spent), so a worker that vanished never holds a source or a
candidate for longer than its lease; the grant must allow the step's quota;
the oldest waiting intent whose source is still as it was is leased (one whose
source was retracted or revised meanwhile is stopped and skipped); the reply
is kept in the ledger. What differs (which intents wait, what the worker is
given) is the caller's `offer`. A late answer is refused for the reasons
`late` names, the same for both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from store.core import clock
from store.core.database import Store
from store.learning import admission, ledger, sources
from store.learning.grant import Grant
from store.learning.models import LearningIntent
from store.learning.projection import DOMAIN

WAITING_BATCH = 50  # intents looked at per lease (those stopped on the way are skipped)


@dataclass(frozen=True)
class Kind:
    """One kind of lease: the socket method, the quota it spends, its event and how its id is spelt."""

    method: str  # "learning.extract.lease"
    quota: str  # "extractions"
    event: str  # "extract_leased"
    id_key: str  # "operation_id"
    id_prefix: str  # "op_"


# What a lease gives its worker: the event's own fields, and the reply (both given the lease's id and deadline).
Offer = Callable[[LearningIntent, sources.Source, str, str], tuple[dict[str, object], dict[str, object]]]


def admit(
    store: Store,
    grant: Grant,
    kind: Kind,
    request_id: str,
    params: Mapping[str, object],
    waiting: Any,
    offer: Offer,
    *,
    actor: str,
) -> dict[str, object]:
    """Lease the first intent of `waiting` (a query, oldest first) whose source is unchanged; `{"empty": true}`
    when there is none. Raises `Forbidden` when the grant does not allow `kind.quota` now."""
    with store.atomic():
        done = ledger.recorded(request_id, kind.method, params)
        if done is not None:
            return done
        admission.expire_leases(store)
        admission.require(grant, kind.quota)
        reply: dict[str, object] = {"empty": True}
        for intent in waiting.limit(WAITING_BATCH):
            source = sources.read(intent.source_kind, intent.source_id)
            if source is None or source.retracted or source.fingerprint != intent.source_fp:
                why = "the source was retracted" if source is None or source.retracted else "the source was revised"
                store.append(
                    DOMAIN,
                    "intent_stopped",
                    {"intent_id": intent.intent_id, "state": "stopped", "reason": why},
                    actor="system",
                )
                continue
            lease_id = kind.id_prefix + hashlib.sha256(f"{intent.intent_id}\x1f{request_id}".encode()).hexdigest()[:20]
            deadline = (clock.now() + timedelta(seconds=grant.timeout)).isoformat()
            fields, reply = offer(intent, source, lease_id, deadline)
            payload = {
                kind.id_key: lease_id,
                "intent_id": intent.intent_id,
                "grant_id": grant.id,
                "request_id": request_id,
                **fields,
                "deadline": deadline,
            }
            store.append(DOMAIN, kind.event, payload, actor=actor)
            break
        ledger.record(store, request_id, kind.method, params, reply)
    return reply


def late(intent: LearningIntent, grant: Grant | None, lease_grant_id: str, *, revised: str) -> str | None:
    """Why an answer to a lease on `intent` comes too late by its source or its grant (None: on time).

    `revised` is the refusal when the source changed since the lease's own step.
    """
    source = sources.read(intent.source_kind, intent.source_id)
    if source is None or source.retracted:
        return "the source was retracted"
    if source.fingerprint != intent.source_fp:
        return revised
    if grant is None or grant.id != lease_grant_id:
        return "the grant changed since the lease"
    return admission.stop_reason(grant)

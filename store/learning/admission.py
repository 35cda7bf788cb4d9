"""The grant in the ledger: registration (immutable per id), the stop conditions and the quotas.

Quotas are consumed by the admission events themselves (`extract_leased`,
`review_leased`, `adopted`) and never given back: a lease that fails, expires
or is cancelled keeps its admission spent, and nothing renews a grant.
"""

from __future__ import annotations

import json

from store.core import clock
from store.core.database import Store
from store.core.errors import Forbidden
from store.learning import sql
from store.learning.grant import Grant
from store.learning.models import LearningGrant, LearningOperation, LearningReview
from store.learning.projection import DOMAIN


def register(store: Store, grant: Grant, *, actor: str = "system") -> str | None:
    """Record `grant` the first time it is seen; None, or why it cannot be used (its id holds other values)."""
    row = LearningGrant.get_or_none(LearningGrant.grant_id == grant.id)
    if row is None:
        with store.atomic():
            store.append(
                DOMAIN,
                "grant_registered",
                {
                    "grant_id": grant.id,
                    "owner": grant.owner,
                    "parts": grant.parts(),
                    "fingerprints": grant.fingerprints(),
                    "expires_at": grant.expires_at,
                },
                actor=actor,
            )
        return None
    return mismatch(grant, row)


def mismatch(grant: Grant, row: LearningGrant) -> str | None:
    stored = json.loads(row.fingerprints)
    changed = [part for part, value in grant.fingerprints().items() if stored.get(part) != value]
    if changed:
        return (
            f"grant {grant.id} is registered with other values ({', '.join(changed)} changed); "
            "a grant is immutable for its id: give the changed grant a new authority_id"
        )
    return None


def grant_row(grant_id: str) -> LearningGrant | None:
    row = sql.one(
        LearningGrant._meta.database, f"SELECT {GRANT_COLUMNS} FROM learning_grant WHERE grant_id = ?", [grant_id]
    )
    return None if row is None else LearningGrant(**row)


GRANT_COLUMNS = (
    "grant_id, owner, parts, fingerprints, expires_at, registered, extractions_used, reviews_used, mutations_used, "
    "bytes_used"
)


def quotas(grant: Grant, row: LearningGrant | None) -> dict[str, dict[str, int]]:
    used = {
        "extractions": int(row.extractions_used) if row else 0,
        "reviews": int(row.reviews_used) if row else 0,
        "mutations": int(row.mutations_used) if row else 0,
        "bytes": int(row.bytes_used) if row else 0,
    }
    limits = {
        "extractions": grant.max_extractions,
        "reviews": grant.review.admissions,
        "mutations": grant.adoption.max_records,
        "bytes": grant.adoption.max_bytes,
    }
    return {k: {"used": used[k], "limit": limits[k], "left": max(0, limits[k] - used[k])} for k in limits}


def stop_reason(grant: Grant | None, quota: str | None = None) -> str | None:
    """Why learning with `grant` must not admit now (None: it may); `quota` names the quota the step consumes."""
    if grant is None:
        return "learning is off: config.toml has no [learning] grant"
    row = grant_row(grant.id)
    if row is None:
        return f"grant {grant.id} is not registered"
    problem = mismatch(grant, row)
    if problem:
        return problem
    if grant.expired():
        return f"grant {grant.id} expired at {grant.expires_at}"
    used = quotas(grant, row)[quota] if quota is not None else None
    if used is not None and used["left"] <= 0:
        return f"the {quota} quota of grant {grant.id} is used up ({used['limit']}); it is never renewed"
    return None


def require(grant: Grant | None, quota: str | None = None) -> Grant:
    problem = stop_reason(grant, quota)
    if problem:
        raise Forbidden(problem)
    assert grant is not None
    return grant


def expire_leases(store: Store, *, actor: str = "system") -> int:
    """End the leases past their deadline (their admissions stay spent); how many. Writes only when one is due."""
    now = clock.iso_now()
    due = store.db.execute_sql(
        "SELECT (SELECT COUNT(*) FROM learning_operation WHERE state = 'leased' AND deadline <= ?) + "
        "(SELECT COUNT(*) FROM learning_review WHERE state = 'leased' AND deadline <= ?)",
        (now, now),
    ).fetchone()[0]
    if not due:
        return 0
    with store.atomic():
        ops = LearningOperation.select().where(
            (LearningOperation.state == "leased") & (LearningOperation.deadline <= now)
        )
        for op in list(ops):
            fail_operation(store, op, "the extraction lease expired before a result arrived", actor=actor)
        reviews = LearningReview.select().where((LearningReview.state == "leased") & (LearningReview.deadline <= now))
        for review in list(reviews):
            fail_review(store, review, "the review lease expired before a verdict arrived", actor=actor)
    return int(due)


def fail_operation(store: Store, op: LearningOperation, reason: str, *, actor: str) -> None:
    payload: dict[str, object] = {"operation_id": op.operation_id, "intent_id": op.intent_id, "reason": reason}
    store.append(DOMAIN, "operation_failed", payload, actor=actor)


def fail_review(store: Store, review: LearningReview, reason: str, *, actor: str) -> None:
    payload = {"review_id": review.review_id, "intent_id": review.intent_id, "reason": reason}
    store.append(DOMAIN, "review_failed", payload, actor=actor)


def open_leases() -> dict[str, list[str]]:
    db = LearningOperation._meta.database
    ops = [r[0] for r in db.execute_sql("SELECT operation_id FROM learning_operation WHERE state = 'leased'")]
    reviews = [r[0] for r in db.execute_sql("SELECT review_id FROM learning_review WHERE state = 'leased'")]
    return {"operations": ops, "reviews": reviews}


def fail_open_leases(store: Store, reason: str, *, actor: str = "system") -> tuple[int, int]:
    """End every open lease with `reason` (a restart, a shutdown; admissions stay spent): (operations, reviews).

    Writes only when a lease is open.
    """
    ops = list(LearningOperation.select().where(LearningOperation.state == "leased"))
    reviews = list(LearningReview.select().where(LearningReview.state == "leased"))
    if ops or reviews:
        with store.atomic():
            for op in ops:
                fail_operation(store, op, reason, actor=actor)
            for review in reviews:
                fail_review(store, review, reason, actor=actor)
    return len(ops), len(reviews)

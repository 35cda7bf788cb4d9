"""Independent review: a lease hands out one candidate with its sources re-read by Jiyi from its own store
(never the extractor's snapshot) and spends one review admission; a submission records the verdict.

Adoption is not part of the verdict: it is Jiyi's own step (`adoption.py`),
taken after the verdict's receipt is committed to the ledger.
"""

from __future__ import annotations

import json

from store.core import clock
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.redaction.redactor import Redactor
from store.learning import admission, lease, ledger, sources
from store.learning.grant import Grant
from store.learning.models import LearningIntent, LearningOperation, LearningReview
from store.learning.projection import DOMAIN

VERDICTS = ("approved", "rejected")
REVIEWERS = ("worker", "owner")
MAX_REASON = 2000


REVIEW = lease.Kind("learning.review.lease", "reviews", "review_leased", "review_id", "rev_")


def lease_candidate(
    store: Store,
    grant: Grant,
    request_id: str,
    redactor: Redactor,
    *,
    reviewer: str = "worker",
    actor: str = "agent",
    intent_id: str | None = None,
) -> dict[str, object]:
    """`{review_id, candidate, sources, policy, ...}` for the oldest candidate (or the candidate of
    `intent_id`, for the owner reviewing in the console), or `{"empty": true}`. The reply is kept in the
    ledger, so its sources are redacted (the console shows the owner the source as stored)."""
    if reviewer not in REVIEWERS:
        raise InvalidInput(f"reviewer must be one of {', '.join(REVIEWERS)}")
    params: dict[str, object] = {"grant_id": grant.id, "reviewer": reviewer}
    if intent_id is not None:
        params["intent_id"] = intent_id
    waiting = (
        LearningIntent.select()
        .where((LearningIntent.grant_id == grant.id) & (LearningIntent.state == "candidate"))
        .order_by(LearningIntent.updated, LearningIntent.intent_id)
    )
    if intent_id is not None:
        waiting = waiting.where(LearningIntent.intent_id == intent_id)

    def offer(
        intent: LearningIntent, source: sources.Source, review_id: str, deadline: str
    ) -> tuple[dict[str, object], dict[str, object]]:
        reply: dict[str, object] = {
            "review_id": review_id,
            "candidate": json.loads(intent.candidate or "null"),
            "sources": [source.to_stored_dict(redactor)],
            "feed": intent.feed,
            "policy": grant.policy,
            "deadline": deadline,
        }
        return {"reviewer": reviewer}, reply

    return lease.admit(store, grant, REVIEW, request_id, params, waiting, offer, actor=actor)


def check_verdict(verdict: str, reason: object) -> None:
    """A verdict and its reason as a review takes them (refused before anything is leased or written for them)."""
    if verdict not in VERDICTS:
        raise InvalidInput(f"verdict must be one of {', '.join(VERDICTS)}")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise InvalidInput(f"reason must be 1–{MAX_REASON} characters: why the candidate is approved or rejected")


def submit(
    store: Store,
    grant: Grant | None,
    review_id: str,
    request_id: str,
    verdict: str,
    reason: str,
    redactor: Redactor,
    *,
    actor: str = "agent",
) -> dict[str, object]:
    """Record a verdict: `{"accepted": true, "verdict"}` or `{"accepted": false, "reason"}` when it is late.

    The reason is kept redacted (in the review, and as `review_reason` in an adopted record's provenance).
    """
    check_verdict(verdict, reason)
    params = {"review_id": review_id, "verdict": verdict, "reason": reason}
    with store.atomic():
        done = ledger.recorded(request_id, "learning.review.submit", params)
        if done is not None:
            return done
        review = LearningReview.get_or_none(LearningReview.review_id == review_id)
        if review is None:
            raise NotFound(f"no review {review_id!r}")
        intent = LearningIntent.get(LearningIntent.intent_id == review.intent_id)
        refusal = _late(review, intent, grant)
        if refusal is not None:
            if review.state == "leased":
                admission.fail_review(store, review, refusal, actor="system")
            reply: dict[str, object] = {"accepted": False, "reason": refusal}
        else:
            store.append(
                DOMAIN,
                "review_submitted",
                {
                    "review_id": review_id,
                    "intent_id": intent.intent_id,
                    "request_id": request_id,
                    "verdict": verdict,
                    "reason": redactor.redact(reason.strip()),
                },
                actor=actor,
            )
            reply = {"accepted": True, "verdict": verdict, "intent_id": intent.intent_id}
        ledger.record(store, request_id, "learning.review.submit", params, reply)
    return reply


def _late(review: LearningReview, intent: LearningIntent, grant: Grant | None) -> str | None:
    if review.state in VERDICTS:
        return "this review already has a verdict (from another request)"
    if review.state == "failed":
        return f"this review ended: {review.reason}"
    if review.deadline <= clock.iso_now():
        return "the review lease expired before this verdict arrived"
    if intent.state != "reviewing":
        return f"the source's intent was {intent.state}: {intent.reason}"
    return lease.late(intent, grant, review.grant_id, revised="the source was revised after the candidate")


def operation_of(intent_id: str) -> LearningOperation | None:
    found: LearningOperation | None = (
        LearningOperation.select()
        .where((LearningOperation.intent_id == intent_id) & (LearningOperation.state == "submitted"))
        .first()
    )
    return found

"""The `learning` projection: every decision (an intent's state, a quota's use, a record's version) is made
when its event is written and carried in the payload, so replaying the log rebuilds the same tables.

Quotas move only forward: an admission event adds to its counter and nothing ever subtracts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from store.core.models import BaseModel
from store.core.projection import EventRecord, dispatch, first_text
from store.learning.models import (
    LEARNING_MODELS,
    LearningCursor,
    LearningGrant,
    LearningIntent,
    LearningOperation,
    LearningRecord,
    LearningRequest,
    LearningReview,
)

DOMAIN = "learning"
SUBJECT_KEYS = ("intent_id", "record_id", "grant_id", "request_id")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class LearningProjection:
    domain = DOMAIN
    version = 1
    models: Sequence[type[BaseModel]] = LEARNING_MODELS

    def __init__(self) -> None:
        self._apply: dict[str, Callable[[EventRecord], None]] = {
            "grant_registered": self._grant,
            "cursor_advanced": self._cursor,
            "intent_queued": self._intent,
            "intent_stopped": self._intent_state,
            "extract_leased": self._extract_leased,
            "extract_submitted": self._extract_submitted,
            "operation_failed": self._operation_failed,
            "review_leased": self._review_leased,
            "review_submitted": self._review_submitted,
            "review_failed": self._review_failed,
            "adopted": self._adopted,
            "adoption_refused": self._intent_state,
            "record_changed": self._record_changed,
            "record_imported": self._record_imported,
            "request_answered": self._request,
        }

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        return first_text(payload, SUBJECT_KEYS)

    def apply(self, event: EventRecord) -> None:
        dispatch(self._apply, event)

    @staticmethod
    def _grant(event: EventRecord) -> None:
        p = event.payload
        LearningGrant.insert(
            grant_id=p["grant_id"],
            owner=p["owner"],
            parts=_json(p["parts"]),
            fingerprints=_json(p["fingerprints"]),
            expires_at=p["expires_at"],
            registered=event.ts,
        ).execute()

    @staticmethod
    def _cursor(event: EventRecord) -> None:
        p = event.payload
        db = LearningCursor._meta.database
        db.execute_sql(
            "INSERT INTO learning_cursor (feed, seq, updated) VALUES (?, ?, ?) "
            "ON CONFLICT (feed) DO UPDATE SET seq = excluded.seq, updated = excluded.updated",
            (p["feed"], p["seq"], event.ts),
        )

    @staticmethod
    def _intent(event: EventRecord) -> None:
        p = event.payload
        LearningIntent._meta.database.execute_sql(
            "INSERT INTO learning_intent (intent_id, grant_id, feed, source_kind, source_id, source_fp, source_ts, "
            "state, reason, queued, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', '', ?, ?)",
            (
                p["intent_id"],
                p["grant_id"],
                p["feed"],
                p["source_kind"],
                p["source_id"],
                p["source_fp"],
                p["source_ts"],
                event.ts,
                event.ts,
            ),
        )

    @staticmethod
    def _set_intent(intent_id: str, state: str, ts: str, reason: str = "", candidate: str | None = None) -> None:
        db = LearningIntent._meta.database
        if candidate is None:
            db.execute_sql(
                "UPDATE learning_intent SET state = ?, reason = ?, updated = ? WHERE intent_id = ?",
                (state, reason, ts, intent_id),
            )
        else:
            db.execute_sql(
                "UPDATE learning_intent SET state = ?, reason = ?, updated = ?, candidate = ? WHERE intent_id = ?",
                (state, reason, ts, candidate, intent_id),
            )

    def _intent_state(self, event: EventRecord) -> None:
        p = event.payload
        self._set_intent(p["intent_id"], p["state"], event.ts, p.get("reason", ""))

    @staticmethod
    def _quota(grant_id: str, **amounts: int) -> None:
        LearningGrant.update(
            {getattr(LearningGrant, name): getattr(LearningGrant, name) + amount for name, amount in amounts.items()}
        ).where(LearningGrant.grant_id == grant_id).execute()

    def _extract_leased(self, event: EventRecord) -> None:
        p = event.payload
        LearningOperation.insert(
            operation_id=p["operation_id"],
            intent_id=p["intent_id"],
            grant_id=p["grant_id"],
            request_id=p["request_id"],
            snapshot=_json(p["snapshot"]),
            deadline=p["deadline"],
            state="leased",
            created=event.ts,
            updated=event.ts,
        ).execute()
        self._set_intent(p["intent_id"], "extracting", event.ts)
        self._quota(p["grant_id"], extractions_used=1)

    def _extract_submitted(self, event: EventRecord) -> None:
        p = event.payload
        LearningOperation.update(state="submitted", updated=event.ts).where(
            LearningOperation.operation_id == p["operation_id"]
        ).execute()
        candidate = p.get("candidate")
        if candidate is None:
            self._set_intent(p["intent_id"], "noop", event.ts, "the extractor found nothing to learn")
        else:
            self._set_intent(p["intent_id"], "candidate", event.ts, candidate=_json(candidate))

    @staticmethod
    def _fail_intent(intent_id: str, leased_state: str, ts: str, reason: str) -> None:
        """The intent fails with its lease, unless something ended it first (a revision stopped it)."""
        LearningIntent._meta.database.execute_sql(
            "UPDATE learning_intent SET state = 'failed', reason = ?, updated = ? WHERE intent_id = ? AND state = ?",
            (reason, ts, intent_id, leased_state),
        )

    def _operation_failed(self, event: EventRecord) -> None:
        p = event.payload
        LearningOperation.update(state="failed", reason=p["reason"], updated=event.ts).where(
            LearningOperation.operation_id == p["operation_id"]
        ).execute()
        self._fail_intent(p["intent_id"], "extracting", event.ts, p["reason"])

    def _review_leased(self, event: EventRecord) -> None:
        p = event.payload
        LearningReview.insert(
            review_id=p["review_id"],
            intent_id=p["intent_id"],
            grant_id=p["grant_id"],
            request_id=p["request_id"],
            reviewer=p["reviewer"],
            deadline=p["deadline"],
            state="leased",
            created=event.ts,
            updated=event.ts,
        ).execute()
        LearningIntent.update(state="reviewing", updated=event.ts).where(
            LearningIntent.intent_id == p["intent_id"]
        ).execute()
        self._quota(p["grant_id"], reviews_used=1)

    def _review_submitted(self, event: EventRecord) -> None:
        p = event.payload
        LearningReview.update(state=p["verdict"], reason=p["reason"], updated=event.ts).where(
            LearningReview.review_id == p["review_id"]
        ).execute()
        LearningIntent.update(state=p["verdict"], reason=p["reason"], updated=event.ts).where(
            LearningIntent.intent_id == p["intent_id"]
        ).execute()

    def _review_failed(self, event: EventRecord) -> None:
        p = event.payload
        LearningReview.update(state="failed", reason=p["reason"], updated=event.ts).where(
            LearningReview.review_id == p["review_id"]
        ).execute()
        self._fail_intent(p["intent_id"], "reviewing", event.ts, p["reason"])

    def _adopted(self, event: EventRecord) -> None:
        p = event.payload
        values = {
            "version": p["version"],
            "grant_id": p["grant_id"],
            "kind": p["kind"],
            "content": p["content"],
            "state": p["state"],
            "managed": True,
            "target_ref": p["target_ref"],
            "provenance": _json(p["provenance"]),
            "bytes": p["bytes"],
            "expires_at": p["expires_at"],
            "updated": event.ts,
            "reason": "",
        }
        if not LearningRecord.update(values).where(LearningRecord.record_id == p["record_id"]).execute():
            LearningRecord.insert(record_id=p["record_id"], created=event.ts, **values).execute()
        self._set_intent(p["intent_id"], "adopted", event.ts)
        self._quota(p["grant_id"], mutations_used=1, bytes_used=p["bytes"])

    @staticmethod
    def _record_imported(event: EventRecord) -> None:
        """A record adopted in another home, brought by `jiyi import desk` with its provenance and times (no
        intent or grant of this home is touched: its quotas were spent where it was adopted)."""
        p = event.payload
        LearningRecord.insert(
            record_id=p["record_id"],
            version=p["version"],
            grant_id=p["grant_id"],
            kind=p["kind"],
            content=p["content"],
            state=p["state"],
            managed=p["managed"],
            target_ref=p["target_ref"],
            provenance=_json(p["provenance"]),
            bytes=p["bytes"],
            expires_at=p["expires_at"],
            created=p["created"],
            updated=p["updated"],
            reason=p.get("reason", ""),
        ).on_conflict_ignore().execute()

    @staticmethod
    def _record_changed(event: EventRecord) -> None:
        p = event.payload
        values: dict[str, object] = {"state": p["state"], "reason": p.get("reason", ""), "updated": event.ts}
        if "managed" in p:
            values["managed"] = p["managed"]
        if "content" in p:
            values["content"] = p["content"]
        if "target_ref" in p:
            values["target_ref"] = p["target_ref"]
        if p.get("bump"):
            values["version"] = LearningRecord.version + 1
        LearningRecord.update(values).where(LearningRecord.record_id == p["record_id"]).execute()

    @staticmethod
    def _request(event: EventRecord) -> None:
        p = event.payload
        LearningRequest.insert(
            request_id=p["request_id"],
            method=p["method"],
            fingerprint=p["fingerprint"],
            reply=_json(p["reply"]),
            ts=event.ts,
        ).execute()

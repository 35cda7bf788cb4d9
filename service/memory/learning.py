"""Learning as a service of `Memory`: the owner's grant, the cursors, the extraction and review leases,
adoption as Jiyi's own step, the adopted records, recovery after a restart and shutdown.

Jiyi never calls a model: extractors and reviewers are clients (the socket's
`learning.*` methods, or the owner in the console). Every write is serialized
through the shared write lock and acknowledged after its commit.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Mapping
from typing import cast

import msgspec

from service.memory.parts import Parts
from service.ops import learning as learning_ops
from service.ops.perform import lists, performs
from service.wire.learning import (
    Adopted,
    Adoption,
    AdoptionRefused,
    AdoptionSkipped,
    ExtractionLease,
    ExtractionReceipt,
    LearningIntent,
    LearningIntentDetail,
    LearningRecord,
    LearningStatus,
    RecordRevoked,
    ReviewLease,
    ReviewReceipt,
)
from service.wire.row import all_of, of
from service.wire.row import row as typed_row
from store.core.errors import Forbidden, InvalidInput, JiyiError
from store.desk.projection import DOMAIN as DESK
from store.episodes.lessons import DOMAIN as LESSONS
from store.learning import admission, adoption, extraction, ledger, queue, records, review, scan
from store.learning.grant import Grant
from store.learning.projection import DOMAIN
from store.learning.queue import PromptRecord
from store.learning.states import INTENT_STATES as INTENT_STATES  # the console names the states by these
from store.learning.states import PENDING
from store.learning.states import RECORD_STATES as RECORD_STATES

log = logging.getLogger("jiyi.service.memory")

DRAIN_SECONDS = 5.0
SCAN_EVERY = 60.0  # seconds between the service's own scans
RESTARTED = "the service restarted before an answer was saved"
CANCELLED = "cancelled: the service shut down"


def adoption_of(outcome: adoption.Adoption) -> Adoption:
    """The store's `{"adopted": record}`, `{"refused": why}` or `{"skipped": why}` as an `Adoption`."""
    if "adopted" in outcome:
        return Adopted(record=typed_row(LearningRecord, outcome["adopted"]))
    if "refused" in outcome:
        return AdoptionRefused(reason=str(outcome["refused"]))
    return AdoptionSkipped(reason=str(outcome["skipped"]))


class LearningService:
    """The learning pipeline of one home."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.grant: Grant | None = parts.config.learning
        self._closed = False
        self._stopping = threading.Event()
        self._timer: threading.Thread | None = None
        self.problem: str | None = None
        if self.grant is not None:
            try:
                self.problem = admission.register(parts.store, self.grant)
            except JiyiError as exc:  # a full disk or a home over its budget: the rest of memory still opens
                self.problem = f"grant {self.grant.id} could not be registered: {exc}"
            if self.problem:
                log.warning("learning stopped: %s", self.problem)
        try:
            self.recovered = self.recover()
        except JiyiError as exc:
            log.warning("learning could not recover its open work yet (%s); it tries again on the next start", exc)
            self.recovered = {}

    # -- helpers -------------------------------------------------------------------------

    def _admitting(self) -> Grant:
        if self._closed:
            raise Forbidden("learning is shutting down; no new admissions")
        return admission.require(self.grant)

    def _published(self, *domains: str) -> None:
        for domain in domains:
            self.parts.changed(domain)

    # -- recovery and shutdown -------------------------------------------------------------

    def recover(self) -> dict[str, int]:
        """After a restart: leases with no saved answer end failed (their admissions stay spent);
        approvals found in the ledger but not adopted are adopted now (re-checked as always)."""
        store = self.parts.store
        counts = {"operations_failed": 0, "reviews_failed": 0, "adopted": 0, "refused": 0}
        with self.parts.writes:
            counts["operations_failed"], counts["reviews_failed"] = admission.fail_open_leases(store, RESTARTED)
            for intent_id in adoption.approved_waiting():
                outcome = adoption.adopt(store, self.grant, intent_id)
                counts["adopted" if "adopted" in outcome else "refused"] += 1
        if any(counts.values()):
            log.info("learning recovered after a restart: %s", counts)
            self._published(DOMAIN, DESK, LESSONS)
        return counts

    def shutdown(self, timeout: float = DRAIN_SECONDS) -> dict[str, object]:
        """Close admission, cancel the open leases (persisted as failed), drain within `timeout` seconds.

        Answers what was cancelled, and what stayed unknown when the drain did not finish in time.
        """
        self._closed = True
        self._stopping.set()
        if self._timer is not None:
            self._timer.join(timeout)
            self._timer = None
        if not self.parts.writes.acquire(timeout=timeout):
            with_open = {"unknown": "a write was still running; open leases are ended on the next start"}
            log.warning("learning shutdown: %s", with_open["unknown"])
            return {"drained": False, **with_open}
        try:
            store = self.parts.store
            leases = admission.open_leases()
            if leases["operations"] or leases["reviews"]:
                try:
                    admission.fail_open_leases(store, CANCELLED)
                except JiyiError as exc:
                    log.warning("learning shutdown could not record its cancelled leases (%s)", exc)
                    return {"drained": False, "unknown": leases, "problem": str(exc)}
        finally:
            self.parts.writes.release()
        return {"drained": True, "cancelled": leases}

    # -- reads ---------------------------------------------------------------------------

    @performs(learning_ops.STATUS)
    def status(self) -> LearningStatus:
        """The grant, its fingerprints (configured and stored), quotas used/left, cursors, queue by state."""
        grant = self.grant
        row = admission.grant_row(grant.id) if grant else None
        counts = queue.state_counts(INTENT_STATES)
        stopped = admission.stop_reason(grant)
        if stopped is None and self._closed:
            stopped = "learning is shutting down"
        return typed_row(
            LearningStatus,
            {
                "enabled": grant is not None,
                "state": "stopped" if stopped else "active",
                "stopped_because": stopped,
                "grant": None
                if grant is None
                else {"id": grant.id, "owner": grant.owner, "expires_at": grant.expires_at, **grant.parts()},
                "fingerprints": None if grant is None else grant.fingerprints(),
                "stored_fingerprints": json.loads(row.fingerprints) if row else None,
                "quotas": admission.quotas(grant, row) if grant else None,
                "cursors": {feed: scan.cursor(feed) for feed in scan.FEEDS},
                "log_seq": self.parts.store.last_seq(),
                "queue": counts,
                "pending": sum(counts[s] for s in PENDING),
                "max_pending": grant.max_pending if grant else None,
                "records": queue.active_records(),
                "open_leases": admission.open_leases(),
            },
        )

    @lists(learning_ops.QUEUE)
    def queue(
        self, state: str | None = None, limit: int = 100, offset: int = 0, after: tuple[str, str] | None = None
    ) -> list[LearningIntent]:
        """Intents, newest first, optionally of one state; `after` (the last one's `[updated, intent_id]`)
        pages by key."""
        if state is not None and state not in INTENT_STATES:
            raise InvalidInput(f"state must be one of {', '.join(INTENT_STATES)}")
        return all_of(LearningIntent, queue.intents(state, limit, offset, after))

    @performs(learning_ops.INTENT)
    def intent(self, intent_id: str) -> LearningIntentDetail:
        """One intent with its source as stored now, its candidate, leases and verdicts."""
        return of(LearningIntentDetail, queue.intent_detail(intent_id))

    @lists(learning_ops.FAILURES)
    def failures(self, limit: int = 100) -> list[LearningIntent]:
        """Failure history, newest first: intents that failed, were stopped or refused at adoption."""
        return all_of(LearningIntent, queue.failures(limit))

    @lists(learning_ops.RECORDS_LIST)
    def list_records(
        self, state: str | None = None, limit: int = 200, offset: int = 0, after: tuple[str, str] | None = None
    ) -> list[LearningRecord]:
        """Adopted records with provenance, newest first; `after` (the last one's `[updated, id]`) pages by key."""
        if state is not None and state not in RECORD_STATES:
            raise InvalidInput(f"state must be one of {', '.join(RECORD_STATES)}")
        return all_of(LearningRecord, records.list_records(self.parts.store.db, state, limit, offset, after))

    def prompt_records(self) -> list[PromptRecord]:
        """Active, unexpired adopted facts, lessons and procedures for a system prompt, newest first."""
        return queue.prompt_records()

    # -- the pipeline ----------------------------------------------------------------------

    @performs(learning_ops.SCAN)  # type: ignore[arg-type]  # the answer is the dict declared (a TypedDict to mypy)
    def scan(self) -> scan.ScanAnswer:
        """Advance both cursors now (and expire due records and leases); answers how many intents were added."""
        grant = self._admitting()
        store = self.parts.store
        if store.budget is not None:
            store.budget.check()  # a write method: refused past the home's budget even when nothing is new
        with self.parts.writes:
            expired = records.expire_due(store) + admission.expire_leases(store)
            report = scan.scan(store, grant)
        if expired or report.revoked:
            self._published(DOMAIN, DESK, LESSONS)
        elif report.read:
            self._published(DOMAIN)  # a scan that found nothing changes nothing: pages and caches stay as they are
        return {**report.to_dict(), "cursors": {feed: scan.cursor(feed) for feed in scan.FEEDS}}

    def scan_after_run(self, run_id: str) -> None:
        """A run's outcome was archived: read the objective feed now (fails open, as archiving does)."""
        self.scan_quietly(f"after run {run_id}")

    def scan_quietly(self, why: str) -> None:
        """Scan when learning may admit; a failure is logged, never raised (the caller's work goes on)."""
        if self._closed or admission.stop_reason(self.grant) is not None:
            return
        try:
            self.scan()
        except JiyiError as exc:
            log.warning("learning could not scan %s: %s", why, exc)

    def start_timer(self, every: float = SCAN_EVERY) -> None:
        """Scan every `every` seconds on a thread of its own until `shutdown` (the service calls this)."""
        if self.grant is None or self._timer is not None:
            return
        self._timer = threading.Thread(target=self._tick, args=(every,), name="jiyi-learning-scan", daemon=True)
        self._timer.start()

    def _tick(self, every: float) -> None:
        while not self._stopping.wait(every):
            self.scan_quietly("on its timer")

    @performs(learning_ops.EXTRACT_LEASE)
    def extract_lease(self, request_id: str) -> ExtractionLease:
        """Admit the oldest waiting source (one extraction admission): `{operation_id, snapshot}` or empty."""
        ledger.check_request_id(request_id, self.parts.redactor)
        with self.parts.writes:
            done = self._replayed(
                request_id, "learning.extract.lease", {"grant_id": self.grant.id if self.grant else None}
            )
            if done is not None:
                return cast(ExtractionLease, done)
            grant = self._admitting()
            scan.scan(self.parts.store, grant)
            reply = extraction.lease_source(self.parts.store, grant, request_id, self.parts.redactor)
        self._published(DOMAIN)
        return cast(ExtractionLease, reply)  # the store's `{operation_id, snapshot}` or `{empty}`

    @performs(learning_ops.EXTRACT_SUBMIT)
    def extract_submit(self, operation_id: str, request_id: str, result: object) -> ExtractionReceipt:
        """Answer an extraction lease with one candidate or `{"operation": "noop"}`."""
        ledger.check_request_id(request_id, self.parts.redactor)
        with self.parts.writes:
            reply = extraction.submit(
                self.parts.store, self.grant, operation_id, request_id, result, self.parts.redactor
            )
        self._published(DOMAIN)
        return cast(ExtractionReceipt, reply)  # the store's `{accepted, outcome}` or `{accepted, reason}`

    @performs(learning_ops.REVIEW_LEASE, fixed={"reviewer": "worker"})
    def review_lease(self, request_id: str, *, reviewer: str = "worker") -> ReviewLease:
        """Hand out the oldest candidate with its sources re-read from the store (one review admission)."""
        ledger.check_request_id(request_id, self.parts.redactor)
        with self.parts.writes:
            params = {"grant_id": self.grant.id if self.grant else None, "reviewer": reviewer}
            done = self._replayed(request_id, "learning.review.lease", params)
            if done is not None:
                return cast(ReviewLease, done)
            reply = review.lease_candidate(
                self.parts.store, self._admitting(), request_id, self.parts.redactor, reviewer=reviewer
            )
        self._published(DOMAIN)
        return cast(ReviewLease, reply)  # the store's `{review_id, candidate, sources, …}` or `{empty}`

    @performs(learning_ops.OWNER_REVIEW, drop=("actor",))
    def owner_review(self, intent_id: str, verdict: str, reason: str) -> ReviewReceipt:
        """The owner reviews one candidate in the console instead of a reviewer worker (one review admission).

        The same steps as a worker's: a lease that re-reads the sources, then the verdict, then adoption.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("say why: a verdict needs a reason")
        grant = self._admitting()
        review.check_verdict(verdict, reason)  # before the lease: a refused verdict leaves the candidate waiting
        with self.parts.writes:
            lease = review.lease_candidate(
                self.parts.store,
                grant,
                _owner_request_id(),
                self.parts.redactor,
                reviewer="owner",
                actor="user",
                intent_id=intent_id,
            )
        if lease.get("empty"):
            raise InvalidInput(f"intent {intent_id} has no candidate waiting for review")
        return self.review_submit(str(lease["review_id"]), _owner_request_id(), verdict, reason, actor="user")

    @performs(learning_ops.REVIEW_SUBMIT)
    def review_submit(
        self, review_id: str, request_id: str, verdict: str, reason: str, *, actor: str = "agent"
    ) -> ReviewReceipt:
        """Record a verdict; an approval is then adopted by Jiyi (its own step, after the receipt is committed)."""
        ledger.check_request_id(request_id, self.parts.redactor)
        with self.parts.writes:
            reply = review.submit(
                self.parts.store, self.grant, review_id, request_id, verdict, reason, self.parts.redactor, actor=actor
            )
            outcome: adoption.Adoption | None = None
            if reply.get("accepted") and reply.get("verdict") == "approved":
                outcome = adoption.adopt(self.parts.store, self.grant, str(reply["intent_id"]))
            # Read under the lock: another write between the verdict and this read would answer its state.
            state = queue.intent_state(reply.get("intent_id"))
        self._published(DOMAIN, DESK, LESSONS)
        adopted = adoption_of(outcome) if outcome is not None else None
        answer = typed_row(ReviewReceipt, {**reply, "intent_state": state})
        if isinstance(adopted, Adopted):
            return msgspec.structs.replace(answer, record=adopted.record, adoption=adopted)
        if isinstance(adopted, AdoptionRefused):
            return msgspec.structs.replace(answer, adoption_refused=adopted.reason, adoption=adopted)
        return msgspec.structs.replace(answer, adoption=adopted)

    @performs(learning_ops.RECORD_REVOKE, fixed={"actor": "user"})
    def revoke_record(
        self, record_id: str, request_id: str, reason: str | None = "", *, actor: str = "user"
    ) -> RecordRevoked:
        """Take an adopted record back (its fact deactivated, lesson revoked, draft rejected); the person's."""
        ledger.check_request_id(request_id, self.parts.redactor)
        reason = reason or ""
        params = {"record_id": record_id, "reason": reason}
        store = self.parts.store
        with self.parts.writes, store.atomic():
            done = ledger.recorded(request_id, "learning.record.revoke", params)
            if done is not None:
                return typed_row(RecordRevoked, done)
            row = queue.record_row(record_id)
            if row.state != "active":
                reply = {"revoked": False, "reason": f"record {record_id} is already {row.state}"}
            else:
                why = self.parts.redactor.redact(reason.strip()) or "revoked by the owner"
                records.change(store, row, "revoked", why, actor=actor)
                reply = {"revoked": True, "record_id": record_id}
            ledger.record(store, request_id, "learning.record.revoke", params, reply)
        self._published(DOMAIN, DESK, LESSONS)
        return typed_row(RecordRevoked, reply)

    def edit_record(self, record_id: str, content: str) -> LearningRecord:
        """The owner rewrites an adopted record: it becomes theirs (unmanaged; learning no longer replaces it)."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput("content must be non-empty text")
        clean = " ".join(content.split())
        if self.parts.redactor.is_sensitive(clean) or self.parts.redactor.is_sensitive(content):
            raise InvalidInput("content holds sensitive text; records never store it")
        store = self.parts.store
        with self.parts.writes, store.atomic():
            row = queue.record_row(record_id)
            if row.state != "active":
                raise InvalidInput(f"record {record_id} is {row.state}; only an active record can be edited")
            records.edit(store, row, clean, actor="user")
            edited = records.record_row(queue.record_row(record_id))
        self._published(DOMAIN, DESK, LESSONS)
        return of(LearningRecord, edited)

    def _replayed(self, request_id: str, method: str, params: Mapping[str, object]) -> dict[str, object] | None:
        """A lease answered before is answered again even when admission has closed since (a lost reply)."""
        return ledger.recorded(request_id, method, params)


def _owner_request_id() -> str:
    """A request id for the owner's own review: letters that never read as a token (a hex id sometimes
    does, and sensitive-looking ids are refused)."""
    return "owner-" + "".join(secrets.choice("bdfghjkmnqrstwxz") for _ in range(20))

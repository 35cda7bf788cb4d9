"""The reference learning worker: an extractor or a reviewer that talks to any OpenAI-compatible chat endpoint.

Zero tools, strict JSON: the model gets the lease (a snapshot, or a candidate
with its sources) and must answer one JSON object; anything else is not sent
to Jiyi (the lease then expires and its admission stays spent, as the grant
says). Every request to Jiyi carries a request id kept until its reply
arrives, so a lost reply is recovered by sending the same request again.
A model call that times out, cannot connect, or answers 5xx, 408 or 429 is
tried again with a jittered backoff (after the seconds a `Retry-After` asks
for) for as long as the lease's deadline leaves time to submit; only then
does the worker give the lease up.
Jiyi itself never calls a model: this worker is a client of its socket.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict

from service.client import JiyiClient, Json, JsonObject, Reply

log = logging.getLogger("jiyi.service.worker")

ROLES = ("extract", "review")
RESENDS = 3  # how often a request whose reply was lost is sent again, with the same request id
BACKOFF = 0.5  # seconds before the model is asked again after a passing failure, doubled each time (jittered)
MAX_BACKOFF = 8.0
SUBMIT_MARGIN = 2.0  # seconds kept back before a lease's deadline for submitting the answer
RETRIED_STATUSES = frozenset({408, 429})  # below 500, the statuses that say "later" rather than "no"

EXTRACT_PROMPT = """You extract durable memory for the owner of a personal assistant.
You get one finished source (the raw turns of a conversation, or a task's or run's outcome), the owner's
learning policy, and the records already learned that you may replace or remove.
Answer with exactly one JSON object and nothing else:
- {"operation": "noop"} when nothing in the source is worth remembering under the policy, or
- {"operation": "add" | "replace" | "remove", "kind": one of KINDS, "content": one short sentence,
   "quotations": [exact substrings of the source], "target": {"id", "version"} only for replace/remove}.
Facts (fact.profile, fact.project, fact.environment) and skill drafts come only from the owner's own words:
every quotation must be copied verbatim from a turn whose role is "user".
Lessons and procedures come only from a source with an objective (a verifier's verdict or a task result),
quoting the source verbatim. Never include secrets, numbers, addresses or anything the policy forbids.
Do not set any other field."""

REVIEW_PROMPT = """You independently review one memory candidate for the owner of a personal assistant.
You get the candidate, the original sources as the memory service holds them, and the owner's policy.
Approve only if the candidate is true to the sources, quotes them exactly, follows the policy and is worth
keeping. Answer with exactly one JSON object and nothing else:
{"verdict": "approved" | "rejected", "reason": "one sentence"}."""


class WorkerError(Exception):
    """The endpoint or the service could not be used."""


class PassingFailure(WorkerError):
    """A model call that may succeed if tried again: a timeout, no connection, HTTP 5xx, 408 or 429.
    `after` is the seconds the endpoint asked to wait (`Retry-After`), when it said."""

    def __init__(self, message: str, after: float | None = None) -> None:
        super().__init__(message)
        self.after = after


@dataclass
class ChatEndpoint:
    """An OpenAI-compatible `/chat/completions` endpoint."""

    url: str
    model: str
    max_tokens: int
    timeout: float
    api_key: str = ""

    @property
    def completions(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def ask(self, system: str, user: str, *, until: float | None = None) -> dict[str, object]:
        """The model's answer as one JSON object; `WorkerError` when it is not exactly that.

        A passing failure (`PassingFailure`) is tried again while `until` (a `time.monotonic()` instant,
        the lease's deadline less the time to submit) leaves room for another call; each call's timeout is
        cut to what is left. Without `until` the model is asked once.
        """
        attempt = 0
        while True:
            timeout = self.timeout if until is None else min(self.timeout, until - time.monotonic())
            if timeout <= 0:
                raise WorkerError(f"the chat endpoint {self.completions}: no time left before the lease's deadline")
            try:
                return self._ask_once(system, user, timeout)
            except PassingFailure as exc:
                attempt += 1
                pause = exc.after if exc.after is not None else min(MAX_BACKOFF, BACKOFF * 2 ** (attempt - 1))
                pause *= 1.0 + 0.5 * random.random()  # spread: workers refused together do not return together
                if until is None or time.monotonic() + pause >= until:
                    raise WorkerError(f"{exc} (tried {attempt} times before the lease's deadline)") from None
                log.info("%s; asking again in %.1f s", exc, pause)
                time.sleep(pause)

    def _ask_once(self, system: str, user: str, timeout: float) -> dict[str, object]:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.completions, json.dumps(body).encode(), headers, method="POST")
        where = f"the chat endpoint {self.completions}"
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                reply = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if exc.code >= 500 or exc.code in RETRIED_STATUSES:
                raise PassingFailure(f"{where} answered HTTP {exc.code}", _retry_after(exc)) from None
            raise WorkerError(f"{where} failed: {exc}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                raise PassingFailure(f"{where} gave no answer within {timeout:.1f} s") from None
            raise PassingFailure(f"{where} cannot be reached: {reason}") from None
        except ValueError as exc:
            raise WorkerError(f"{where} failed: {exc}") from None
        try:
            text = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise WorkerError("the chat endpoint's answer has no choices[0].message.content") from None
        try:
            answer = json.loads(text)
        except (TypeError, ValueError):
            raise WorkerError(f"the model did not answer strict JSON: {str(text)[:120]!r}") from None
        if not isinstance(answer, dict):
            raise WorkerError("the model's JSON is not an object")
        return answer


class TallyCounts(TypedDict):
    """How many items a worker leased, submitted, had refused and failed on."""

    leased: int
    submitted: int
    refused: int
    failed: int


@dataclass
class Tally:
    leased: int = 0
    submitted: int = 0
    refused: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> TallyCounts:
        return {"leased": self.leased, "submitted": self.submitted, "refused": self.refused, "failed": self.failed}


class Worker:
    """Leases work of one role from Jiyi, asks the model, submits the answer."""

    def __init__(self, client: JiyiClient, endpoint: ChatEndpoint, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        self.client, self.endpoint, self.role = client, endpoint, role
        self.tally = Tally()

    def send(self, method: str, params: Mapping[str, object]) -> Reply:
        """One request, sent again with the same request id while its reply is lost."""
        for _ in range(RESENDS + 1):
            reply = self.client.request(method, params)
            if not reply.get("degraded"):
                return reply
            time.sleep(0.2)
        raise WorkerError(
            f"no answer from Jiyi for {method}: {reply['error']['message'] if 'error' in reply else None}"
        )

    def step(self) -> bool:
        """Lease one item and handle it; False when nothing waits."""
        prefix = "learning.extract" if self.role == "extract" else "learning.review"
        lease = self.send(f"{prefix}.lease", {"request_id": new_id()})
        if not lease.get("ok"):
            raise WorkerError(f"{prefix}.lease refused: {lease['error']['message']}")
        work = _object(lease.get("result"))
        if work.get("empty"):
            return False
        self.tally.leased += 1
        handle: Callable[[JsonObject], None] = self._extract if self.role == "extract" else self._review
        try:
            handle(work)
        except WorkerError as exc:
            self.tally.failed += 1
            self.tally.notes.append(str(exc))
            log.warning("%s", exc)
        return True

    def _extract(self, work: JsonObject) -> None:
        snapshot = _object(work["snapshot"])
        prompt = EXTRACT_PROMPT.replace("KINDS", ", ".join(str(kind) for kind in _list(snapshot["kinds"])))
        until = _until(snapshot.get("deadline"))
        result = self.endpoint.ask(prompt, json.dumps(snapshot, ensure_ascii=False), until=until)
        params = {"operation_id": work["operation_id"], "request_id": new_id(), "result": result}
        self._settle(self.send("learning.extract.submit", params))

    def _review(self, work: JsonObject) -> None:
        shown = {k: work[k] for k in ("candidate", "sources", "policy", "feed")}
        answer = self.endpoint.ask(
            REVIEW_PROMPT, json.dumps(shown, ensure_ascii=False), until=_until(work.get("deadline"))
        )
        verdict, reason = answer.get("verdict"), answer.get("reason")
        if verdict not in ("approved", "rejected") or not isinstance(reason, str) or not reason.strip():
            raise WorkerError(f"the model's review is not {{verdict, reason}}: {json.dumps(answer)[:120]}")
        params = {"review_id": work["review_id"], "request_id": new_id(), "verdict": verdict, "reason": reason}
        self._settle(self.send("learning.review.submit", params))

    def _settle(self, reply: Reply) -> None:
        if not reply.get("ok"):
            self.tally.refused += 1
            self.tally.notes.append(f"refused ({reply['error']['code']}): {reply['error']['message']}")
        elif (receipt := _object(reply.get("result"))).get("accepted") is False:
            self.tally.refused += 1
            self.tally.notes.append(f"too late: {receipt['reason']}")
        else:
            self.tally.submitted += 1

    def run(self, *, once: bool, poll: float, limit: int | None = None) -> Tally:
        """Work until nothing waits (`once`), or forever polling every `poll` seconds; at most `limit` items."""
        while limit is None or self.tally.leased < limit:
            if not self.step():
                if once:
                    break
                time.sleep(poll)
        return self.tally


def _object(value: Json) -> JsonObject:
    """`value`, a JSON object Jiyi sent; `WorkerError` when it is something else."""
    if not isinstance(value, dict):
        raise WorkerError(f"Jiyi answered {type(value).__name__} where an object belongs")
    return value


def _list(value: Json) -> list[Json]:
    """`value`, a JSON list Jiyi sent; `WorkerError` when it is something else."""
    if not isinstance(value, list):
        raise WorkerError(f"Jiyi answered {type(value).__name__} where a list belongs")
    return value


def _until(deadline: object) -> float | None:
    """The lease's deadline (ISO 8601, as Jiyi sends it) as a `time.monotonic()` instant, less the time
    kept for submitting; None when the lease names none (the model is then asked once)."""
    if not isinstance(deadline, str):
        return None
    try:
        when = datetime.fromisoformat(deadline)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return time.monotonic() + (when.timestamp() - time.time()) - SUBMIT_MARGIN


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = (exc.headers.get("Retry-After") or "").strip() if exc.headers else ""
    return float(value) if value.isdigit() else None


def new_id() -> str:
    # Letters only, without vowels, c or v: a hex id sometimes reads as a token (about 1 in 200) and
    # Jiyi refuses ids that look sensitive; none of 100,000 of these did.
    return "req-" + "".join(secrets.choice(ID_LETTERS) for _ in range(20))


ID_LETTERS = "bdfghjkmnqrstwxz"

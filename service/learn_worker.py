"""The reference learning worker: an extractor or a reviewer that talks to any OpenAI-compatible chat endpoint.

Zero tools, strict JSON: the model gets the lease (a snapshot, or a candidate
with its sources) and must answer one JSON object; anything else is not sent
to Jiyi (the lease then expires and its admission stays spent, as the grant
says). Every request to Jiyi carries a request id kept until its reply
arrives, so a lost reply is recovered by sending the same request again.
Jiyi itself never calls a model: this worker is a client of its socket.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.client import JiyiClient

log = logging.getLogger("jiyi.service.worker")

ROLES = ("extract", "review")
RESENDS = 3  # how often a request whose reply was lost is sent again, with the same request id

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

    def ask(self, system: str, user: str) -> dict[str, Any]:
        """The model's answer as one JSON object; `WorkerError` when it is not exactly that."""
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
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                reply = json.loads(response.read().decode("utf-8"))
        except (urllib.error.URLError, TimeoutError, ValueError, OSError) as exc:
            raise WorkerError(f"the chat endpoint {self.completions} failed: {exc}") from None
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


@dataclass
class Tally:
    leased: int = 0
    submitted: int = 0
    refused: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"leased": self.leased, "submitted": self.submitted, "refused": self.refused, "failed": self.failed}


class Worker:
    """Leases work of one role from Jiyi, asks the model, submits the answer."""

    def __init__(self, client: JiyiClient, endpoint: ChatEndpoint, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        self.client, self.endpoint, self.role = client, endpoint, role
        self.tally = Tally()

    def send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request, sent again with the same request id while its reply is lost."""
        for _ in range(RESENDS + 1):
            reply = self.client.request(method, params)
            if not reply.get("degraded"):
                return reply
            time.sleep(0.2)
        raise WorkerError(f"no answer from Jiyi for {method}: {reply.get('error', {}).get('message')}")

    def step(self) -> bool:
        """Lease one item and handle it; False when nothing waits."""
        prefix = "learning.extract" if self.role == "extract" else "learning.review"
        lease = self.send(f"{prefix}.lease", {"request_id": new_id()})
        if not lease.get("ok"):
            raise WorkerError(f"{prefix}.lease refused: {lease['error']['message']}")
        work = lease["result"]
        if work.get("empty"):
            return False
        self.tally.leased += 1
        handle: Callable[[dict[str, Any]], None] = self._extract if self.role == "extract" else self._review
        try:
            handle(work)
        except WorkerError as exc:
            self.tally.failed += 1
            self.tally.notes.append(str(exc))
            log.warning("%s", exc)
        return True

    def _extract(self, work: dict[str, Any]) -> None:
        snapshot = work["snapshot"]
        prompt = EXTRACT_PROMPT.replace("KINDS", ", ".join(snapshot["kinds"]))
        result = self.endpoint.ask(prompt, json.dumps(snapshot, ensure_ascii=False))
        params = {"operation_id": work["operation_id"], "request_id": new_id(), "result": result}
        self._settle(self.send("learning.extract.submit", params))

    def _review(self, work: dict[str, Any]) -> None:
        shown = {k: work[k] for k in ("candidate", "sources", "policy", "feed")}
        answer = self.endpoint.ask(REVIEW_PROMPT, json.dumps(shown, ensure_ascii=False))
        verdict, reason = answer.get("verdict"), answer.get("reason")
        if verdict not in ("approved", "rejected") or not isinstance(reason, str) or not reason.strip():
            raise WorkerError(f"the model's review is not {{verdict, reason}}: {json.dumps(answer)[:120]}")
        params = {"review_id": work["review_id"], "request_id": new_id(), "verdict": verdict, "reason": reason}
        self._settle(self.send("learning.review.submit", params))

    def _settle(self, reply: dict[str, Any]) -> None:
        if not reply.get("ok"):
            self.tally.refused += 1
            self.tally.notes.append(f"refused ({reply['error']['code']}): {reply['error']['message']}")
        elif reply["result"].get("accepted") is False:
            self.tally.refused += 1
            self.tally.notes.append(f"too late: {reply['result']['reason']}")
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


def new_id() -> str:
    # Letters only, without vowels, c or v: a hex id sometimes reads as a token (about 1 in 200) and
    # Jiyi refuses ids that look sensitive; none of 100,000 of these did.
    return "req-" + "".join(secrets.choice(ID_LETTERS) for _ in range(20))


ID_LETTERS = "bdfghjkmnqrstwxz"

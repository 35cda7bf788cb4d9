"""The secret corpus: every format Jiyi must filter, through every write method of the socket, then the home's bytes.

The write methods come from the method registry (each declared `writes=True`);
a method without placements here fails `test_every_write_method_is_in_the_corpus`,
so a new one is covered as soon as it is declared. Each placement is the
smallest valid request with one free-text field (or a name, key, package or
number) holding the secret; the MCP tools that write (`remember_interaction`,
`complete_task`, `save_bundle_document`) have placements of their own, their
arguments turned into the request `jiyi mcp` sends. The requests run in this
process through the real dispatcher over a real `Memory`, as an agent's; an
operation only the person may make is made again as the person (the console's
context), so that it is still written and searched. A text field takes every
format in one request, a blank line between two (each is redacted as it is
alone: `test_a_batch_of_formats_is_redacted_as_each_alone`), in as many
requests as the field's length limit asks; a field of one word (a name, an id)
takes them one at a time, and what a refused request was given (a lease, a
run) goes to the next. On PostgreSQL the fields take a sample, the formats in
turn. Then every format comes in once more through the imports (`import desk`,
`import mcp-memory`, `import mem0`), each text in every field a record of
theirs has, on both back ends.

Afterwards every file of the home (the database and its WAL, `bundles/`,
`vectors/`: Chroma's SQLite and its binary segments) and every log record is
searched, case-insensitively, for the secrets, and so is every text the vector
index was given to embed. Episode records keep theirs verbatim (DESIGN.md, The
store): those secrets, of their own family, may appear in the episode tables
and the `experience` log only, and must appear there.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from recall import embedders
from recall.embedders import HashEmbedder
from service.config import load_config
from service.mcp.tools import BY_NAME
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from service.rpc.methods import REGISTRY
from service.rpc.protocol import Request, encode
from service.wire.learning import Adopted
from store.core.redaction.redactor import Redactor, default_words
from tests.secret_formats import FORMATS, Format, Secret
from tests.secret_sources import desk_export, mcp_memory, mem0
from tests.service.learning_setup import write_grant

FILED, EPISODE = 0, 1  # the two families of tests/secret_formats.py
EPISODE_TABLES = {"episode", "episode_app", "tool_event", "episode_aggregate"}
EPISODE_RECORDS = ("episode_outcome", "experience_event", "episode_archived")
EXPECTED_REFUSALS = {"forbidden", "invalid_params", "not_found", "conflict"}
_SEGMENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
BATCHED = ("text", "json")  # the shapes whose field takes every format at once (`_place`)
GAP = "\n\n"  # between two formats' texts in one field: each is read as it is alone (`test_a_batch_...`)
T = TypeVar("T")


def _spare(make: Callable[[Setup], T]) -> Callable[[Setup], T]:
    """What `make` makes, or the one a refused request was given: a refusal changes nothing, so the next
    request is given it again instead of a fresh one per format (`Setup.settle`; the placement's harmless
    request at the end proves it was still fresh)."""

    @functools.wraps(make)
    def fresh(setup: Setup) -> T:
        if setup.making:  # made for another: that one is what the request is given
            return make(setup)
        kind = make.__name__
        if kind in setup.spares:
            value: T = setup.spares.pop(kind)
        else:
            setup.making = True
            try:
                value = make(setup)
            finally:
                setup.making = False
        setup.given.append((kind, value))
        return value

    return fresh


class Setup:
    """What a placement needs to exist first (made through `Memory` with harmless text), and fresh ids."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._count = itertools.count(1)
        self.runs: list[str] = []
        self.making = False
        self.given: list[tuple[str, Any]] = []  # what the request being built was given (`_spare`)
        self.spares: dict[str, Any] = {}  # what a refused request left unused, by kind

    def settle(self, used: bool) -> None:
        """The request built last was answered: what it was given was `used`, or is spare for the next."""
        if not used:
            self.spares.update(self.given)
        self.given.clear()

    def job(self, kind: str) -> dict[str, str]:
        """`job.start`'s params, once the job started before has ended (a job runs on after its answer)."""
        deadline = time.monotonic() + 60
        while self.memory.jobs.running() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        return {"kind": kind}

    def uid(self, prefix: str) -> str:
        return f"{prefix}{next(self._count)}"

    def interaction(self, user_text: str = "以后周报用表格") -> str:
        interaction_id = self.uid("i")
        self.memory.desk.remember_interaction(interaction_id, user_text=user_text, assistant_text="好的")
        return interaction_id

    @_spare
    def draft_skill(self) -> str:
        source = self.interaction()
        name = self.uid("周报格式")
        skill = {"name": name, "text": "用表格", "source_interaction_id": source, "quote": "周报用表格"}
        done = self.memory.maintenance.maintenance_commit(
            {"topics": [{"title": "周报", "interaction_ids": [source]}], "skills": [skill]}
        )
        return str(done["skills"][0]["skill_id"])

    @_spare
    def lesson(self) -> str:
        return str(self.memory.lessons.add_lesson(self.uid("先解锁屏幕 "), []).lesson_id)

    @_spare
    def change(self) -> int:
        return self.memory.appkb.learn_alias(self.uid("绿泡泡"), "com.tencent.mm").result.txn

    def run_id(self) -> str:
        """A run id the test finishes at the end (an unfinished run leaves no episode)."""
        run_id = self.uid("run")
        self.runs.append(run_id)
        return run_id

    @_spare
    def started_run(self) -> str:
        run_id = self.run_id()
        self.memory.runs.run_start(run_id, "d1", goal="打开淘宝看看订单", installed=[("com.taobao.taobao", "淘宝")])
        return run_id

    @_spare
    def episode(self) -> str:
        run_id = self.uid("ep")
        self.memory.runs.run_start(run_id, "d1", goal="查天气")
        self.memory.runs.run_finish(run_id, {"success": True, "steps": 3, "apps": ["com.tencent.mm"]})
        return run_id

    @_spare
    def schedule(self) -> str:
        schedule_id = self.uid("weekly")
        self.memory.desk.complete_task(
            self.uid("t"), title="周报", status="succeeded", schedule_id=schedule_id, run_id=self.uid("r")
        )
        return schedule_id

    # -- learning: the grant of `corpus_memory` admits everything the placements spend --------------------

    def leased(self, user_text: str = "") -> tuple[str, str]:
        """An extraction lease on a fresh interaction whose owner said `user_text`: (operation id, quotation)."""
        return self._leased(user_text) if user_text else self.lease()

    @_spare
    def lease(self) -> tuple[str, str]:
        return self._leased("")

    def _leased(self, user_text: str) -> tuple[str, str]:
        """An extraction lease on a fresh interaction whose owner said `user_text` (or a fresh quotation).

        The sources waiting before it (the earlier placements' interactions, task cards and verified runs)
        are leased first and answered no-op, so their snapshots are kept too and searched like the rest.
        """
        quote = user_text or self.uid("以后周报都用表格 ")
        source = self.interaction(quote)
        for _ in range(5000):
            lease = self.memory.learning.extract_lease(self.uid("lease-"))
            assert "operation_id" in lease, ("the fresh interaction was not queued", lease)
            if lease["snapshot"]["source"]["id"] == source:
                return str(lease["operation_id"]), quote
            self.memory.learning.extract_submit(lease["operation_id"], self.uid("noop-"), {"operation": "noop"})
        raise AssertionError("the extraction queue did not drain")

    def operation(self) -> str:
        return self.leased()[0]

    @_spare
    def review(self) -> str:
        """A review lease on a fresh fact candidate (candidates waiting before it are rejected)."""
        operation_id, quote = self.leased()
        result = {"operation": "add", "kind": "fact.profile", "content": f"用户说{quote}", "quotations": [quote]}
        assert self.memory.learning.extract_submit(operation_id, self.uid("cand-"), result)["accepted"]
        for _ in range(5000):
            lease = self.memory.learning.review_lease(self.uid("review-"))
            assert "review_id" in lease, ("the fresh candidate is not waiting for review", lease)
            if lease["candidate"]["content"] == result["content"]:
                return str(lease["review_id"])
            self.memory.learning.review_submit(lease["review_id"], self.uid("reject-"), "rejected", "不是这一条")
        raise AssertionError("the review queue did not drain")

    @_spare
    def record(self) -> str:
        """An adopted record (a fact) to revoke."""
        answer = self.memory.learning.review_submit(self.review(), self.uid("approve-"), "approved", "用户原话")
        assert isinstance(answer.adoption, Adopted), answer
        return answer.adoption.record.id

    @_spare
    def candidate(self) -> str:
        """A fresh fact candidate waiting for review: its intent id, for the owner's own review."""
        operation_id, quote = self.leased()
        result = {"operation": "add", "kind": "fact.profile", "content": f"用户说{quote}", "quotations": [quote]}
        assert self.memory.learning.extract_submit(operation_id, self.uid("cand-"), result)["accepted"]
        newest = self.memory.learning.queue(limit=1)[0]
        candidate = self.memory.learning.intent(newest.intent_id).candidate
        assert candidate is not None and candidate.content == result["content"]
        return str(newest.intent_id)

    @_spare
    def fact(self) -> str:
        """An active desk fact (adopted by learning) for a person to deactivate."""
        self.record()
        return str(self.memory.facts.list_facts(status="active", limit=1)[0].fact_id)


Build = Callable[[Setup, Any], dict[str, Any]]


@dataclass(frozen=True)
class Placement:
    """One field of one write method, and how a value goes into it.

    `shape`: `text` (a sentence around the secret), `name` (the secret as one word: names, ids, keys),
    `package` (a package name segment), `number` (an integer, when the secret is digits), `json` (a document).
    """

    method: str
    field: str
    build: Build
    shape: str = "text"
    family: int = FILED
    harmless: str = "ok"  # how the request is answered with a harmless value in the field
    tool: str | None = None  # the MCP tool whose arguments `build` makes (None: the socket method's params)

    @property
    def takes_value(self) -> bool:
        """Whether a value goes into the request: a placement without a field (`-`) builds the same request
        whatever the secret, so it is made once (with its harmless value) after the placements before it."""
        return self.field != "-"

    def value(self, secret: Secret | None, setup: Setup) -> Any:
        """The value for this field: the secret in this shape, a harmless one without a secret (`None`),
        or None when the secret cannot take this shape."""
        if secret is None:
            harmless = {"text": "备注 普通的一句话 结束", "package": "com.example.plain", "number": 42}
            return setup.uid("plain") if self.shape == "name" else harmless.get(self.shape, '{"note": "普通"}')
        if self.shape == "text":
            return f"备注 {secret.text} 结束"
        if self.shape == "json":
            return json.dumps({"note": secret.text, "count": 3}, ensure_ascii=False, indent=2)
        word = secret.compact
        if self.shape == "name":
            return word if len(word) <= 120 and "/" not in word and "\n" not in word else None
        if self.shape == "package":
            segment = word if _SEGMENT.fullmatch(word) else f"s{word}"
            return f"com.example.{segment}" if _SEGMENT.fullmatch(segment) else None
        digits = secret.needles[0]
        return int(digits) if digits.isdigit() and secret.alone else None


def _commit(topic: dict[str, Any] | None = None, **extra: Any) -> Build:
    """A maintenance commit filing one fresh interaction, with `topic` fields and `extra` request fields."""

    def build(s: Setup, v: Any) -> dict[str, Any]:
        source = s.interaction()
        fields = {key: (v if value is ... else value) for key, value in (topic or {}).items()}
        request = {"topics": [{"title": "周报", "interaction_ids": [source], **fields}]}
        request.update({key: (v if value is ... else value) for key, value in extra.items()})
        return request

    return build


def _fact(field: str) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        quote = v if field == "quote" else "项目叫 Jiyi"
        source = s.interaction(f"我们的{quote}，用 SQLite")
        fact: dict[str, Any] = {"scope": "project", "project": "jiyi", "content": "项目用 SQLite"}
        if field != "quote":
            fact[field] = v
        fact["evidence"] = [{"interaction_id": source, "quote": quote}]
        return {"topics": [{"title": "项目", "interaction_ids": [source]}], "facts": [fact]}

    return build


def _skill(field: str) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        quote = v if field == "quote" else "周报用表格"
        source = s.interaction(f"以后{quote}吧")
        skill = {"name": s.uid("技能"), "text": "用表格", "source_interaction_id": source, "quote": quote, field: v}
        return {"topics": [{"title": "技能", "interaction_ids": [source]}], "skills": [skill]}

    return build


def _outcome(field: str) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        outcome = {"success": True, "steps": 5, "apps": ["com.taobao.taobao"], "verifier": "pass", field: v}
        return {"run_id": s.started_run(), "outcome": outcome}

    return build


def _event(**fields: Any) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        event = {"run_id": s.started_run(), "step": 1, "tool": "type_text", "result_class": "ok"}
        params: dict[str, Any] = {"event": event}
        for key, value in fields.items():
            target = event if key in ("intent", "note", "tool", "app_package", "result_class") else params
            target[key] = v if value is ... else value
        return params

    return build


def _task(**fields: Any) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        params = {"task_id": s.uid("t"), "title": "周报", "status": "succeeded", "schedule_id": None, "run_id": None}
        params.update({key: (v if value is ... else value) for key, value in fields.items()})
        if params["schedule_id"] is not None and params["run_id"] is None:
            params["run_id"] = s.uid("r")
        return {k: value for k, value in params.items() if value is not None}

    return build


def _candidate(field: str) -> Build:
    """An extraction answered with one fact candidate whose `field` holds the value (`quotations`: the owner
    said the value, so a harmless one is verbatim in the source and a secret is not, the desk redacted it)."""

    def build(s: Setup, v: Any) -> dict[str, Any]:
        operation_id, quote = s.leased(f"以后{v}" if field == "quotations" else "")
        result: dict[str, Any] = {"operation": "add", "kind": "fact.profile", "content": "用户的周报用表格"}
        result["quotations"] = [v] if field == "quotations" else [quote]
        if field == "content":
            result["content"] = v
        elif field == "kind":
            result["kind"] = v
        elif field == "target.id":
            result.update(operation="replace", target={"id": v, "version": 1})
        return {"operation_id": operation_id, "request_id": s.uid("req-"), "result": result}

    return build


def _verdict(**fields: Any) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        params = {"review_id": s.review(), "request_id": s.uid("req-"), "verdict": "approved", "reason": "用户原话"}
        params.update({key: (v if value is ... else value) for key, value in fields.items()})
        return params

    return build


def _revoke(**fields: Any) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        params = {"record_id": s.record(), "request_id": s.uid("req-"), "reason": "不再适用"}
        params.update({key: (v if value is ... else value) for key, value in fields.items()})
        return params

    return build


def _document(path: str = "notes.md") -> Build:
    return lambda s, v: {
        "bundle_id": f"project/{s.uid('p')}",
        "path": path,
        "content": v,
        "expected_revision": 0,
    }


def _mcp(tool: str, field: str, build: Build, shape: str = "text", harmless: str = "ok") -> Placement:
    """A placement of an MCP tool's argument: `build` makes the tool's arguments."""
    return Placement(BY_NAME[tool].operation.name, f"mcp {tool}.{field}", build, shape, harmless=harmless, tool=tool)


def _turn(**fields: Any) -> Build:
    def build(s: Setup, v: Any) -> dict[str, Any]:
        arguments = {"user_text": "好", "assistant_text": "好的"}
        arguments.update({key: (v if value is ... else value) for key, value in fields.items()})
        return arguments

    return build


V = ...  # where the value goes
MCP_PLACEMENTS: tuple[Placement, ...] = (
    _mcp("remember_interaction", "user_text", _turn(user_text=V)),
    _mcp("remember_interaction", "assistant_text", _turn(assistant_text=V)),
    _mcp("remember_interaction", "interaction_id", _turn(interaction_id=V), "name"),
    _mcp("remember_interaction", "source", _turn(source=V)),
    _mcp("remember_interaction", "task_id", _turn(task_id=V), "name"),
    _mcp("complete_task", "task_id", _task(task_id=V), "name"),
    _mcp("complete_task", "title", _task(title=V)),
    _mcp("complete_task", "result", _task(result=V)),
    _mcp("complete_task", "schedule_id", _task(schedule_id=V), "name"),
    _mcp("complete_task", "run_id", _task(schedule_id="weekly", run_id=V), "name"),
    _mcp("save_bundle_document", "content", _document()),
    _mcp("save_bundle_document", "content (state.json)", _document("state.json"), "json"),
    _mcp(
        "save_bundle_document",
        "bundle_id",
        lambda s, v: {"bundle_id": f"project/{v}", "path": "notes.md", "content": "x", "expected_revision": 0},
        "name",
    ),
    _mcp(
        "save_bundle_document",
        "path",
        lambda s, v: {
            "bundle_id": f"project/{s.uid('p')}",
            "path": f"runs/{v}/summary.md",
            "content": "x",
            "expected_revision": 0,
        },
        "name",
    ),
)
# The rebuilds come first, while the home is small: the test rebuilds the views and the vectors from everything
# at its end. The learning placements come before the desk's: every source waiting before a fresh one is leased
# and answered first (`Setup.leased`), and the desk's turns and cards would be a few thousand of them (the
# learning placements' own sources hold the secrets whose snapshots are searched).
PLACEMENTS: tuple[Placement, ...] = (
    Placement("rebuild", "-", lambda s, v: {}),
    Placement("vectors.rebuild", "-", lambda s, v: {}),
    Placement("job.start", "-", lambda s, v: s.job("vectors.rebuild")),
    Placement("app.alias.learn", "name", lambda s, v: {"name": v, "package": "com.tencent.mm"}, "name"),
    Placement("app.alias.learn", "assignment", lambda s, v: {"assignment": f"{v}=com.tencent.mm"}, "name"),
    Placement("app.alias.forget", "name", lambda s, v: {"name": v}, "name"),
    Placement("app.alias.undo", "-", lambda s, v: {"change": s.change()}),
    Placement(
        "app.inventory.sync", "label", lambda s, v: {"device": "d1", "apps": [{"package": "com.a.b", "label": v}]}
    ),
    Placement("app.inventory.sync", "label (word)", lambda s, v: {"device": "d1", "apps": [["com.a.c", v]]}, "name"),
    Placement("run.start", "goal", lambda s, v: {"run_id": s.run_id(), "device": "d1", "goal": v}, family=EPISODE),
    Placement(
        "run.start",
        "installed.label",
        lambda s, v: {"run_id": s.run_id(), "device": "d1", "installed": [{"package": "com.a.d", "label": v}]},
    ),
    Placement("run.event", "event.intent", _event(intent=V), family=EPISODE),
    Placement("run.event", "event.note", _event(note=V), family=EPISODE),
    Placement(
        "run.event",
        "launch_name",
        _event(tool="launch_app", app_package="com.tencent.mm", launch_name=V),
        "name",
    ),
    Placement(
        "run.event",
        "failure_message",
        _event(tool="launch_app", result_class="error", launch_name="微信", failure_message=V),
    ),
    Placement("run.finish", "outcome.goal_text", _outcome("goal_text"), family=EPISODE),
    Placement("run.finish", "outcome.reason", _outcome("reason"), family=EPISODE),
    Placement("run.finish", "outcome.takeover", _outcome("takeover"), family=EPISODE),
    Placement("run.finish", "outcome.deliverable_path", _outcome("deliverable_path"), family=EPISODE),
    Placement("episode.revoke", "reason", lambda s, v: {"run_id": s.episode(), "reason": v}),
    Placement("episode.restore", "-", lambda s, v: {"run_id": s.episode()}),
    Placement("lesson.add", "text", lambda s, v: {"text": v}),
    Placement("lesson.add", "apps", lambda s, v: {"text": "先解锁", "apps": [v]}, "package"),
    Placement("lesson.revoke", "-", lambda s, v: {"lesson_id": s.lesson()}),
    Placement("learning.scan", "-", lambda s, v: {}),
    Placement("learning.extract.lease", "request_id", lambda s, v: {"request_id": v}, "name"),
    Placement(
        "learning.extract.submit",
        "request_id",
        lambda s, v: {"operation_id": s.operation(), "request_id": v, "result": {"operation": "noop"}},
        "name",
    ),
    Placement(
        "learning.extract.submit",
        "operation_id",
        lambda s, v: {"operation_id": v, "request_id": s.uid("req-"), "result": {"operation": "noop"}},
        "name",
        harmless="not_found",
    ),
    Placement("learning.extract.submit", "result.content", _candidate("content")),
    Placement("learning.extract.submit", "result.quotations", _candidate("quotations")),
    Placement("learning.extract.submit", "result.kind", _candidate("kind"), "name", harmless="invalid_params"),
    Placement(
        "learning.extract.submit", "result.target.id", _candidate("target.id"), "name", harmless="invalid_params"
    ),
    Placement("learning.review.lease", "request_id", lambda s, v: {"request_id": v}, "name"),
    Placement("learning.review.submit", "request_id", _verdict(request_id=V, verdict="rejected"), "name"),
    Placement("learning.review.submit", "review_id", _verdict(review_id=V), "name", harmless="not_found"),
    Placement("learning.review.submit", "verdict", _verdict(verdict=V), "name", harmless="invalid_params"),
    Placement("learning.review.submit", "reason (approved)", _verdict(reason=V)),
    Placement("learning.review.submit", "reason (rejected)", _verdict(reason=V, verdict="rejected")),
    Placement("learning.record.revoke", "request_id", _revoke(request_id=V), "name"),
    Placement("learning.record.revoke", "record_id", _revoke(record_id=V), "name", harmless="not_found"),
    Placement("learning.record.revoke", "reason", _revoke(reason=V)),
    # What a person does from an attached console (actor user).
    Placement("lesson.approve", "-", lambda s, v: {"lesson_id": s.lesson(), "actor": "user"}),
    Placement(
        "learning.owner_review",
        "reason",
        lambda s, v: {"intent_id": s.candidate(), "verdict": "rejected", "reason": v, "actor": "user"},
    ),
    Placement(
        "learning.owner_review",
        "intent_id",
        lambda s, v: {"intent_id": v, "verdict": "rejected", "reason": "不对", "actor": "user"},
        "name",
        harmless="invalid_params",  # no such intent has a candidate waiting
    ),
    Placement("learning.record.edit", "content", lambda s, v: {"record_id": s.record(), "content": v, "actor": "user"}),
    Placement(
        "learning.record.edit",
        "record_id",
        lambda s, v: {"record_id": v, "content": "用表格", "actor": "user"},
        "name",
        harmless="not_found",
    ),
    Placement(
        "memory.fact.set_status",
        "reason",
        lambda s, v: {"fact_id": s.fact(), "status": "inactive", "reason": v, "actor": "user"},
    ),
    Placement(
        "memory.fact.set_status",
        "fact_id",
        lambda s, v: {"fact_id": v, "status": "inactive", "actor": "user"},
        "name",
        harmless="not_found",
    ),
    Placement("interaction.remember", "interaction_id", lambda s, v: {"interaction_id": v, "user_text": "好"}, "name"),
    Placement("interaction.remember", "user_text", lambda s, v: {"interaction_id": s.uid("i"), "user_text": v}),
    Placement(
        "interaction.remember", "assistant_text", lambda s, v: {"interaction_id": s.uid("i"), "assistant_text": v}
    ),
    Placement(
        "interaction.remember", "source", lambda s, v: {"interaction_id": s.uid("i"), "user_text": "好", "source": v}
    ),
    Placement(
        "interaction.remember", "task_id", lambda s, v: {"interaction_id": s.uid("i"), "user_text": "好", "task_id": v}
    ),
    Placement("task.complete", "task_id", _task(task_id=V), "name"),
    Placement("task.complete", "title", _task(title=V)),
    Placement("task.complete", "result", _task(result=V)),
    Placement("task.complete", "source", _task(source=V)),
    Placement("task.complete", "schedule_id", _task(schedule_id=V), "name"),
    Placement("task.complete", "run_id", _task(schedule_id="weekly", run_id=V), "name"),
    Placement("task.complete", "interaction_id", _task(interaction_id=V), "name"),
    Placement("consolidation.record", "summary", lambda s, v: {"kind": "note", "summary": v}),
    Placement("consolidation.record", "detail value", lambda s, v: {"kind": "note", "detail": {"note": v}}),
    Placement("consolidation.record", "detail key", lambda s, v: {"kind": "note", "detail": {v: 1}}, "name"),
    Placement("consolidation.record", "detail number", lambda s, v: {"kind": "note", "detail": {"n": v}}, "number"),
    Placement("memory.maintenance.plan", "-", lambda s, v: {"limit": 5}),
    Placement("memory.maintenance.commit", "note", _commit(note=V)),
    Placement("memory.maintenance.commit", "topic title", _commit({"title": V})),
    Placement("memory.maintenance.commit", "topic summary", _commit({"summary": V})),
    Placement("memory.maintenance.commit", "topic segment", _commit({"segment": V})),
    Placement("memory.maintenance.commit", "topic_id", _commit({"topic_id": V}), "name"),
    Placement("memory.maintenance.commit", "fact content", _fact("content")),
    Placement("memory.maintenance.commit", "fact project", _fact("project"), "name"),
    Placement("memory.maintenance.commit", "fact quote", _fact("quote")),
    Placement("memory.maintenance.commit", "skill name", _skill("name")),
    Placement("memory.maintenance.commit", "skill text", _skill("text")),
    Placement("memory.maintenance.commit", "skill quote", _skill("quote")),
    Placement(
        "memory.skill.set_status",
        "user_request",
        lambda s, v: {"skill_id": s.draft_skill(), "status": "active", "user_request": v, "actor": "user"},
    ),
    Placement("bundle.document.put", "content", _document()),
    Placement("bundle.document.put", "state.json", _document("state.json"), "json"),
    Placement(
        "bundle.document.put",
        "bundle key",
        lambda s, v: {"bundle_id": f"project/{v}", "path": "notes.md", "content": "x", "expected_revision": 0},
        "name",
    ),
    Placement(
        "bundle.document.put",
        "schedule_id",
        lambda s, v: {"schedule_id": v, "path": "notes.md", "content": "x", "expected_revision": 0},
        "name",
        harmless="not_found",  # a schedule's bundle is made by its first run
    ),
    Placement(
        "bundle.document.put",
        "run id in the path",
        lambda s, v: {
            "bundle_id": f"project/{s.uid('p')}",
            "path": f"runs/{v}/summary.md",
            "content": "x",
            "expected_revision": 0,
        },
        "name",
    ),
    Placement(
        "job.start",
        "directory",
        lambda s, v: {**s.job("taskwizard.import"), "directory": f"/nonexistent/{v}"},
        "name",
    ),
    Placement("dream.run", "-", lambda s, v: {"full": True}),
    Placement(
        "taskwizard.import",
        "directory",
        lambda s, v: {"directory": f"/nonexistent/{v}"},
        "name",
        harmless="not_found",
    ),
    Placement(
        "desk.import",
        "directory",
        lambda s, v: {"directory": f"/nonexistent/{v}"},
        "name",
        harmless="not_found",
    ),
    Placement(
        "facts.import",
        "file",
        lambda s, v: {"system": "mem0", "file": f"/nonexistent/{v}.json"},
        "name",
        harmless="not_found",
    ),
    *MCP_PLACEMENTS,
)


def test_every_write_method_is_in_the_corpus() -> None:
    """A method declared `writes=True` without placements here fails, so a new write method is covered at once."""
    writes = {name for name, method in REGISTRY.items() if method.writes}
    placed = {p.method for p in PLACEMENTS}
    assert writes - placed == set(), "write methods without a placement in the secret corpus"
    assert placed - writes == set(), "placements for methods that are not write methods (renamed?)"


class Client:
    """The dispatcher in this process, one request at a time, as the socket host would run it: as an agent, and
    an operation only the person may make (`forbidden` to an agent) once more as the person, as the console
    makes it."""

    def __init__(self, memory: Memory) -> None:
        self.dispatcher = Dispatcher(memory)
        self._ids = itertools.count(1)

    def call(self, method: str, params: dict[str, Any], tool: str | None = None) -> dict[str, Any]:
        if tool is not None:
            params = BY_NAME[tool].params(params)  # what `jiyi mcp` sends for the tool's arguments
        line = json.dumps({"id": next(self._ids), "method": method, "params": params}, ensure_ascii=False)
        # As an agent first, then as the console would when the operation is the person's own (approvals,
        # reviews, facts by hand).
        prepared = self.dispatcher.prepare(line.encode())
        answer = self._run(prepared, None)
        if _code(answer) == "forbidden":
            answer = self._run(prepared, self.dispatcher.person)
        return answer

    def _run(self, prepared: Any, context: Any) -> dict[str, Any]:
        response = self.dispatcher.run(prepared, context) if isinstance(prepared, Request) else prepared
        answer: dict[str, Any] = json.loads(encode(response))
        return answer


class RecordingEmbedder(HashEmbedder):
    """The hash embedder, keeping every text it is given: what the vector index embeds, and the queries."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().queries(texts)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().passages(texts)


def _code(answer: dict[str, Any]) -> str:
    return "ok" if answer.get("ok") else str(answer["error"]["code"])


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> RecordingEmbedder:
    """The process's hash embedder, for this test, one that keeps what it embeds."""
    recording = RecordingEmbedder()
    monkeypatch.setitem(embedders._loaded, "hash", recording)
    return recording


@pytest.fixture
def corpus_memory(home: Path, recorder: RecordingEmbedder) -> Iterator[Memory]:
    # The hashing embedder: this test is about what is stored, not about the model. A learning grant whose
    # quotas and queue hold every learning placement (docs/learning.md), after the settings of the home's
    # database (on PostgreSQL).
    settings = home / "config.toml"
    database = settings.read_text("utf-8") if settings.exists() else ""
    write_grant(
        home,
        max_extractions="10000",
        max_pending="1000",
        admissions="10000",
        max_records="10000",
        max_bytes="16777216",
    )
    settings.write_text(database + settings.read_text("utf-8"), "utf-8")
    memory = Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))
    yield memory
    memory.close()


@pytest.fixture
def sampled(backend: str) -> tuple[int, int]:
    """How many formats go into each text field and into each field of one word (a name, an id): every format
    into every field on SQLite; on PostgreSQL a sample, the formats in turn, so each goes into some fields of
    both kinds (the placements are the same code on both back ends). Every import takes every format on both."""
    return (len(FORMATS), len(FORMATS)) if backend == "sqlite" else (12, 2)


def test_a_batch_of_formats_is_redacted_as_each_alone() -> None:
    """What lets the corpus put every format in one text field: apart by a blank line, each is redacted as it
    is alone (a secret one format leaves would be left in the batch too; none is hidden by a neighbour)."""
    for redactor in (Redactor(), Redactor(default_words())):
        for family in (FILED, EPISODE):
            texts = [fmt.make(family).text for fmt in FORMATS]
            assert redactor.redact(GAP.join(texts)) == GAP.join(redactor.redact(text) for text in texts)


@pytest.mark.slow
def test_no_secret_is_stored_outside_episode_records(
    corpus_memory: Memory,
    sampled: tuple[int, int],
    recorder: RecordingEmbedder,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    memory, client, setup = corpus_memory, Client(corpus_memory), Setup(corpus_memory)
    formats, in_turn, episodes = FORMATS, itertools.cycle(FORMATS), set[str]()
    for placement in PLACEMENTS:
        _send(client, setup, placement, placement.value(None, setup), placement.harmless)
        if placement.takes_value:
            count = sampled[0] if placement.shape in BATCHED else sampled[1]
            sample = formats if count >= len(formats) else [next(in_turn) for _ in range(count)]
            written = _place(client, setup, placement, sample)
            episodes |= written if placement.family == EPISODE else set()
    for run_id in setup.runs:
        memory.runs.run_finish(run_id)
    imported = _import_every_format(client, tmp_path / "sources", formats)
    assert imported["desk"] >= 7 * len(formats) - 2 and imported["mcp-memory"] == imported["mem0"] * 2, imported
    # The placements without a field ran once, before the later placements' secrets: the views and the
    # vectors are rebuilt once more from everything the log now holds.
    for method in ("rebuild", "vectors.rebuild"):
        assert _code(client.call(method, {})) == "ok", method
    filed = _needles(FILED, formats)
    kept = _needles(EPISODE, formats)
    home = Path(memory.store.home)
    logs = "\n".join(record.getMessage() for record in caplog.records).lower()
    embedded = "\n".join(recorder.texts).lower()
    files = list(_files(home))
    rows_outside, rows_inside = _database_rows(memory)
    found = {(n, str(path.relative_to(home))) for path, data in files for n in filed if n in data}
    found |= {(n, "database") for n in filed if n in rows_outside or n in rows_inside}
    found |= {(n, "log") for n in filed if n in logs}
    found |= {(n, "embedded") for n in filed | kept if n in embedded}
    assert not found, f"secrets stored: {sorted(found)[:20]}"
    # What was searched holds what was written: the harmless text is in the vector index's files and was embedded.
    plain = "普通的一句话"
    assert plain in embedded and any(
        plain.encode().decode("latin-1") in data for path, data in files if "vectors" in path.parts
    )
    outside = {(n, str(path.relative_to(home))) for path, data in files for n in kept if n in data}
    assert {path for _, path in outside} <= {p.name for p in home.glob("jiyi.sqlite3*")}, sorted(outside)[:20]
    assert not [n for n in kept if n in rows_outside], "an episode's secret outside the episode records"
    # Episodes keep their strings verbatim: every format, where every format went into every field of a run
    # (some fields, such as a step's note, are not kept in the episode; a sample may have missed the others).
    verbatim = {f.name for f in formats if any(n.lower() in rows_inside for n in f.make(EPISODE).needles)}
    assert verbatim and verbatim <= episodes, "episodes keep their strings verbatim"
    assert min(sampled) < len(formats) or verbatim == {f.name for f in formats}, "episodes keep theirs verbatim"


def _place(client: Client, setup: Setup, placement: Placement, formats: Sequence[Format]) -> set[str]:
    """`formats` into the placement's field: all at once into a text (`GAP` apart; refused, in as many requests
    as the field's limit asks, down to one each), or one at a time into a field of one word. The names of the
    formats written (the others were refused)."""
    written: set[str] = set()
    if placement.shape in BATCHED:
        made = {fmt.make(placement.family): fmt.name for fmt in formats}
        written = {made[secret] for secret in _batch(client, setup, placement, list(made))}
    else:
        for fmt in formats:
            value = placement.value(fmt.make(placement.family), setup)
            if value is not None and _send(client, setup, placement, value, None, fmt.name).get("ok"):
                written.add(fmt.name)
    if setup.spares:  # what the refusals were given is still fresh: the harmless request is answered as before
        _send(client, setup, placement, placement.value(None, setup), placement.harmless, "spare")
    return written


def _batch(client: Client, setup: Setup, placement: Placement, secrets: list[Secret]) -> list[Secret]:
    """`secrets` in one request; refused, in requests the field's limit admits (or halves), down to one each.
    The secrets written."""
    answer = _send(client, setup, placement, placement.value(_joined(secrets), setup), None, f"{len(secrets)}")
    if answer.get("ok"):
        return secrets
    if len(secrets) == 1:
        return []
    limit = _LIMIT.search(answer["error"]["message"])
    parts = _packed(placement, setup, secrets, int(limit[1]), limit[2]) if limit else [secrets]
    if len(parts) == 1:
        parts = [secrets[: len(secrets) // 2], secrets[len(secrets) // 2 :]]
    return [secret for part in parts for secret in _batch(client, setup, placement, part)]


_LIMIT = re.compile(r"(?:longer than|at most|1–)(\d+) (characters|bytes)")


def _joined(secrets: Sequence[Secret]) -> Secret:
    return Secret(GAP.join(s.text for s in secrets), tuple(n for s in secrets for n in s.needles), spoken=True)


def _packed(placement: Placement, setup: Setup, secrets: list[Secret], limit: int, unit: str) -> list[list[Secret]]:
    """`secrets` in runs whose value holds at most `limit` characters (or bytes), in order."""
    parts: list[list[Secret]] = [[]]
    for secret in secrets:
        value = json.dumps(placement.value(_joined([*parts[-1], secret]), setup), ensure_ascii=False)
        if parts[-1] and len(value.encode() if unit == "bytes" else value) > limit:
            parts.append([])
        parts[-1].append(secret)
    return parts


def _send(
    client: Client, setup: Setup, placement: Placement, value: Any, expected: str | None, what: str = ""
) -> dict[str, Any]:
    """The placement's request with `value` in its field, answered `expected` (None: ok or a refusal)."""
    answer = client.call(placement.method, placement.build(setup, value), placement.tool)
    code = _code(answer)
    setup.settle(used=code == "ok")
    if expected is None:
        assert code in EXPECTED_REFUSALS | {"ok"}, (placement.method, placement.field, what, answer)
    else:
        assert code == expected, (placement.method, placement.field, what, answer)
    return answer


def _import_every_format(client: Client, folder: Path, formats: tuple[Format, ...]) -> dict[str, int]:
    """Every format's filed secret through `import desk`, `import mcp-memory` and `import mem0`: how many records
    each added."""
    texts = [fmt.make(FILED).text for fmt in formats]
    folder.mkdir(mode=0o700)
    answer = client.call("desk.import", {"directory": str(desk_export(folder / "desk", texts))})
    assert _code(answer) == "ok", answer
    added = {"desk": sum(report["added"] for report in answer["result"]["reports"].values())}
    for system, path in (
        ("mcp-memory", mcp_memory(folder / "memory.jsonl", texts)),
        ("mem0", mem0(folder / "mem0.json", texts)),
    ):
        answer = client.call("facts.import", {"system": system, "file": str(path)})
        assert _code(answer) == "ok", answer
        added[system] = answer["result"]["added"]
    return added


def _needles(family: int, formats: tuple[Format, ...] = FORMATS) -> set[str]:
    return {needle.lower() for fmt in formats for needle in fmt.make(family).needles}


def _files(home: Path) -> Iterator[tuple[Path, str]]:
    """Every file of the home with its bytes as lower-case text (so FTS tokens and folded names are found too)."""
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield path, path.read_bytes().lower().decode("latin-1")


def _database_rows(memory: Memory) -> tuple[str, str]:
    """Every row of the home's database (its SQLite file or its PostgreSQL database) as lower-case text:
    (outside the episode records, inside them)."""
    outside: list[str] = []
    inside: list[str] = []
    db = memory.store.db
    for domain, kind, *row in db.execute_sql("SELECT domain, type, * FROM event").fetchall():
        episode = domain == "experience" and kind in EPISODE_RECORDS
        (inside if episode else outside).append(repr(row).lower())
    for table in db.get_tables():
        if table != "event":
            rows = "\n".join(repr(row).lower() for row in db.execute_sql(f'SELECT * FROM "{table}"').fetchall())
            (inside if table in EPISODE_TABLES else outside).append(rows)
    return "\n".join(outside), "\n".join(inside)

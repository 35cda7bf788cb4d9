"""Numbers, field caps, the home's size budget and a full database, through the dispatcher on real homes.

Each refusal names the field (and the cap) and writes nothing; no reply
carries NaN; a full disk or a spent budget answers `unavailable` while reads
go on.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service.config import Config, load_config
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from service.rpc.methods import REGISTRY
from store.core.errors import InvalidInput
from store.learning.grant import example_section
from tests.conftest import REPO
from tests.service.conftest import Server, send_lines

HUGE = 10**400  # a valid JSON integer no 64-bit column can hold
TODAY = 1_780_000_000


def answer(
    dispatcher: Dispatcher,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    person: bool = False,
    **raw: bytes,
) -> dict[str, Any]:
    """One request through the whole protocol (encode, parse, dispatch, encode); the parsed reply.

    `person` sends it as the person (the console), else as an agent; `raw` puts literal JSON text in for a
    param (`NaN`, `1e400` are not what json.dumps writes).
    """
    fields = [f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False)}" for k, v in (params or {}).items()]
    fields += [f"{json.dumps(k)}:{literal.decode()}" for k, literal in raw.items()]
    text = f'{{"id":1,"method":{json.dumps(method)},"params":{{{",".join(fields)}}}}}'
    reply = dispatcher.handle_line(text.encode(), dispatcher.person if person else None)
    parsed: dict[str, Any] = json.loads(reply, parse_constant=lambda name: pytest.fail(f"{name} in a reply"))
    return parsed


def refused(reply: dict[str, Any], code: str, *words: str) -> None:
    assert reply["ok"] is False, reply
    assert reply["error"]["code"] == code, reply
    for word in words:
        assert word in reply["error"]["message"], reply


@pytest.fixture
def dispatcher(memory: Memory) -> Dispatcher:
    return Dispatcher(memory)


# -- numbers ---------------------------------------------------------------------------------------

NUMBER_CASES = [
    ("recall.stats", {}, {"since": str(HUGE).encode()}, "params.since"),
    ("recall.stats", {}, {"since": b"1e400"}, "params.since"),
    ("recall.stats", {}, {"since": b"-1e400"}, "params.since"),
    ("recall.stats", {}, {"since": b"1e300"}, "params.since"),
    ("recall.runs", {"since": 0}, {"until": b"1e20"}, "params.until"),
    ("episode.list", {}, {"since": str(HUGE).encode()}, "params.since"),
    ("app.alias.list", {}, {"offset": str(HUGE).encode()}, "params.offset"),
    ("interaction.remember", {"interaction_id": "n1", "user_text": "x"}, {"ts": str(HUGE).encode()}, "params.ts"),
    ("interaction.remember", {"interaction_id": "n2", "user_text": "x"}, {"ts": b"1e400"}, "params.ts"),
    ("interaction.remember", {"interaction_id": "n3", "user_text": "x"}, {"ts": b"1e300"}, "params.ts"),
    ("interaction.remember", {"interaction_id": "n4", "user_text": "x"}, {"ts": b"-1e18"}, "params.ts"),
    ("interaction.remember", {"interaction_id": "n5", "user_text": "x"}, {"ts": b"253402300800"}, "params.ts"),
    (
        "interaction.remember",
        {"interaction_id": "n6", "user_text": "x"},
        {"ts": b'"9999-12-31T23:59:59-05:00"'},
        "params.ts",
    ),
    ("task.complete", {"task_id": "t", "title": "x", "status": "succeeded"}, {"ts": b"1e300"}, "params.ts"),
    ("consolidation.record", {"kind": "note"}, {"detail": b'{"x": 1e400}'}, "params.detail.x"),
    ("consolidation.record", {"kind": "note"}, {"detail": b'{"x": ' + str(HUGE).encode() + b"}"}, "params.detail.x"),
    ("consolidation.record", {"kind": "note"}, {"detail": b'{"a": [1, {"b": -1e999}]}'}, "params.detail.a[1].b"),
    ("run.event", {}, {"event": b'{"run_id": "r1", "step": 1, "ts": 1e300}'}, "params.event.ts"),
    ("run.event", {}, {"event": b'{"run_id": "r1", "step": ' + str(HUGE).encode() + b"}"}, "params.event.step"),
    ("run.finish", {"run_id": "r1"}, {"outcome": b'{"ts_start": 1e300}'}, "params.outcome.ts_start"),
    ("run.finish", {"run_id": "r1"}, {"outcome": b'{"tokens_total": 1e400}'}, "params.outcome.tokens_total"),
    ("memory.maintenance.commit", {}, {"topics": b'[{"title": "t", "x": 1e400}]'}, "params.topics[0].x"),
    (
        "bundle.document.put",
        {"bundle_id": "project/p", "path": "state.json", "expected_revision": 0},
        {"content": b'"{\\"x\\": 1e400}"'},
        "state.json",
    ),
    (
        "bundle.document.put",
        {"bundle_id": "project/p", "path": "state.json", "expected_revision": 0},
        {"content": b'"{\\"x\\": NaN}"'},
        "NaN",
    ),
]


@pytest.mark.before_the_store
@pytest.mark.parametrize(("method", "params", "raw", "field"), NUMBER_CASES)
def test_numbers_out_of_range_are_invalid_params_naming_the_field(
    dispatcher: Dispatcher, memory: Memory, method: str, params: dict[str, Any], raw: dict[str, bytes], field: str
) -> None:
    events = memory.store.count_events()
    refused(answer(dispatcher, method, params, person=False, **raw), "invalid_params", field)
    assert memory.store.count_events() == events


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_are_not_json_and_are_never_echoed(dispatcher: Dispatcher, literal: bytes) -> None:
    refused(answer(dispatcher, "recall.stats", since=literal), "parse_error", "not a JSON number")
    refused(
        answer(dispatcher, "consolidation.record", {"kind": "note"}, detail=b'{"x": ' + literal + b"}"), "parse_error"
    )


def test_numbers_in_range_still_pass(dispatcher: Dispatcher, memory: Memory) -> None:
    reply = answer(dispatcher, "recall.stats", {"since": 0, "until": 4_102_444_800.5})
    assert reply["ok"] and reply["result"]["window"] == {"since": 0.0, "until": 4_102_444_800.5}
    detail = {"count": (1 << 63) - 1, "low": -(1 << 63), "ratio": 1e300, "nested": [{"x": 0.5}]}
    assert answer(dispatcher, "consolidation.record", {"kind": "note", "detail": detail})["ok"]
    assert answer(dispatcher, "interaction.remember", {"interaction_id": "ok", "user_text": "x", "ts": TODAY})["ok"]


def test_the_store_never_keeps_nan(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match="cannot be stored as JSON"), memory.store.atomic():
        memory.store.append("desk", "consolidation_recorded", {"detail": {"x": float("nan")}}, actor="agent")
    assert memory.store.count_events() == 0


def test_numbers_over_the_socket_get_one_valid_reply_each(shared_server: Server) -> None:
    lines = [
        b'{"id": 1, "method": "recall.stats", "params": {"since": ' + str(HUGE).encode() + b"}}",
        b'{"id": 2, "method": "recall.stats", "params": {"since": 1e400}}',
        b'{"id": 3, "method": "recall.stats", "params": {"since": NaN}}',
        b'{"id": 4, "method": "consolidation.record", "params": {"kind": "note", "detail": {"x": 1e400}}}',
        b'{"id": 5, "method": "health"}',
    ]
    replies = [
        json.loads(r, parse_constant=lambda name: pytest.fail(f"{name} in a reply"))
        for r in send_lines(shared_server.socket, lines)
    ]
    assert [r["error"]["code"] for r in replies[:4]] == [
        "invalid_params",
        "invalid_params",
        "parse_error",
        "invalid_params",
    ]
    assert replies[4]["ok"] is True


# -- field caps ------------------------------------------------------------------------------------

CAP_CASES = [
    ("consolidation.record", {"kind": "note", "detail": {"x": "y" * 65_536}}, ("params.detail", "65536")),
    (
        "bundle.document.put",
        {"bundle_id": "project/p", "path": "a.md", "content": "长" * 100_000, "expected_revision": 0},
        ("params.content", "262144"),
    ),
    ("run.event", {"event": {"run_id": "r1", "junk": "x" * 20_000}}, ("params.event", "16384")),
    ("run.finish", {"run_id": "r1", "outcome": {"deliverable_path": "路" * 342}}, ("deliverable_path", "1024 bytes")),
    ("run.finish", {"run_id": "r1", "outcome": {"goal_text": "x" * 8193}}, ("params.outcome.goal_text", "8192")),
    ("run.finish", {"run_id": "r1", "outcome": {"reason": "x" * 2001}}, ("params.outcome.reason", "2000")),
    ("run.finish", {"run_id": "r1", "outcome": {"takeover": "x" * 2001}}, ("params.outcome.takeover", "2000")),
    ("run.finish", {"run_id": "r1", "outcome": {"apps": ["com.a"] * 201}}, ("params.outcome.apps", "200")),
    ("run.finish", {"run_id": "r1", "outcome": {"note": "x" * 70_000}}, ("params.outcome", "65536")),
    ("lesson.add", {"text": "x", "apps": ["com.a"] * 51}, ("params.apps", "50")),
    ("lesson.add", {"text": "x", "apps": ["a" * 257]}, ("params.apps[0]", "256")),
    (
        "app.inventory.sync",
        {"device": "d", "apps": [{"package": "com.a", "label": "x" * 257}]},
        ("params.apps[0]", "256"),
    ),
    ("memory.maintenance.commit", {"topics": [{}] * 501}, ("params.topics", "500")),
    ("memory.maintenance.commit", {"facts": [{}] * 201}, ("params.facts", "200")),
    ("memory.maintenance.commit", {"skills": [{}] * 51}, ("params.skills", "50")),
]


@pytest.mark.before_the_store
@pytest.mark.parametrize(("method", "params", "words"), CAP_CASES)
def test_every_free_text_field_has_a_cap_that_names_itself(
    dispatcher: Dispatcher, memory: Memory, method: str, params: dict[str, Any], words: tuple[str, ...]
) -> None:
    events = memory.store.count_events()
    refused(answer(dispatcher, method, params), "invalid_params", *words)
    assert memory.store.count_events() == events


def test_the_caps_of_every_write_method_are_documented() -> None:
    doc = (REPO / "docs" / "protocol.md").read_text("utf-8")
    limits = doc[doc.index("## Limits") : doc.index("## Methods")]
    rows = {line.split("|")[1].strip().strip("`") for line in limits.splitlines() if line.startswith("| `")}
    assert rows == {m.name for m in REGISTRY.values() if m.writes}


def test_a_document_just_under_its_caps_is_kept(dispatcher: Dispatcher) -> None:
    detail = {"x": "y" * 65_000}
    assert answer(dispatcher, "consolidation.record", {"kind": "note", "detail": detail})["ok"]
    put = {"bundle_id": "project/p", "path": "a.md", "content": "长" * 87_000, "expected_revision": 0}
    assert answer(dispatcher, "bundle.document.put", put)["ok"]
    finished = answer(dispatcher, "run.finish", {"run_id": "r1", "outcome": {"deliverable_path": "路" * 341}})
    assert finished["ok"] and finished["result"]["episode"]["deliverable_path"] == "路" * 341


def test_an_unknown_run_is_archived_within_the_caps(dispatcher: Dispatcher) -> None:
    # Runs under way live in memory only: after a restart every run is unknown, and its outcome must not be lost.
    finished = answer(dispatcher, "run.finish", {"run_id": "never-started", "outcome": {"success": True}})
    assert finished["ok"] and finished["result"]["known"] is False and finished["result"]["archived"] is True


# -- the home's size budget ------------------------------------------------------------------------


@pytest.fixture
def full_home(home: Path, config: Config) -> Iterator[Callable[[int], Memory]]:
    """A home with something of every kind, and a way to reopen it under a budget of N MB that it has
    already passed (a 2 MB file in its bundle folder: bundle files count)."""
    opened: list[Memory] = []
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "config.toml").write_text(example_section(), "utf-8")
    hashed = {"JIYI_EMBED_MODEL": "hash"}  # the budget is under test, not the model (its load took seconds)
    with Memory.open(load_config(home=home, env=hashed)) as memory:
        seed(Dispatcher(memory))
    filler = config.bundles_path / "project" / "filler.md"
    filler.parent.mkdir(parents=True, exist_ok=True)
    filler.write_bytes(b"x" * (2 << 20))

    def reopen(budget_mb: int) -> Memory:
        opened.append(Memory.open(load_config(home=home, env={**hashed, "JIYI_MAX_HOME_MB": str(budget_mb)})))
        return opened[-1]

    yield reopen
    for memory in opened:
        memory.close()


def seed(dispatcher: Dispatcher) -> None:
    """What the write methods below act on: an alias change, an episode, a lesson, turns, a skill draft."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("app.alias.learn", {"name": "绿泡泡", "package": "com.tencent.mm"}),
        ("app.alias.learn", {"name": "小蓝书", "package": "com.xingin.xhs"}),
        ("run.finish", {"run_id": "old", "outcome": {"success": True, "goal_text": "打开微信"}}),
        ("lesson.add", {"text": "先看设置"}),
        ("interaction.remember", {"interaction_id": "i1", "user_text": "以后回答简短一点"}),
        ("interaction.remember", {"interaction_id": "i2", "user_text": "查一下天气"}),
        (
            "memory.maintenance.commit",
            {
                "topics": [{"title": "习惯", "kind": "chat", "interaction_ids": ["i1"], "segment": "说了习惯"}],
                "skills": [{"name": "简短", "text": "回答简短", "source_interaction_id": "i1", "quote": "回答简短"}],
                "facts": [
                    {
                        "scope": "profile",
                        "profile_kind": "communication",
                        "content": "用户希望回答简短",
                        "evidence": [{"interaction_id": "i1", "quote": "回答简短一点"}],
                    }
                ],
            },
        ),
    ]
    for method, params in calls:
        assert answer(dispatcher, method, params)["ok"], method
    seed_learning(dispatcher)


def seed_learning(dispatcher: Dispatcher) -> None:
    """An adopted record, and an extraction and a review under way (a restart ends both as failed)."""
    lease = answer(dispatcher, "learning.extract.lease", {"request_id": "s1"})["result"]
    quote = next(t["text"] for t in lease["snapshot"]["source"]["turns"] if t["role"] == "user")
    result = {"operation": "add", "kind": "fact.profile", "content": "用户的一句话", "quotations": [quote]}
    submit = {"operation_id": lease["operation_id"], "request_id": "s2", "result": result}
    assert answer(dispatcher, "learning.extract.submit", submit)["result"]["accepted"]
    review = answer(dispatcher, "learning.review.lease", {"request_id": "s3"})["result"]
    verdict = {"review_id": review["review_id"], "request_id": "s4", "verdict": "approved", "reason": "原话"}
    assert answer(dispatcher, "learning.review.submit", verdict)["result"]["intent_state"] == "adopted"
    second = answer(dispatcher, "learning.extract.lease", {"request_id": "s5"})["result"]
    again = {
        "operation_id": second["operation_id"],
        "request_id": "s6",
        "result": {**result, "quotations": ["查一下天气"]},
    }
    assert answer(dispatcher, "learning.extract.submit", again)["result"]["accepted"]
    assert "review_id" in answer(dispatcher, "learning.review.lease", {"request_id": "s7"})["result"]
    assert answer(dispatcher, "interaction.remember", {"interaction_id": "i9", "user_text": "我住在杭州"})["ok"]
    assert "operation_id" in answer(dispatcher, "learning.extract.lease", {"request_id": "s8"})["result"]
    # A candidate left for the owner to review in the console (`learning.owner_review`).
    assert answer(dispatcher, "interaction.remember", {"interaction_id": "i10", "user_text": "我爱喝美式咖啡"})["ok"]
    third = answer(dispatcher, "learning.extract.lease", {"request_id": "s9"})["result"]
    owners = {**result, "content": "用户爱喝美式咖啡", "quotations": ["我爱喝美式咖啡"]}
    submitted = {"operation_id": third["operation_id"], "request_id": "s10", "result": owners}
    assert answer(dispatcher, "learning.extract.submit", submitted)["result"]["accepted"]


def write_requests(memory: Memory) -> dict[str, dict[str, Any]]:
    """A request for every write method, each one that would write if the home had room."""
    lesson = memory.lessons.list_lessons(None)[0].lesson_id
    skill = memory.skills.list_skills(None)[0].skill_id
    change = memory.appkb.alias_history("小蓝书", limit=1)[0].txn
    fact = next(f.fact_id for f in memory.facts.list_facts() if f.content == "用户希望回答简短")
    taskwizard = memory.home.parent / "taskwizard-memory"
    (taskwizard / "app_kb").mkdir(parents=True, exist_ok=True)
    entry = {"term": "小红薯", "label": "小红书", "package": "com.xingin.xhs", "kind": "alias", "scope": "global"}
    (taskwizard / "app_kb" / "kb.json").write_text(json.dumps([entry], ensure_ascii=False), "utf-8")
    intents = [memory.learning.intent(i.intent_id) for i in memory.learning.queue()]
    operation = next(o.operation_id for i in intents for o in i.operations if o.state == "failed")
    review = next(r.review_id for i in intents for r in i.reviews if r.state == "failed")
    reviewed = next(i.intent_id for i in intents if not i.reviews and i.operations[0].state == "submitted")
    record = memory.learning.list_records("active")[0].id
    noop = {"operation": "noop"}
    desk_export = memory.home.parent / "desk-export"
    memory.interchange.export_desk(desk_export)
    mcp = memory.home.parent / "memory.jsonl"
    observation = {"type": "entity", "name": "用户", "entityType": "person", "observations": ["喜欢绿茶"]}
    mcp.write_text(json.dumps(observation, ensure_ascii=False) + "\n", "utf-8")
    return {
        "learning.owner_review": {"intent_id": reviewed, "verdict": "rejected", "reason": "不对", "actor": "user"},
        "learning.scan": {},
        "learning.extract.lease": {"request_id": "w1"},
        "learning.extract.submit": {"operation_id": operation, "request_id": "w2", "result": noop},
        "learning.review.lease": {"request_id": "w3"},
        "learning.review.submit": {"review_id": review, "request_id": "w4", "verdict": "rejected", "reason": "否"},
        "learning.record.edit": {"record_id": record, "content": "用户的原话", "actor": "user"},
        "learning.record.revoke": {"record_id": record, "request_id": "w5"},
        "app.alias.learn": {"name": "红薯", "package": "com.xingin.xhs"},
        "app.alias.forget": {"name": "绿泡泡"},
        "app.alias.undo": {"change": change},
        "app.inventory.sync": {"device": "d1", "apps": [{"package": "com.tencent.mm", "label": "微信"}]},
        "run.start": {"run_id": "new", "device": "d1", "installed": [{"package": "com.xingin.xhs", "label": "小红书"}]},
        "run.event": {"event": {"run_id": "new", "step": 1, "tool": "tap", "result_class": "ok"}},
        "run.finish": {"run_id": "new", "outcome": {"success": True}},
        "episode.revoke": {"run_id": "old"},
        "episode.restore": {"run_id": "old"},
        "lesson.add": {"text": "再看一次"},
        "lesson.approve": {"lesson_id": lesson, "actor": "user"},
        "lesson.revoke": {"lesson_id": lesson},
        "interaction.remember": {"interaction_id": "i3", "user_text": "新的一轮"},
        "task.complete": {"task_id": "t1", "title": "检查", "status": "succeeded"},
        "consolidation.record": {"kind": "note", "summary": "整理过了"},
        "memory.maintenance.plan": {},
        "memory.maintenance.commit": {
            "topics": [{"title": "天气", "kind": "chat", "interaction_ids": ["i2"], "segment": "问了天气"}]
        },
        "memory.skill.set_status": {"skill_id": skill, "status": "rejected"},
        "memory.fact.set_status": {"fact_id": fact, "status": "inactive", "actor": "user"},
        "rebuild": {},
        "vectors.rebuild": {},
        "job.start": {"kind": "vectors.rebuild"},
        "dream.run": {},
        "taskwizard.import": {"directory": str(taskwizard)},
        "bundle.document.put": {"bundle_id": "project/p", "path": "a.md", "content": "# 笔记", "expected_revision": 0},
        "desk.import": {"directory": str(desk_export)},
        "facts.import": {"system": "mcp-memory", "file": str(mcp)},
    }


FAILS_OPEN = {"run.event", "run.finish"}  # archiving never fails an agent's run (docs/protocol.md)


@pytest.mark.sqlite_only  # the budget counts the SQLite file in the home; a server sizes its own
def test_past_the_budget_every_write_is_unavailable_and_reads_go_on(
    full_home: Callable[[int], Memory], caplog: pytest.LogCaptureFixture
) -> None:
    memory = full_home(1)
    dispatcher = Dispatcher(memory)
    requests = write_requests(memory)
    assert set(requests) == {m.name for m in REGISTRY.values() if m.writes}, "a new write method needs a request here"
    events = memory.store.count_events()
    with caplog.at_level(logging.WARNING):
        for method, params in requests.items():
            reply = answer(dispatcher, method, params, person=True)  # the person's writes are among them
            if method in FAILS_OPEN:
                assert reply["ok"] and reply["result"]["archived"] is False, (method, reply)
            else:
                refused(reply, "unavailable", "size budget of 1 MB (JIYI_MAX_HOME_MB)")
                assert reply["error"]["data"]["budget_bytes"] == 1 << 20, method
    assert memory.store.count_events() == events
    health = answer(dispatcher, "health")["result"]
    assert health["home_size"]["over_budget"] is True and health["home_size"]["budget_bytes"] == 1 << 20
    assert health["archive_failures"] >= 2
    for method, params in [
        ("app.resolve", {"name": "绿泡泡"}),
        ("task.list", {}),
        ("memory.recall", {"query": "天气"}),
        ("episode.get", {"run_id": "old"}),
        ("bundle.list", {}),
    ]:
        assert answer(dispatcher, method, params)["ok"], method


@pytest.mark.sqlite_only  # the budget counts the SQLite file in the home; a server sizes its own
def test_within_the_budget_the_same_writes_succeed(full_home: Callable[[int], Memory]) -> None:
    memory = full_home(64)
    dispatcher = Dispatcher(memory)
    for method, params in write_requests(memory).items():
        reply = answer(dispatcher, method, params, person=True)
        assert reply["ok"], (method, reply)
    size = answer(dispatcher, "health")["result"]["home_size"]
    assert size["budget_bytes"] == 64 << 20 and size["over_budget"] is False and size["bytes"] > 2 << 20


@pytest.mark.sqlite_only  # the budget counts the SQLite file in the home; a server sizes its own
def test_no_budget_is_zero(home: Path) -> None:
    with Memory.open(load_config(home=home, env={"JIYI_MAX_HOME_MB": "0"})) as memory:
        size = memory.home_size()
        assert size["budget_bytes"] is None and size["over_budget"] is False and size["bytes"] > 0


@pytest.mark.slow
@pytest.mark.sqlite_only  # the budget counts the SQLite file in the home; a server sizes its own
def test_one_client_cannot_grow_the_home_past_its_budget(short_dir: Path, launch: Callable[..., Server]) -> None:
    home = short_dir / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text("max_home_mb = 2\n", "utf-8")
    os.chmod(home / "config.toml", 0o600)
    server = launch(home, short_dir / "run" / "jiyi.sock")
    detail = {"log": "日志" * 10_000}  # ~60 KB a call: the most the cap lets through
    line = json.dumps({"id": 1, "method": "consolidation.record", "params": {"kind": "note", "detail": detail}})
    refusal = None
    for _ in range(200):
        reply = json.loads(send_lines(server.socket, [line.encode()])[0])
        if not reply["ok"]:
            refusal = reply["error"]
            break
    assert refusal is not None and refusal["code"] == "unavailable", "the budget never stopped the flood"
    assert "size budget of 2 MB" in refusal["message"]
    health = json.loads(send_lines(server.socket, [b'{"id": 2, "method": "health"}'])[0])["result"]
    assert health["home_size"]["over_budget"] is True
    assert json.loads(send_lines(server.socket, [b'{"id": 3, "method": "task.list"}'])[0])["ok"]
    assert server.stop() == 0
    on_disk = sum(p.stat().st_size for p in home.rglob("*") if p.is_file() and not p.is_relative_to(home / "vectors"))
    assert on_disk < 4 << 20  # the budget, and at most a few writes' worth past it


# -- a full database -------------------------------------------------------------------------------


@pytest.mark.sqlite_only  # the budget counts the SQLite file in the home; a server sizes its own
def test_a_full_database_answers_unavailable_keeps_its_data_and_logs_no_error(
    dispatcher: Dispatcher, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    for i in range(5):
        assert answer(dispatcher, "interaction.remember", {"interaction_id": f"a{i}", "user_text": "早上好"})["ok"]
    pages = memory.store.db.execute_sql("PRAGMA page_count").fetchone()[0]
    memory.store.db.execute_sql(f"PRAGMA max_page_count = {pages}")
    with caplog.at_level(logging.WARNING):
        replies = [
            answer(dispatcher, "interaction.remember", {"interaction_id": f"b{i}", "user_text": "很长的一轮" * 1500})
            for i in range(10)
        ]
        finished = answer(dispatcher, "run.finish", {"run_id": "r", "outcome": {"goal_text": "很长" * 4000}})
    assert replies[-1]["ok"] is False
    for reply in replies:
        if not reply["ok"]:
            refused(reply, "unavailable", "disk holding the database is full")
    assert finished["ok"] and finished["result"]["archived"] is False
    assert "cannot rollback" not in caplog.text
    assert answer(dispatcher, "health")["ok"] and answer(dispatcher, "task.list")["ok"]
    kept = {row[0] for row in memory.store.db.execute_sql("SELECT interaction_id FROM desk_interaction")}
    assert {f"a{i}" for i in range(5)} <= kept
    assert memory.store.integrity_check() == "ok"

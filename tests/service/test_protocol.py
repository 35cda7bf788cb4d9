"""The protocol and the dispatcher, without a socket."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest

from recall.vectors import IndexMismatch
from service.client import PROTOCOL_MAJOR as CLIENT_MAJOR
from service.config import ConfigError, load_config
from service.memory.memory import Memory
from service.rpc.context import CallContext
from service.rpc.dispatch import Dispatcher
from service.rpc.protocol import (
    ERROR_CODES,
    PROTOCOL_MAJOR,
    PROTOCOL_VERSION,
    ProtocolError,
    encode,
    parse_request,
    success,
)
from service.rpc.registry import MethodTable, Registry
from store.core.errors import (
    Conflict,
    EnvironmentProblem,
    Forbidden,
    HomeLocked,
    InvalidInput,
    JiyiError,
    NotFound,
    SchemaTooNew,
    SensitiveContent,
    UnsafePath,
)
from tests.service.declared import NoArgs, declared


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"\xff\xfe", "parse_error"),
        (b'{"id": 1, "method": "health"', "parse_error"),
        (b"[" * 50000, "parse_error"),
        (b"[1, 2]", "invalid_request"),
        (b'{"id": true, "method": "health"}', "invalid_request"),
        (b'{"id": {"a": 1}, "method": "health"}', "invalid_request"),
        (b'{"id": 1}', "invalid_request"),
        (b'{"id": 1, "method": 7}', "invalid_request"),
        (b'{"id": 1, "method": "health", "params": [1]}', "invalid_request"),
        (b'{"id": 1, "method": "health", "extra": 1}', "invalid_request"),
        (b'{"id": 1, "method": "recall.stats", "params": {"since": NaN}}', "parse_error"),
        (b'{"id": 1, "method": "health", "params": {"x": -Infinity}}', "parse_error"),
        (b'{"id": 1, "method": "health", "params": {"x": ' + b"9" * 5000 + b"}}", "parse_error"),
        (b'{"id": 1, "method": "health", "v": 2}', "unsupported_version"),
        (b'{"id": 1, "method": "health", "v": 1.0}', "invalid_request"),
        (b'{"id": "\\ud800", "method": "health"}', "invalid_request"),
        (b'{"id": 1, "method": "memory.recall", "params": {"query": "\\udc00"}}', "invalid_params"),
    ],
)
def test_malformed_requests_are_named(line: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request(line)
    assert caught.value.code == code and caught.value.message


def test_a_good_request() -> None:
    request = parse_request('{"id":"a","method":"app.resolve","params":{"name":"微信"}}'.encode())
    assert (request.id, request.method, request.params) == ("a", "app.resolve", {"name": "微信"})
    assert parse_request(b'{"id":null,"method":"health"}').params == {}


def answer(memory: Memory, request: dict[str, object], *, person: bool = False) -> dict[str, Any]:
    """The reply, the request sent as an agent or (`person`) as the console."""
    dispatcher = Dispatcher(memory)
    reply = dispatcher.handle_line(json.dumps(request).encode(), dispatcher.person if person else None)
    response: dict[str, Any] = json.loads(reply)
    return response


@pytest.mark.parametrize(
    ("request_", "code", "words"),
    [
        ({"id": 1, "method": "no.such"}, "method_not_found", "no.such"),
        ({"id": 2, "method": "app.resolve", "params": {}}, "invalid_params", "params.name is required"),
        ({"id": 3, "method": "app.resolve", "params": {"name": 5}}, "invalid_params", "must be a string"),
        ({"id": 4, "method": "app.resolve", "params": {"name": "x", "devcie": "d"}}, "invalid_params", "'devcie'"),
        ({"id": 5, "method": "app.alias.learn", "params": {"assignment": "x"}}, "invalid_params", "名称=包名"),
        (
            {"id": 6, "method": "app.alias.learn", "params": {"name": "密码", "package": "com.a.b"}},
            "forbidden",
            "sensitive",
        ),
        ({"id": 7, "method": "app.alias.undo", "params": {"change": 99}}, "not_found", "99"),
        ({"id": 8, "method": "app.alias.list", "params": {"limit": 0}}, "invalid_params", "between"),
        ({"id": 9, "method": "app.inventory.sync", "params": {"device": "d", "apps": "x"}}, "invalid_params", "list"),
        ({"id": 10, "method": "run.event", "params": {"event": {"step": 1}}}, "invalid_params", "run_id"),
    ],
)
def test_errors_have_stable_codes_and_human_messages(
    memory: Memory, request_: dict[str, object], code: str, words: str
) -> None:
    response = answer(memory, request_, person=True)  # the console's requests (an undo is the person's)
    assert response["id"] == request_["id"] and response["ok"] is False
    error = response["error"]
    assert isinstance(error, dict) and error["code"] == code and words in error["message"]
    assert error["code"] in ERROR_CODES


def test_an_unexpected_failure_is_internal_without_internals(memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    def broken(_memory: Memory, _args: NoArgs, _context: CallContext) -> None:
        raise KeyError("secret detail")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    table = MethodTable("test")
    table.op(declared("boom"))(broken)
    dispatcher = Dispatcher(memory, Registry(table))
    response = json.loads(dispatcher.handle_line(b'{"id": 1, "method": "boom"}'))
    assert response["error"]["code"] == "internal"
    assert "secret" not in response["error"]["message"]
    assert "secret detail" in caplog.text


def test_health_reports_uptime_and_counts(memory: Memory) -> None:
    result = answer(memory, {"id": 1, "method": "health"})["result"]
    assert isinstance(result, dict)
    assert {"version", "schema_version", "uptime_s", "rag_mode", "app_kb_entries", "events", "pid"} <= set(result)


def test_a_run_through_the_dispatcher_learns_an_implicit_alias(memory: Memory) -> None:
    installed = [{"package": "com.xingin.xhs", "label": "小红书"}]
    assert answer(
        memory, {"id": 1, "method": "run.start", "params": {"run_id": "r1", "device": "d1", "installed": installed}}
    )["ok"]
    failed = {"run_id": "r1", "step": 2, "tool": "launch_app", "result_class": "error", "note": "  没找到\n小红薯  "}
    response = answer(
        memory,
        {
            "id": 2,
            "method": "run.event",
            "params": {"event": failed, "launch_name": "小红薯", "failure_message": "候选：com.xingin.xhs"},
        },
    )
    result = response["result"]
    assert isinstance(result, dict)
    assert result["evidence"] == ["com.xingin.xhs"] and result["event"]["note"] == "没找到 小红薯"
    assert result["event"]["device_scope"] == "device:d1"
    confirmed = {"run_id": "r1", "step": 3, "tool": "launch_app", "result_class": "ok", "app_package": "com.xingin.xhs"}
    learned = answer(memory, {"id": 3, "method": "run.event", "params": {"event": confirmed, "launch_name": "小红薯"}})
    assert [e["term"] for e in learned["result"]["learned"]] == ["小红薯"]
    assert answer(memory, {"id": 4, "method": "run.finish", "params": {"run_id": "r1"}})["result"]["known"] is True
    assert memory.runs.active_runs() == []


def test_run_events_are_validated_not_rewritten(memory: Memory) -> None:
    event = {
        "run_id": "r9",
        "step": -3,
        "tool": "tele port!",  # not wire-safe (a custom name like `plugin_lookup-v2` is kept)
        "result_class": "great",
        "app_package": "not a pkg",
        "secret": 1,
    }
    result = answer(memory, {"id": 1, "method": "run.event", "params": {"event": event}})["result"]
    assert isinstance(result, dict)
    stored = result["event"]
    assert (stored["step"], stored["tool"], stored["result_class"], stored["app_package"]) == (
        0,
        "unknown",
        "error",
        None,
    )
    assert "secret" not in stored


def test_every_method_is_documented_and_every_documented_method_exists() -> None:
    from service.rpc.methods import REGISTRY
    from tests.conftest import REPO

    doc = (REPO / "docs" / "protocol.md").read_text("utf-8")
    documented = set(re.findall(r"^### `([a-z._]+)`", doc, flags=re.MULTILINE))
    assert documented == set(REGISTRY)
    for code in ERROR_CODES:
        assert f"| `{code}` |" in doc


def test_episode_methods_over_the_dispatcher(memory: Memory) -> None:
    assert answer(memory, {"id": 1, "method": "run.start", "params": {"run_id": "e1", "device": "d1", "goal": "搜索"}})[
        "ok"
    ]
    finished = answer(
        memory, {"id": 2, "method": "run.finish", "params": {"run_id": "e1", "outcome": {"success": True}}}
    )
    assert finished["result"]["archived"] is True
    listed = answer(memory, {"id": 3, "method": "episode.list", "params": {"text": "搜索", "total": True, "limit": 5}})
    assert listed["result"]["total"] == 1 and listed["result"]["next_offset"] is None
    assert (
        answer(memory, {"id": 4, "method": "episode.get", "params": {"run_id": "e1"}})["result"]["goal_text"] == "搜索"
    )
    assert (
        answer(memory, {"id": 5, "method": "episode.revoke", "params": {"run_id": "e1"}}, person=True)["result"][
            "revoked"
        ]
        is True
    )
    assert (
        answer(memory, {"id": 6, "method": "episode.restore", "params": {"run_id": "e1"}}, person=True)["result"][
            "revoked"
        ]
        is False
    )
    missing = answer(memory, {"id": 7, "method": "episode.get", "params": {"run_id": "nope"}})
    assert missing["error"]["code"] == "not_found"
    bad = answer(memory, {"id": 8, "method": "episode.list", "params": {"success": "yes"}})
    assert bad["error"]["code"] == "invalid_params"
    bad_outcome = answer(memory, {"id": 9, "method": "run.finish", "params": {"run_id": "e2", "outcome": [1]}})
    assert bad_outcome["error"]["code"] == "invalid_params"


def test_episode_list_pages_by_key_after_the_last_episode_held(memory: Memory) -> None:
    memory.runs.archive_episodes(
        [{"run_id": f"k{i}", "ts_end": 1000.0 + i, "goal_text": "搜索"} for i in range(4)], index=False
    )
    first = answer(memory, {"id": 1, "method": "episode.list", "params": {"limit": 2}})["result"]["episodes"]
    memory.runs.archive_episodes([{"run_id": "newest", "ts_end": 5000.0, "goal_text": "搜索"}], index=False)
    after = [first[-1]["ts_end"], first[-1]["run_id"]]
    rest = answer(memory, {"id": 2, "method": "episode.list", "params": {"after": after}})["result"]["episodes"]
    assert [e["run_id"] for e in first + rest] == ["k3", "k2", "k1", "k0"]
    for bad in ([1.0], ["1", "k1"], [1.0, ""], [True, "k1"], "k1"):
        refused = answer(memory, {"id": 3, "method": "episode.list", "params": {"after": bad}})
        assert refused["error"]["code"] == "invalid_params" and "params.after" in refused["error"]["message"]


def test_recall_query_explains_only_when_asked(tmp_path: Path) -> None:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"})) as hashed:
        hashed.runs.archive_episodes(
            [
                {
                    "run_id": "p1",
                    "device_scope": "device:d1",
                    "goal_text": "在小红书搜索火锅店",
                    "apps": ["com.xingin.xhs"],
                    "steps": 3,
                }
            ]
        )
        params = {"goal": "搜索火锅店", "device": "d1"}
        plain = answer(hashed, {"id": 1, "method": "recall.query", "params": params})["result"]
        assert plain["top1_apps"] == ["com.xingin.xhs"] and "considered" not in plain
        explained = answer(hashed, {"id": 2, "method": "recall.query", "params": {**params, "explain": True}})
        result = explained["result"]
        assert result["threshold"] == 0.5 and result["considered"][0]["run_id"] == "p1"
        bad = answer(hashed, {"id": 3, "method": "recall.query", "params": {**params, "explain": "yes"}})
        assert bad["error"]["code"] == "invalid_params" and "explain" in bad["error"]["message"]
        blank = answer(hashed, {"id": 4, "method": "recall.query", "params": {"goal": "x", "device": " "}})
        assert blank["error"]["code"] == "invalid_params"


@pytest.mark.parametrize("v", [None, 1, "1.0", "1.7", "1.9999"])
def test_any_minor_of_the_supported_major_is_served(memory: Memory, v: object) -> None:
    response = answer(memory, {"id": "h", "v": v, "method": "health"})
    assert response["ok"] is True and response["result"]["protocol"] == PROTOCOL_VERSION


@pytest.mark.before_the_store
@pytest.mark.parametrize("v", [0, 2, "0.9", "2.0", "9999.0", 10**30])
def test_another_major_is_refused_naming_the_supported_version(memory: Memory, v: object) -> None:
    response = answer(memory, {"id": "x", "v": v, "method": "app.alias.learn", "params": {"name": "a", "package": "b"}})
    assert response["id"] == "x" and response["ok"] is False
    error = response["error"]
    assert isinstance(error, dict) and error["code"] == "unsupported_version"
    assert f"speaks {PROTOCOL_VERSION}" in error["message"]
    assert memory.appkb.count_aliases() == 0  # refused before anything ran


@pytest.mark.before_the_store
@pytest.mark.parametrize(
    "v", [1.0, True, "1", "1.0.0", "v1", " 1.0", "1.0 ", "01.0", "1.-1", "", -1, [1], {"major": 1}]
)
def test_a_malformed_version_is_an_invalid_request(memory: Memory, v: object) -> None:
    response = answer(memory, {"id": 3, "v": v, "method": "health"})
    error = response["error"]
    assert response["id"] == 3 and isinstance(error, dict) and error["code"] == "invalid_request"
    assert "MAJOR.MINOR" in error["message"]


def test_health_names_the_protocol_version(memory: Memory) -> None:
    assert re.fullmatch(r"[0-9]+\.[0-9]+", PROTOCOL_VERSION)
    assert PROTOCOL_VERSION.split(".")[0] == str(PROTOCOL_MAJOR) == str(CLIENT_MAJOR)
    result = answer(memory, {"id": 1, "method": "health"})["result"]
    assert isinstance(result, dict) and result["protocol"] == PROTOCOL_VERSION


def _error_classes() -> list[type[JiyiError]]:
    """Every error class of the project, after importing each module that could declare one."""
    for package in ("store", "recall", "service"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            importlib.import_module(info.name)
    found, todo = [], [JiyiError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_error_class_carries_a_documented_wire_code() -> None:
    classes = _error_classes()
    assert {c.__name__ for c in classes} >= {"ConfigError", "IndexMismatch", "UnsafePath", "SensitiveContent"}
    for cls in classes:
        assert cls.code in ERROR_CODES, cls


@pytest.mark.before_the_store
@pytest.mark.parametrize(
    ("error", "code"),
    [
        (JiyiError("x"), "internal"),
        (InvalidInput("x"), "invalid_params"),
        (ConfigError("x"), "invalid_params"),
        (SensitiveContent("x"), "forbidden"),
        (Forbidden("x"), "forbidden"),
        (NotFound("x"), "not_found"),
        (Conflict("x", {"revision": 2}), "conflict"),
        (EnvironmentProblem("x"), "unavailable"),
        (UnsafePath("x"), "forbidden"),
        (HomeLocked("x"), "unavailable"),
        (SchemaTooNew("x"), "unavailable"),
        (IndexMismatch("x"), "unavailable"),
    ],
)
def test_an_expected_error_reaches_the_wire_with_its_own_code(memory: Memory, error: JiyiError, code: str) -> None:
    def failing(_memory: Memory, _args: NoArgs, _context: CallContext) -> None:
        raise error

    table = MethodTable("test")
    table.op(declared("fail"))(failing)
    response = json.loads(Dispatcher(memory, Registry(table)).handle_line(b'{"id": 5, "method": "fail"}'))
    assert response == {"id": 5, "ok": False, "error": {"code": code, "message": "x", **_data(error)}}


def _data(error: JiyiError) -> dict[str, object]:
    details = getattr(error, "details", None)
    return {"data": details} if details is not None else {}


def test_a_result_json_cannot_carry_is_answered_internal(memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.errors_expected = True  # type: ignore[attr-defined]
    table = MethodTable("test")
    table.op(declared("nan"))(lambda _memory, _args, _context: {"rate": float("nan")})
    line = Dispatcher(memory, Registry(table)).handle_line(b'{"id": 6, "method": "nan"}')
    response = json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in a reply"))
    assert response["id"] == 6 and response["error"]["code"] == "internal"
    assert "not valid JSON" in caplog.text


def test_a_bug_in_reading_a_line_still_answers_it(
    memory: Memory, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_line: bytes) -> None:
        raise RuntimeError("reader bug")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    monkeypatch.setattr("service.rpc.dispatch.parse_request", broken)
    response = json.loads(Dispatcher(memory).handle_line(b'{"id": 1, "method": "health"}'))
    assert response == {"id": None, "ok": False, "error": {"code": "internal", "message": response["error"]["message"]}}
    assert "reader bug" not in response["error"]["message"] and "reader bug" in caplog.text


@pytest.mark.parametrize(
    "result",
    [{"text": "\ud800"}, {"x": float("nan")}, {("a", "tuple"): "key"}],
    ids=["a lone surrogate", "NaN", "a key JSON cannot hold"],
)
def test_an_answer_json_cannot_carry_becomes_internal(result: object, caplog: pytest.LogCaptureFixture) -> None:
    caplog.errors_expected = True  # type: ignore[attr-defined]
    for request_id, echoed in ((7, 7), ("\udfff", None)):
        line = encode(success(request_id, result))
        reply = json.loads(line)
        assert line.endswith(b"\n") and reply["id"] == echoed and reply["error"]["code"] == "internal"
    assert "is not valid JSON" in caplog.text

"""`jiyi learn`: the example grant, status and scan, and the reference worker against a small
OpenAI-compatible HTTP server in the test that answers with fixture outputs."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from service.cli.main import main
from service.config import load_config
from service.memory.memory import Memory
from tests.service.conftest import Server, send_lines


def jiyi(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_the_example_grant_appended_to_config_toml_turns_learning_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    code, section = jiyi(capsys, "learn", "grant", "--example", "--home", str(home))
    assert code == 0 and section.startswith("# Automatic learning")
    assert not home.exists()  # printing the example touches no home
    assert jiyi(capsys, "learn", "status", "--home", str(home))[0] == 4  # reading one never creates it
    Memory.open(load_config(home=home, env={})).close()
    assert jiyi(capsys, "learn", "status", "--home", str(home))[1].startswith("learning is off")
    (home / "config.toml").write_text('log_level = "info"\n\n' + section, "utf-8")
    grant = load_config(home=home, env={}).learning
    assert grant is not None and grant.max_pending == 50
    code, out = jiyi(capsys, "learn", "status", "--home", str(home))
    assert code == 0 and f"grant {grant.id} of owner" in out and "extractions  used       0 of       200" in out
    code, out = jiyi(capsys, "learn", "scan", "--home", str(home))
    assert code == 0 and out.startswith("added 0")
    status = json.loads(jiyi(capsys, "learn", "status", "--json", "--home", str(home))[1])
    assert status["fingerprints"] == status["stored_fingerprints"] == grant.fingerprints()


def test_a_bad_grant_is_refused_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    section = jiyi(capsys, "learn", "grant", "--example", "--home", str(home))[1]
    (home / "config.toml").write_text(section.replace("[learning.review]", "[learning.review]\nbudget = 3"), "utf-8")
    assert main(["learn", "status", "--home", str(home)]) == 2
    assert "learning.review.budget: unknown key" in capsys.readouterr().err


def test_a_scan_without_a_grant_is_refused_with_its_own_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    Memory.open(load_config(home=home, env={})).close()
    assert main(["learn", "scan", "--home", str(home)]) == 6  # not allowed: docs/cli.md's exit codes
    captured = capsys.readouterr()
    assert captured.out == "" and "learning" in captured.err and "Traceback" not in captured.err


class FixtureModel:
    """An OpenAI-compatible `/v1/chat/completions` answering each request with the next fixture text
    (an int answers that HTTP status instead; `HANG` answers nothing for 3 s)."""

    def __init__(self, answers: list[str | int]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append({"path": self.path, **body})
                text = model.answers.pop(0)
                if text == HANG:
                    time.sleep(3)
                    return
                if isinstance(text, int):
                    self.send_response(text)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


HANG = "<hang>"


@pytest.fixture
def served(short_dir: Path, launch: Callable[..., Server], capsys: pytest.CaptureFixture[str]) -> Iterator[Server]:
    home = short_dir / "home"
    home.mkdir(mode=0o700)
    main(["learn", "grant", "--example", "--home", str(home)])
    (home / "config.toml").write_text(capsys.readouterr().out, "utf-8")
    server = launch(home, short_dir / "run" / "jiyi.sock")
    yield server
    assert server.stop() == 0


def call(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    [line] = send_lines(server.socket, [json.dumps({"id": 1, "method": method, "params": params}).encode()])
    result: dict[str, Any] = json.loads(line)["result"]
    return result


def test_the_reference_worker_extracts_and_reviews_with_a_chat_endpoint(
    served: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    call(
        served,
        "interaction.remember",
        {"interaction_id": "i1", "user_text": "我每周一上午开周会", "assistant_text": "好的"},
    )
    candidate = {
        "operation": "add",
        "kind": "fact.project",
        "content": "用户每周一上午开周会",
        "quotations": ["我每周一上午开周会"],
    }
    model = FixtureModel([json.dumps(candidate), json.dumps({"verdict": "approved", "reason": "用户原话"})])
    try:
        common = [
            "--endpoint",
            model.url,
            "--model",
            "fixture",
            "--socket",
            str(served.socket),
            "--home",
            str(served.home),
            "--once",
        ]
        code, out = jiyi(capsys, "learn", "worker", "--role", "extract", *common)
        assert code == 0 and "leased 1  submitted 1  refused 0  failed 0" in out
        code, out = jiyi(capsys, "learn", "worker", "--role", "review", *common)
        assert code == 0 and "leased 1  submitted 1" in out
    finally:
        model.close()
    first, second = model.requests
    assert first["path"] == "/v1/chat/completions" and first["model"] == "fixture"
    assert first["max_tokens"] == 1024 and "tools" not in first and first["response_format"] == {"type": "json_object"}
    snapshot = json.loads(first["messages"][1]["content"])
    assert snapshot["source"]["turns"][0]["text"] == "我每周一上午开周会"
    shown = json.loads(second["messages"][1]["content"])
    assert shown["candidate"] == candidate and shown["sources"][0]["id"] == "i1"
    [record] = call(served, "learning.records.list", {})["records"]
    assert record["content"] == "用户每周一上午开周会" and record["provenance"]["reviewer"] == "worker"
    assert "用户每周一上午开周会" in call(served, "context.prepare", {"query": "周会"})["system_prompt"]


@pytest.mark.parametrize(
    ("answer", "note"),
    [
        ("好的，我记住了。", "did not answer strict JSON"),
        (
            json.dumps({"operation": "add", "kind": "fact.profile", "content": "用户开周会", "quotations": ["好的"]}),
            "refused (invalid_params)",
        ),
    ],
)
def test_a_model_answer_that_is_not_a_valid_candidate_is_never_adopted(
    served: Server, capsys: pytest.CaptureFixture[str], answer: str, note: str
) -> None:
    call(
        served,
        "interaction.remember",
        {"interaction_id": "i1", "user_text": "我每周一上午开周会", "assistant_text": "好的"},
    )
    model = FixtureModel([answer])
    try:
        args = [
            "--endpoint",
            model.url,
            "--model",
            "m",
            "--socket",
            str(served.socket),
            "--home",
            str(served.home),
            "--once",
        ]
        code, out = jiyi(capsys, "learn", "worker", "--role", "extract", *args)
    finally:
        model.close()
    assert code == 1 and note in out
    status = call(served, "learning.status", {})
    assert status["quotas"]["extractions"]["used"] == 1 and status["queue"]["extracting"] == 1  # spent, not refunded
    assert call(served, "learning.records.list", {})["records"] == []


def test_the_worker_asks_again_after_a_5xx_a_429_or_a_timeout_within_the_lease(
    served: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """One passing failure of the model does not cost the lease: the worker asks again (a 503, a 429, a
    call that times out), and the fourth answer is submitted and adopted."""
    call(
        served,
        "interaction.remember",
        {"interaction_id": "i1", "user_text": "我每周一上午开周会", "assistant_text": "好的"},
    )
    candidate = {
        "operation": "add",
        "kind": "fact.project",
        "content": "用户每周一上午开周会",
        "quotations": ["我每周一上午开周会"],
    }
    model = FixtureModel([503, 429, HANG, json.dumps(candidate)])
    try:
        args = ["--endpoint", model.url, "--model", "m", "--socket", str(served.socket), "--home", str(served.home)]
        code, out = jiyi(capsys, "learn", "worker", "--role", "extract", *args, "--once", "--timeout", "1")
    finally:
        model.close()
    assert code == 0 and "leased 1  submitted 1  refused 0  failed 0" in out, out
    assert len(model.requests) == 4
    status = call(served, "learning.status", {})
    assert status["quotas"]["extractions"]["used"] == 1 and status["queue"]["candidate"] == 1

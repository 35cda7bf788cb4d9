"""The commands while a `jiyi serve` owns the home: they go through its socket instead of refusing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.cli.main import main
from service.client import JiyiClient
from tests.json_reads import dig, items
from tests.service.conftest import Server


@pytest.fixture
def routed(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """The running service's socket is the configured one, as with `jiyi serve` and the console on one desktop."""
    monkeypatch.setenv("JIYI_SOCKET", str(server.socket))
    return server


def jiyi(home: Path, *words: str) -> list[str]:
    return [*words, "--home", str(home)]


def test_alias_learn_and_resolve_go_through_the_service(routed: Server, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(jiyi(routed.home, "alias", "learn", "绿泡泡=com.tencent.mm")) == 0
    assert "learned: 绿泡泡 → com.tencent.mm" in capsys.readouterr().out
    with JiyiClient(routed.socket, timeout=10) as agent:
        assert agent.resolve_app("绿泡泡")["package"] == "com.tencent.mm"
        history = agent.call("app.alias.history", {"name": "绿泡泡"})
    assert dig(history, "items", 0, "actor") == "user"
    assert main(jiyi(routed.home, "resolve", "绿泡泡", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["package"] == "com.tencent.mm"


def test_health_and_desk_status_are_the_services(routed: Server, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(jiyi(routed.home, "health")) == 0
    health = json.loads(capsys.readouterr().out)
    assert health["pid"] == routed.process.pid and health["home"] == str(routed.home)
    assert main(jiyi(routed.home, "desk", "status")) == 0
    assert json.loads(capsys.readouterr().out)["backlog"] == 0


def test_a_person_approves_a_lesson_through_the_service_and_an_agent_cannot(
    routed: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    with JiyiClient(routed.socket, timeout=10) as agent:
        lesson = str(agent.call("lesson.add", {"text": "先看设置"})["lesson_id"])
        refused = agent.call("lesson.approve", {"lesson_id": lesson})
    assert dig(refused, "error", "code") == "forbidden"
    assert main(jiyi(routed.home, "lesson", "approve", lesson)) == 0
    assert f"{lesson}  approved" in capsys.readouterr().out
    with JiyiClient(routed.socket, timeout=10, strict=True) as agent:
        assert dig(agent.call("lesson.list", {"status": "approved"}), "lessons", 0, "lesson_id") == lesson


def test_learn_status_and_scan_are_the_services(routed: Server, capsys: pytest.CaptureFixture[str]) -> None:
    """They refused (exit 3, "needs the home to itself") while the socket served both."""
    assert main(jiyi(routed.home, "learn", "status", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["enabled"] is False  # the service's home has no grant
    assert main(jiyi(routed.home, "learn", "status")) == 0
    assert "learning is off" in capsys.readouterr().out
    assert main(jiyi(routed.home, "learn", "scan")) == 6  # no grant: the service refuses as the home would
    assert "learning is off" in capsys.readouterr().err


def test_a_command_that_needs_the_home_itself_says_to_stop_the_service(
    routed: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(jiyi(routed.home, "recall-stats", "--export", str(routed.home / "stats.json"))) == 3
    err = capsys.readouterr().err
    assert f"pid {routed.process.pid}" in err and "stop the service first" in err
    assert routed.alive()


def test_a_service_of_another_home_is_not_used(
    routed: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    assert main(jiyi(other, "alias", "learn", "小蓝书=com.xingin.xhs")) == 0  # a command that writes makes the home
    capsys.readouterr()
    assert main(jiyi(other, "health")) == 0
    health = json.loads(capsys.readouterr().out)
    assert health["home"] == str(other) and health["pid"] != routed.process.pid


@pytest.fixture
def hashed_server(short_dir: Path, launch: Callable[..., Server], monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """A running service on the hash embedder (the model is not under test), on the configured socket."""
    running = launch(short_dir / "home", short_dir / "run" / "jiyi.sock", env={"JIYI_EMBED_MODEL": "hash"})
    monkeypatch.setenv("JIYI_SOCKET", str(running.socket))
    yield running
    assert running.stop() == 0


def test_the_rebuilds_run_as_the_services_jobs_with_the_same_progress(
    hashed_server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    with JiyiClient(hashed_server.socket, timeout=10, strict=True) as agent:
        for i in range(3):
            agent.run_start(f"r{i}", "phone1")
            agent.call("run.finish", {"run_id": f"r{i}", "outcome": {"success": True, "goal_text": f"发消息 {i}"}})
    assert main(jiyi(hashed_server.home, "rebuild-vec")) == 0
    out, err = capsys.readouterr()
    assert "indexed 3 episodes" in out
    assert (
        "indexing" in err and "3/3 items" in err
    )  # the bar a local rebuild draws (episodes, then desk items), fed by the service's job
    assert main(jiyi(hashed_server.home, "rebuild")) == 0
    out, err = capsys.readouterr()
    assert out.startswith("rebuilt ") and out.rstrip().endswith("integrity ok") and "replaying" in err
    with JiyiClient(hashed_server.socket, timeout=10, strict=True) as agent:
        jobs = items(agent.call("job.list"), "jobs")
    assert [(dig(job, "kind"), dig(job, "state")) for job in jobs] == [("rebuild", "done"), ("vectors.rebuild", "done")]
    assert hashed_server.alive()

"""`jiyi recall-stats` and `jiyi doctor` while a `jiyi serve` owns the home: asked through its socket."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli.main import main
from store.core.migrations import SCHEMA_VERSION
from tests.service.conftest import Server

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def routed(server: Server, monkeypatch: pytest.MonkeyPatch) -> Server:
    """The running service's socket is the configured one, as with `jiyi serve` on a desktop."""
    monkeypatch.setenv("JIYI_SOCKET", str(server.socket))
    return server


def test_recall_stats_asks_the_service_that_owns_the_home(routed: Server, capsys: Capsys) -> None:
    assert main(["recall-stats", "--json", "--home", str(routed.home)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["totals"]["evaluations"] == 0 and stats["daily"] == [] and stats["calibration"] == []
    assert main(["recall-stats", "--per", "day", "--home", str(routed.home)]) == 0
    assert "(nothing scored in this window)" in capsys.readouterr().out
    assert routed.alive()


def test_recall_stats_export_needs_the_home_itself_and_says_so(routed: Server, tmp_path: Path, capsys: Capsys) -> None:
    target = tmp_path / "recall_stats.json"
    assert main(["recall-stats", "--export", str(target), "--home", str(routed.home)]) == 3
    err = capsys.readouterr().err
    assert f"pid {routed.process.pid}" in err and "stop the service first" in err
    assert not target.exists() and routed.alive()


def test_doctor_reports_what_the_service_answers(routed: Server, capsys: Capsys) -> None:
    assert main(["doctor", "--home", str(routed.home)]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines()}
    assert lines["service"].startswith("ok") and f"pid {routed.process.pid}" in lines["service"]
    assert str(routed.socket) in lines["service"]
    assert lines["schema"].startswith("ok") and f"version {SCHEMA_VERSION}" in lines["schema"]
    assert lines["database"].startswith("ok") and str(routed.home) in lines["database"]
    assert routed.alive()


def test_doctor_without_a_service_checks_the_home_itself(
    home: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIYI_SOCKET", str(home.parent / "nobody-listens.sock"))
    assert main(["alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(home)]) == 0  # makes the home
    capsys.readouterr()
    assert main(["doctor", "--home", str(home)]) == 0
    checks = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
    assert checks[:2] == ["database", "schema"] and "service" not in checks

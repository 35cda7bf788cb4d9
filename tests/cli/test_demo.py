"""`jiyi demo`: its progress ends on the last run written."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli.main import main

Capsys = pytest.CaptureFixture[str]


def test_demo_progress_reports_the_last_run(tmp_path: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIYI_HOME", raising=False)
    home = tmp_path / "demo"
    assert main(["demo", "--runs", "3", "--home", str(home)]) == 0
    captured = capsys.readouterr()
    assert "3 runs" in captured.out
    assert "writing runs [" in captured.err and "3/3 runs" in " ".join(captured.err.split())

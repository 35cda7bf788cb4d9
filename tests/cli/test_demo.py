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


def test_the_demo_is_coherent_and_dream_catches_its_wrong_aliases(tmp_path: Path, capsys: Capsys) -> None:
    """Lessons cite runs of the app they are about; every wrong alias the demo's agent learned comes with the
    run that backed out of it, so `dream --dry-run` lists exactly what `dream` then corrects."""
    from service.config import load_config
    from service.memory.memory import Memory

    home = tmp_path / "demo"
    assert main(["demo", "--runs", "400", "--home", str(home)]) == 0
    capsys.readouterr()
    assert main(["dream", "--dry-run", "--home", str(home)]) == 0
    preview = capsys.readouterr().out.splitlines()[0]
    assert preview.startswith("alias_overwrites   would change ")
    would = int(preview.rsplit(" ", 1)[1])
    assert would > 0
    assert main(["dream", "--home", str(home)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"alias_overwrites   changed {would}"
    assert main(["dream", "--dry-run", "--home", str(home)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "alias_overwrites   nothing to change"
    with Memory.open(load_config(home=home)) as memory:
        for lesson in memory.lessons.list_lessons(None):
            cited = memory.lessons.lesson_runs(lesson.lesson_id).learned_from
            assert cited or lesson.apps
            for run in cited:
                apps = memory.runs.get_episode(run.run_id).apps
                assert not lesson.apps or set(lesson.apps) & set(apps), (lesson.text, apps)

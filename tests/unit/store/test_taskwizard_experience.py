"""Import and export of the reference's `memory/experience/`: lossless for clean records, corrupt lines counted."""

from __future__ import annotations

import json
from pathlib import Path

from service.memory.memory import EpisodeFilter, Memory
from store.episodes.run_event import ExperienceEvent
from store.episodes.schema import EpisodeOutcome


def clean_lines() -> list[str]:
    events = [
        ExperienceEvent.coerce(
            {
                "run_id": "r1",
                "step": s,
                "ts": 100.0 + s,
                "tool": t,
                "result_class": "ok",
                "device_scope": "device:s1",
                "note": n,
            },
            device=None,
            now=0.0,
        ).to_dict()
        for s, t, n in ((1, "launch_app", "打开小红书"), (2, "tap", None))
    ]
    outcomes = [
        EpisodeOutcome.coerce(
            {
                "run_id": run_id,
                "ts_start": 100.0,
                "ts_end": end,
                "time_of_day": "morning",
                "day_of_week": 2,
                "device_scope": "device:s1",
                "goal_text": goal,
                "apps": ["com.xingin.xhs"],
                "success": True,
                "reason": "finished",
                "steps": 2,
                "verifier": "pass",
            },
        ).to_dict()
        for run_id, end, goal in (("r1", 160.0, "搜索火锅"), ("r2", 260.0, "看视频"), ("r3", 360.0, "查天气"))
    ]
    archived = {
        "type": "episode_archived",
        "ts": 400.0,
        "run_ids": ["r3"],
        "aggregates": {
            "aggregate:system": {
                "task_category": "system",
                "episodes": 1,
                "successes": 1,
                "success_rate": 1.0,
                "ts_start": 100.0,
                "ts_end": 360.0,
            }
        },
    }
    return [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in [*events, *outcomes, archived]]


def write(root: Path, lines: list[str]) -> Path:
    folder = root / "memory" / "experience"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return root / "memory"


def test_import_then_export_gives_back_the_same_lines(memory: Memory, tmp_path: Path) -> None:
    lines = clean_lines()
    corrupt = ["{broken", '{"type": "mystery"}', '{"type": "episode_outcome", "run_id": ""}', "[]"]
    reports = memory.import_taskwizard(write(tmp_path, lines[:3] + corrupt + lines[3:]))
    report = reports["experience"]
    assert (report.imported, report.skipped) == (len(lines), len(corrupt))
    assert [e.run_id for e in memory.runs.list_episodes(EpisodeFilter())] == ["r2", "r1"]
    assert [e.tool for e in memory.runs.get_episode("r1").events] == ["launch_app", "tap"]
    counts = memory.export_taskwizard(tmp_path / "out")
    assert counts["experience"] == {"records": len(lines), "episodes": 2}
    exported = (tmp_path / "out" / "experience" / "events.jsonl").read_text("utf-8").splitlines()
    assert exported == lines
    view = json.loads((tmp_path / "out" / "experience" / "episodes.json").read_text("utf-8"))
    assert set(view) == {"r1", "r2", "aggregate:system"}


def test_goals_and_notes_come_through_an_import_verbatim(memory: Memory, tmp_path: Path) -> None:
    """The reference keeps an episode's strings as they were (字符串原文照存); so does Jiyi, both ways."""
    outcome = {**json.loads(clean_lines()[2]), "run_id": "r9", "goal_text": "联系 13800138000 问快递到哪了"}
    event = {**json.loads(clean_lines()[0]), "run_id": "r9", "note": "输入支付密码 123456"}
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in (event, outcome)]
    memory.import_taskwizard(write(tmp_path, lines))
    episode = memory.runs.get_episode("r9")
    assert episode.goal_text == "联系 13800138000 问快递到哪了"
    assert episode.events[0].note == "输入支付密码 123456"
    memory.export_taskwizard(tmp_path / "out")
    assert (tmp_path / "out" / "experience" / "events.jsonl").read_text("utf-8").splitlines() == lines


def test_importing_twice_does_nothing_the_second_time(memory: Memory, tmp_path: Path) -> None:
    folder = write(tmp_path, clean_lines())
    memory.import_taskwizard(folder)
    again = memory.import_taskwizard(folder)
    assert again["experience"].already_imported
    assert memory.runs.count_episodes() == 2

"""Import and export of the reference's `memory/experience/`: lossless for clean records, corrupt lines counted."""

from __future__ import annotations

import json
from pathlib import Path

from service.memory.memory import EpisodeFilter, Memory
from store.core.redact import Redactor
from store.episodes.run_event import ExperienceEvent
from store.episodes.schema import EpisodeOutcome


def clean_lines(redactor: Redactor) -> list[str]:
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
            redactor,
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
    lines = clean_lines(memory.redactor)
    corrupt = ["{broken", '{"type": "mystery"}', '{"type": "episode_outcome", "run_id": ""}', "[]"]
    reports = memory.import_taskwizard(write(tmp_path, lines[:3] + corrupt + lines[3:]))
    report = reports["experience"]
    assert (report.imported, report.skipped) == (len(lines), len(corrupt))
    assert [e["run_id"] for e in memory.runs.list_episodes(EpisodeFilter())] == ["r2", "r1"]
    assert [e["tool"] for e in memory.runs.get_episode("r1")["events"]] == ["launch_app", "tap"]
    counts = memory.export_taskwizard(tmp_path / "out")
    assert counts["experience"] == {"records": len(lines), "episodes": 2}
    exported = (tmp_path / "out" / "experience" / "events.jsonl").read_text("utf-8").splitlines()
    assert exported == lines
    view = json.loads((tmp_path / "out" / "experience" / "episodes.json").read_text("utf-8"))
    assert set(view) == {"r1", "r2", "aggregate:system"}


def test_sensitive_text_in_an_imported_archive_is_redacted(memory: Memory, tmp_path: Path) -> None:
    record = {
        "type": "episode_outcome",
        "schema_v": 1,
        "run_id": "r9",
        "goal_text": "打电话给13812345678",
        "ts_end": 5.0,
    }
    memory.import_taskwizard(write(tmp_path, [json.dumps(record, ensure_ascii=False)]))
    assert "13812345678" not in memory.runs.get_episode("r9")["goal_text"]


def test_importing_twice_does_nothing_the_second_time(memory: Memory, tmp_path: Path) -> None:
    folder = write(tmp_path, clean_lines(memory.redactor))
    memory.import_taskwizard(folder)
    again = memory.import_taskwizard(folder)
    assert again["experience"].already_imported
    assert memory.runs.count_episodes() == 2

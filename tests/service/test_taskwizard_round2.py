"""TaskWizard interchange, round 2, on directories in TaskWizard's formats (tests/taskwizard_memory.py): the
scorecard where TaskWizard keeps it, a compacted log imported from another path, the procedure counters of
the runs Jiyi records through its socket, and damaged views said so."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.cli.main import main
from service.client import JiyiClient
from service.config import Config
from service.memory.memory import Memory
from service.rpc.host import SocketHost
from store.appkb.kb import list_entries
from store.core.models import MetaValue
from tests.service.inprocess import in_thread, person_client
from tests.taskwizard_memory import (
    LESSON_IDS,
    _view,
    entry,
    procedure_update,
    replay_appkb,
    replay_experience,
    taskwizard_memory,
)


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    yield memory
    memory.close()


# -- 1. the scorecard where TaskWizard keeps it ---------------------------------------------------------


@pytest.mark.parametrize("stats_file", ["experience/recall_stats.json", "recall_stats.json"])
def test_the_scorecard_is_read_where_taskwizard_keeps_it_and_written_back_there(
    hashed: Memory, tmp_path: Path, stats_file: str
) -> None:
    tw = taskwizard_memory(tmp_path, runs=20, stats_file=stats_file)
    report = hashed.import_taskwizard(tw.root)["recall_stats"]
    assert (report.imported, report.source) == (1, str(tw.root / stats_file))
    totals = hashed.recall.recall_statistics()["totals"]
    assert (totals["evaluations"], totals["imported_evaluations"], totals["hits"]) == (20, 20, tw.stats["hits"])
    hashed.export_taskwizard(tmp_path / "out")
    out = tmp_path / "out"
    assert [n for n in tw.files if (tw.root / n).read_bytes() != (out / n).read_bytes()] == []
    other = "recall_stats.json" if stats_file.startswith("experience/") else "experience/recall_stats.json"
    assert not (out / other).exists()  # one scorecard, where the imported directory had it


def test_a_home_that_imported_no_scorecard_exports_it_into_experience(hashed: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    (tw.root / tw.stats_file).unlink()
    hashed.import_taskwizard(tw.root)
    hashed.recall.note_error("episode", RuntimeError("index gone"))  # something to say
    counts = hashed.export_taskwizard(tmp_path / "out")["recall_stats"]
    assert (counts["written"], counts["in_experience"]) == (1, 1)
    written = json.loads((tmp_path / "out" / "experience" / "recall_stats.json").read_text("utf-8"))
    assert (written["schema_v"], written["episode_errors"]) == (2, 1)
    assert not (tmp_path / "out" / "recall_stats.json").exists()


# -- 2. a compacted log imported from another path ------------------------------------------------------


def test_a_compacted_app_kb_moved_elsewhere_is_known_by_its_content(hashed: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    buy = entry("买菜", "com.sankuai.meituan", "user")
    tw.appkb.append(
        {"op": "alias_user_set", "entry": buy, "changed": True, "replaced": [], "ts": "2026-11-02T08:00:00+00:00"}
    )
    tw.write()
    first = tw.root / "app_kb" / "events.jsonl"
    hashed.import_taskwizard(tw.root)
    assert hashed.appkb.resolve_app("买菜").state == "resolved"
    hashed.appkb.learn_alias("红书", "com.xingin.xhs")  # Jiyi's own: not TaskWizard's to take away
    experience_events = hashed.store.count_events("experience")
    # TaskWizard forgets 买菜, then its full dream compacts the log to one upsert per live entry; the
    # directory is moved (a restore, another mount) before Jiyi reads it again.
    tw.appkb.append(
        {
            "op": "alias_forgotten",
            "term": "买菜",
            "removed": [{"kind": "user", "package": buy["package"]}],
            "ts": "2026-11-03T08:00:00+00:00",
        }
    )
    entries = replay_appkb(tw.appkb)
    tw.appkb = [{"op": "upsert", "entry": e, "ts": "2026-11-03T09:00:00+00:00"} for e in entries]
    tw.write()
    moved = tmp_path / "restored" / "memory"
    moved.parent.mkdir()
    shutil.move(tw.root, moved)
    tw.root = moved

    reports = hashed.import_taskwizard(tw.root)
    report = reports["app_kb"]
    assert (report.rewritten, report.moved_from, report.removed) == (True, str(first), 1)
    assert hashed.appkb.resolve_app("买菜").state != "resolved"
    assert hashed.appkb.resolve_app("红书").package == "com.xingin.xhs"
    # The unchanged experience log is the one imported before: nothing new, no duplicates.
    assert reports["experience"].already_imported and reports["experience"].moved_from
    assert hashed.store.count_events("experience") == experience_events
    hashed.export_taskwizard(tmp_path / "out")
    exported = json.loads((tmp_path / "out" / "app_kb" / "kb.json").read_text("utf-8"))
    assert [e for e in exported if e["term"] != "红书"] == entries
    before = hashed.store.last_seq()
    assert all(r.already_imported for r in hashed.import_taskwizard(tw.root).values())
    assert hashed.store.last_seq() == before


def test_a_directory_an_earlier_jiyi_imported_is_known_after_compaction_and_a_move(
    hashed: Memory, tmp_path: Path
) -> None:
    tw = taskwizard_memory(tmp_path)
    hashed.import_taskwizard(tw.root)
    # The progress record as Jiyi kept it before it kept what a log holds: bytes and digest only.
    with hashed.store.atomic():
        for row in MetaValue.select().where(MetaValue.key.startswith("import-progress:taskwizard:app_kb:")):
            record = {k: v for k, v in json.loads(row.value).items() if k != "identity"}
            MetaValue.update(value=json.dumps(record)).where(MetaValue.key == row.key).execute()
    entries = [e for e in replay_appkb(tw.appkb) if e["term"] != "小红薯"]  # a full dream deleted it
    tw.appkb = [{"op": "upsert", "entry": e, "ts": "2026-11-03T00:00:00+00:00"} for e in entries]
    tw.write()
    shutil.move(tw.root, tmp_path / "moved")
    report = hashed.import_taskwizard(tmp_path / "moved")["app_kb"]
    assert (report.rewritten, report.removed) == (True, 1)
    assert "小红薯" not in {e.term for e in list_entries(hashed.store)}  # the learned alias is gone


def test_another_taskwizard_directory_is_not_taken_for_a_compacted_one(hashed: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path / "phone1")
    hashed.import_taskwizard(tw.root)
    # A second phone's TaskWizard, with its own device entries and one learned alias of its own.
    other = taskwizard_memory(tmp_path / "phone2")
    other.appkb = [
        {"op": "upsert", "entry": entry(term, package, "device", "device:phone-2"), "ts": "2026-11-05T08:00:00+00:00"}
        for term, package in (
            ("微信", "com.tencent.mm"),
            ("美团", "com.sankuai.meituan"),
            ("设置", "com.android.settings"),
        )
    ]
    other.write()
    report = hashed.import_taskwizard(other.root)["app_kb"]
    assert (report.rewritten, report.removed, report.imported) == (False, 0, 3)
    assert {e.scope for e in list_entries(hashed.store)} >= {"device:emu-5554", "device:phone-2"}


def test_a_rewritten_experience_log_moved_elsewhere_is_said_rewritten(hashed: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    hashed.import_taskwizard(tw.root)
    before = hashed.store.count_events("experience")
    tw.experience = tw.experience[3:]  # rewritten: its first run gone
    tw.append_runs(range(20, 21))
    tw.write()
    moved = tmp_path / "elsewhere"
    shutil.move(tw.root, moved)
    report = hashed.import_taskwizard(moved)["experience"]
    assert (report.rewritten, report.imported, report.known) == (True, 3, len(tw.experience) - 3)
    assert hashed.store.count_events("experience") == before + 3


# -- 3. the procedure counters of Jiyi's own runs, through the socket ------------------------------------


def _run(client: JiyiClient, run_id: str, goal: str, launches: list[str]) -> None:
    client.call("run.start", {"run_id": run_id, "device": "emu-5554", "goal": goal})
    for step, package in enumerate(launches, start=1):
        event = {"run_id": run_id, "step": step, "tool": "launch_app", "result_class": "ok", "app_package": package}
        client.call("run.event", {"event": event})
    client.call("run.finish", {"run_id": run_id, "outcome": {"success": True, "steps": len(launches) + 1}})


def test_runs_through_the_socket_advance_the_procedure_counters_as_taskwizard_does(
    qtbot: QtBot, hashed: Memory, host: SocketHost, tmp_path: Path
) -> None:
    tw = taskwizard_memory(tmp_path)
    hashed.import_taskwizard(tw.root)
    hashed.lessons.set_lesson_status(LESSON_IDS[0], "approved")  # the WeChat card may be given again
    evaluations = hashed.recall.recall_statistics()["totals"]["evaluations"]

    def runs() -> None:
        with JiyiClient(host.path, timeout=30) as client:
            # The goal names 微信: its card is selected at run start (a hit); launching WeChat then selects
            # nothing more, Settings has no card of its own.
            _run(
                client,
                "jiyi-1",
                "在微信里先确认页面再点击，打开应用搜索目标",
                ["com.tencent.mm", "com.android.settings"],
            )
            # No app named; the launch selects WeChat's card for a goal far from it.
            _run(client, "jiyi-2", "查明天的天气", ["com.tencent.mm"])

    in_thread(qtbot, runs)
    selections: list[dict[str, Any]] = [
        {"lesson_id": LESSON_IDS[0], "candidates": 1, "filtered": 1, "reason": "hit"},
        {"lesson_id": None, "candidates": 1, "filtered": 0, "reason": "app_scope_mismatch"},
        {"lesson_id": None, "candidates": 1, "filtered": 1, "reason": "below_threshold"},
    ]
    expected = tw.stats
    for selection in selections:
        expected = procedure_update(expected, selection, "jiyi-2")
    counters: tuple[str, ...] = ("procedure_runs", "procedure_hits", "procedure_candidates", "procedure_filtered")
    counters += ("procedure_hit_rate", "procedure_reasons")
    totals = hashed.recall.recall_statistics()["totals"]
    assert {k: totals[k] for k in counters} == {k: expected[k] for k in counters}
    assert totals["evaluations"] == evaluations + 2
    hashed.export_taskwizard(tmp_path / "out")
    written = json.loads((tmp_path / "out" / "experience" / "recall_stats.json").read_text("utf-8"))
    assert {k: written[k] for k in counters} == {k: expected[k] for k in counters}
    assert written["procedure_runs"] == tw.stats["procedure_runs"] + 3 and written["evaluations"] == evaluations + 2
    latest = written["latest_procedure"]
    assert (latest["run_id"], latest["reason"], latest["lesson_id"], latest["selected"]) == (
        "jiyi-2",
        "below_threshold",
        None,
        False,
    )


def test_no_card_is_selected_with_recall_off(home: Path, tmp_path: Path) -> None:
    from service.config import load_config

    config = load_config(home=home, env={"JIYI_EMBED_MODEL": "hash", "JIYI_MEMORY_RAG": "off"})
    with Memory.open(config) as memory:
        memory.runs.run_start("off-1", "emu-5554", goal="打开微信")
        memory.runs.run_event(
            {"run_id": "off-1", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": "com.tencent.mm"}
        )
        memory.runs.run_finish("off-1", {"success": True})
        assert "procedure_runs" not in memory.recall.recall_statistics()["totals"]


# -- 4. a damaged view, said so ------------------------------------------------------------------------


def damage(tw: Any) -> None:
    """TaskWizard's views torn: episodes.json cut short, kb.json garbled, lessons.json not a list."""
    episodes = tw.root / "experience" / "episodes.json"
    episodes.write_bytes(episodes.read_bytes()[: len(episodes.read_bytes()) // 2])
    (tw.root / "app_kb" / "kb.json").write_text("[{oops", "utf-8")
    (tw.root / "lessons" / "lessons.json").write_text('{"lessons": 1}\n', "utf-8")


def test_damaged_views_are_reported_and_rebuilt_in_the_export(hashed: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    damage(tw)
    reports = hashed.import_taskwizard(tw.root)
    [episodes] = reports["experience"].damaged
    assert (
        episodes.startswith("experience/episodes.json is damaged (not JSON") and "rebuilt from events.jsonl" in episodes
    )
    assert reports["app_kb"].damaged[0].startswith("app_kb/kb.json is damaged (not JSON")
    assert reports["lessons"].damaged == [
        "lessons/lessons.json is damaged (not a list of lessons); rebuilt from events.jsonl"
    ]
    assert reports["experience"].imported == len(tw.experience)  # the logs are imported all the same
    hashed.export_taskwizard(tmp_path / "out")
    view = json.loads((tmp_path / "out" / "experience" / "episodes.json").read_text("utf-8"))
    assert view == replay_experience(tw.experience)
    assert (tmp_path / "out" / "app_kb" / "kb.json").read_text("utf-8") == _view(replay_appkb(tw.appkb))
    # Read again, the views are still damaged: still said, nothing imported twice.
    again = hashed.import_taskwizard(tw.root)
    assert again["experience"].already_imported and again["experience"].damaged == [episodes]


def test_a_damaged_view_is_in_the_import_jobs_result(
    qtbot: QtBot, hashed: Memory, host: SocketHost, tmp_path: Path
) -> None:
    tw = taskwizard_memory(tmp_path)
    damage(tw)

    def job() -> dict[str, Any]:
        with person_client(host.path, hashed.store.home, timeout=30) as client:  # an import is the person's
            status = client.call("job.start", {"kind": "taskwizard.import", "directory": str(tw.root)})
            deadline = time.monotonic() + 120  # a deadline for a loaded machine, not a claim about speed
            while status["state"] == "running" and time.monotonic() < deadline:
                time.sleep(0.05)
                status = client.call("job.status", {"job_id": status["job_id"]})
            return status

    status = in_thread(qtbot, job, timeout_ms=150_000)
    assert status["state"] == "done"
    outcome = status["outcome"]
    assert outcome["experience"]["damaged"][0].startswith("experience/episodes.json is damaged")
    assert outcome["app_kb"]["damaged"][0].startswith("app_kb/kb.json is damaged")
    assert outcome["experience"]["imported"] == len(tw.experience)


def test_the_cli_says_which_views_were_damaged(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tw = taskwizard_memory(tmp_path)
    damage(tw)
    assert main(["import", "taskwizard", str(tw.root), "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "warning: experience/episodes.json is damaged (not JSON" in out
    assert "warning: app_kb/kb.json is damaged (not JSON" in out
    assert f"imported {len(tw.experience)} records from {tw.root / 'experience' / 'events.jsonl'}" in out

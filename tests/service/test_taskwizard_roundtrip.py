"""A TaskWizard `memory/` directory (written in its own formats, tests/taskwizard_memory.py) imported,
exported byte for byte, imported again after TaskWizard appended or compacted, with the same recall figures."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from service.config import Config, load_config
from service.memory.memory import EpisodeFilter, Memory
from store.core.errors import Conflict
from store.episodes import recall_stats
from store.episodes.run_event import ExperienceEvent
from tests.taskwizard_memory import (
    DEVICE,
    EVENT_FIELDS,
    FILES,
    LESSON_IDS,
    OUTCOME_FIELDS,
    _view,
    evaluation,
    replay_appkb,
    replay_experience,
    replay_lessons,
    taskwizard_memory,
    update_stats,
)


def same_files(source: Path, exported: Path) -> list[str]:
    """The files of FILES whose bytes differ (empty when every one came back identical)."""
    return [name for name in FILES if (source / name).read_bytes() != (exported / name).read_bytes()]


def test_import_then_export_gives_back_all_five_files_byte_for_byte(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    reports = memory.import_taskwizard(tw.root)
    assert reports["experience"].imported == len(tw.experience)
    assert reports["app_kb"].imported == len(tw.appkb)
    assert reports["recall_stats"].imported == 1
    memory.export_taskwizard(tmp_path / "out")
    assert same_files(tw.root, tmp_path / "out") == []


def test_episodes_keep_their_text_absent_fields_and_aggregates(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    episodes = {e.run_id: e for e in memory.runs.list_episodes(EpisodeFilter(), limit=100)}
    # Episodes are verbatim: a phone number in a goal and a 支付密码 note are the person's own words.
    assert episodes["run-001"].goal_text == "联系 13800138000 问快递到哪了"
    notes = [e.note for e in memory.runs.get_episode("run-003").events]
    assert "输入支付密码前停下" in notes
    assert [e.tool for e in memory.runs.get_episode("run-003").events] == ["launch_app", "plugin_lookup-v2"]
    # A legacy outcome (written before those fields existed) does not grow them.
    legacy = episodes["run-005"]
    assert not {"capabilities", "injected_lessons", "injected_procedures", "deliverable_path"} & set(
        msgspec.to_builtins(legacy)
    )
    assert "injected_procedures" in msgspec.to_builtins(episodes["run-004"])
    memory.export_taskwizard(tmp_path / "out")
    view = json.loads((tmp_path / "out" / "experience" / "episodes.json").read_text("utf-8"))
    assert view["aggregate:communication"]["type"] == "episode_aggregate"
    assert view["aggregate:communication"]["schema_v"] == 1


def test_custom_tool_names_are_kept_within_the_wire_safe_bound() -> None:
    def tool(name: str) -> str:
        event = {"run_id": "r", "tool": name, "result_class": "ok", "device_scope": DEVICE}
        return ExperienceEvent.coerce(event, device=None, now=0.0).tool

    assert tool("plugin_lookup-v2") == "plugin_lookup-v2"
    assert tool("x" * 64) == "x" * 64
    assert tool("x" * 65) == "unknown"
    assert tool("not a valid tool name") == "unknown"


def test_importing_the_same_directory_twice_changes_nothing(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    before = memory.store.last_seq()
    again = memory.import_taskwizard(tw.root)
    assert all(r.already_imported and r.imported == 0 for r in again.values())
    assert memory.store.last_seq() == before


def test_reimport_after_appends_adds_exactly_the_new_lines(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    old_experience, old_appkb = len(tw.experience), len(tw.appkb)
    tw.append_runs(range(12, 14))
    tw.appkb.append({"op": "alias_forgotten", "term": "小红薯", "removed": [], "ts": "2026-11-02T09:00:00+00:00"})
    tw.stats = update_stats(tw.stats, evaluation(["com.tencent.mm"], ["com.tencent.mm"], [], []), "run-012")
    tw.write()

    reports = memory.import_taskwizard(tw.root)
    assert reports["experience"].imported == len(tw.experience) - old_experience == 6
    assert reports["app_kb"].imported == len(tw.appkb) - old_appkb == 1
    assert not reports["experience"].rewritten
    assert memory.runs.count_episodes() == 12  # 14 runs, two of them folded
    memory.export_taskwizard(tmp_path / "out")
    assert same_files(tw.root, tmp_path / "out") == []
    assert memory.recall.recall_statistics()["totals"]["evaluations"] == 13


def test_a_compacted_app_kb_log_is_imported_as_what_it_is_without_duplicates(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    before = memory.store.count_events("app_kb")
    # Jiyi learns an alias of its own meanwhile; it is not TaskWizard's to take away.
    memory.appkb.learn_alias("红书", "com.xingin.xhs")
    before = memory.store.count_events("app_kb")
    # TaskWizard's full dream deletes a weak entry, then compacts its log to one upsert per live entry:
    # the deletion is not in the log any more.
    entries = [e for e in replay_appkb(tw.appkb) if e["term"] != "小红薯"]
    tw.appkb = [{"op": "upsert", "entry": e, "ts": "2026-11-03T00:00:00+00:00"} for e in entries]
    tw.write()

    report = memory.import_taskwizard(tw.root)["app_kb"]
    assert report.rewritten
    assert (report.imported, report.removed) == (len(entries), 1)
    assert memory.store.count_events("app_kb") == before + len(entries) + 1
    assert memory.appkb.resolve_app("红书").package == "com.xingin.xhs"
    memory.export_taskwizard(tmp_path / "out")
    # The view is TaskWizard's own after compaction, and Jiyi's own alias.
    exported = json.loads((tmp_path / "out" / "app_kb" / "kb.json").read_text("utf-8"))
    assert [e for e in exported if e["term"] != "红书"] == entries
    # Read again, the compacted log brings nothing new.
    assert memory.import_taskwizard(tw.root)["app_kb"].already_imported
    assert memory.store.count_events("app_kb") == before + len(entries) + 1


def test_a_rewritten_experience_log_adds_only_lines_the_store_lacks(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    before = memory.store.count_events("experience")
    # A rewrite that drops the first three lines and appends two runs: only the two runs are new.
    tw.experience = tw.experience[3:]
    tw.append_runs(range(20, 22))
    tw.write()

    report = memory.import_taskwizard(tw.root)["experience"]
    assert report.rewritten
    assert (report.imported, report.known) == (6, len(tw.experience) - 6)
    assert memory.store.count_events("experience") == before + 6
    assert memory.import_taskwizard(tw.root)["experience"].already_imported


def test_recall_figures_are_taskwizards_and_continue_with_jiyis_own(config: Config, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path, runs=20)
    with Memory.open(config) as memory:
        memory.import_taskwizard(tw.root)
        totals = memory.recall.recall_statistics()["totals"]
        assert (totals["evaluations"], totals["imported_evaluations"]) == (20, 20)
        assert (totals["hits"], totals["hit_at_1_count"]) == (tw.stats["hits"], tw.stats["hit_at_1_count"])
        assert totals["contaminated_runs"] == tw.stats["contaminated_runs"]
        assert (totals["procedure_runs"], totals["procedure_hits"]) == (20, tw.stats["procedure_hits"])
        assert totals["errors"] == {"episode": 2, "app_alias": 0, "procedure": 1}
        assert "imported_evaluations" not in memory.recall.recall_statistics(since=0.0)["totals"]
        # Jiyi scores a run of its own and counts a recall failure; a fresh process still has both.
        scored = recall_stats.evaluate(["com.tencent.mm", "com.xingin.xhs"], ["com.tencent.mm"], ["com.tencent.mm"])
        trace = {"run_id": "jiyi-1", "ts": 1.0, "mode": "shadow", "evaluation": scored}
        recall_stats.record_evaluation(memory.store, trace, actor="test")
        memory.recall.note_error("episode", RuntimeError("index gone"))
    with Memory.open(config) as memory:
        assert memory.recall.errors["episode"] == 1
        assert memory.recall.recall_statistics()["totals"]["errors"]["episode"] == 3
        memory.export_taskwizard(tmp_path / "out")
    expected = update_stats(
        tw.stats, evaluation(["com.tencent.mm", "com.xingin.xhs"], ["com.tencent.mm"], ["com.tencent.mm"], []), "jiyi-1"
    )
    expected["episode_errors"] = tw.stats["episode_errors"] + 1
    assert (tmp_path / "out" / "experience" / "recall_stats.json").read_text("utf-8") == _view(expected)


LESSON_FILES = ("lessons/events.jsonl", "lessons/lessons.json", "lessons/distill_state.json")


def test_lessons_and_procedure_cards_round_trip_with_their_statuses(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    assert memory.import_taskwizard(tw.root)["lessons"].imported == len(tw.lessons)
    memory.export_taskwizard(tmp_path / "out")
    for name in LESSON_FILES:
        assert (tw.root / name).read_bytes() == (tmp_path / "out" / name).read_bytes(), name
    listed = {lesson.lesson_id: lesson for lesson in memory.lessons.list_lessons()}
    statuses = {i: listed[LESSON_IDS[i]].status for i in range(4)}
    # A demoted procedure card needs review; a superseded rule is proposed again at version 2.
    assert statuses == {0: "needs_review", 1: "proposed", 2: "approved", 3: "revoked"}
    assert (listed[LESSON_IDS[0]].kind, listed[LESSON_IDS[1]].version) == ("procedure", 2)
    assert set(memory.lessons.statuses()) >= {"needs_review", "auto_approved", "superseded", "approved"}
    assert [row.lesson_id for row in memory.lessons.list_lessons("needs_review")] == [LESSON_IDS[0]]


def test_a_persons_decision_on_an_imported_card_is_exported_in_taskwizards_shape(
    memory: Memory, tmp_path: Path
) -> None:
    tw = taskwizard_memory(tmp_path)
    memory.import_taskwizard(tw.root)
    with pytest.raises(Conflict, match="only a proposed or needs_review"):
        memory.lessons.set_lesson_status(LESSON_IDS[3], "approved")  # revoked stays revoked, as in TaskWizard
    assert memory.lessons.set_lesson_status(LESSON_IDS[0], "approved").status == "approved"
    memory.export_taskwizard(tmp_path / "out")
    lines = (tmp_path / "out" / "lessons" / "events.jsonl").read_text("utf-8").splitlines()
    decision = json.loads(lines[-1])
    assert lines[-1] == json.dumps(decision, ensure_ascii=False, sort_keys=True)
    assert {k: decision[k] for k in ("type", "schema_v", "lesson_id", "version")} == {
        "type": "lesson_approved",
        "schema_v": 1,
        "lesson_id": LESSON_IDS[0],
        "version": 1,
    }
    view = (tmp_path / "out" / "lessons" / "lessons.json").read_text("utf-8")
    assert view == _view(replay_lessons([*tw.lessons, decision]))


def test_a_lesson_line_naming_a_phone_number_is_kept_redacted(memory: Memory, tmp_path: Path) -> None:
    tw = taskwizard_memory(tmp_path)
    tw.lessons.append(
        {
            "type": "lesson_revoked",
            "schema_v": 1,
            "ts": 1.0,
            "lesson_id": LESSON_IDS[2],
            "version": 1,
            "reason": "打 13800138000 确认",
        }
    )
    tw.write()
    memory.import_taskwizard(tw.root)
    memory.export_taskwizard(tmp_path / "out")
    exported = (tmp_path / "out" / "lessons" / "events.jsonl").read_text("utf-8")
    assert "13800138000" not in exported and "[redacted:mobile]" in exported
    assert memory.lessons.list_lessons("revoked")[0].lesson_id in (LESSON_IDS[2], LESSON_IDS[3])
    # A rewritten log (one line dropped) of lines all imported: the redacted one is known by its digest.
    tw.lessons = [e for e in tw.lessons if e["type"] != "lesson_demoted"]
    tw.write()
    report = memory.import_taskwizard(tw.root)["lessons"]
    assert report.rewritten and report.imported == 0 and report.known == len(tw.lessons)


def test_lines_jiyi_writes_follow_taskwizards_schema_and_its_replay_gives_the_same_view(
    home: Path, tmp_path: Path
) -> None:
    tw = taskwizard_memory(tmp_path)
    config = load_config(home=home, env={"JIYI_EPISODE_KEEP": "5", "JIYI_EMBED_MODEL": "hash"})
    with Memory.open(config) as memory:
        memory.import_taskwizard(tw.root)
        memory.runs.run_start("jiyi-run", "emu-5554", goal="打开设置调亮度")
        launch = {"run_id": "jiyi-run", "step": 1, "tool": "launch_app", "result_class": "ok"}
        memory.runs.run_event({**launch, "app_package": "com.android.settings"})
        memory.runs.run_finish("jiyi-run", {"success": True, "steps": 3})
        memory.dream.run()  # folds into TaskWizard's aggregates, adding to its own
        memory.export_taskwizard(tmp_path / "out")
    lines = (tmp_path / "out" / "experience" / "events.jsonl").read_text("utf-8").splitlines()
    assert lines[: len(tw.experience)] == tw.experience
    own = [json.loads(line) for line in lines[len(tw.experience) :]]
    assert [r["type"] for r in own] == ["experience_event", "episode_outcome", "episode_archived"]
    for line, record in zip(lines[len(tw.experience) :], own, strict=True):
        assert line == json.dumps(record, ensure_ascii=False)  # TaskWizard's json.dumps settings
    assert tuple(own[0]) == EVENT_FIELDS
    # Jiyi injects no procedure cards: its outcome has every field but that one, in TaskWizard's order.
    assert tuple(own[1]) == tuple(f for f in OUTCOME_FIELDS if f != "injected_procedures")
    assert tuple(own[2])[:5] == ("type", "schema_v", "ts", "run_ids", "aggregates")
    folded = own[2]["aggregates"]
    assert folded["communication"]["episodes"] > 2 and folded["communication"]["type"] == "episode_aggregate"
    view = json.loads((tmp_path / "out" / "experience" / "episodes.json").read_text("utf-8"))
    assert replay_experience(lines) == view
    # The fixture's runs are older than the 90 days an episode is kept: all but Jiyi's run were folded.
    assert [k for k in view if not k.startswith("aggregate:")] == ["jiyi-run"]


def test_jiyis_own_lessons_are_exported_as_taskwizard_proposals_it_can_replay(memory: Memory, tmp_path: Path) -> None:
    first = memory.lessons.add_lesson("先回到桌面再打开应用", ["com.xingin.xhs"])
    second = memory.lessons.add_lesson("搜索前先清空输入框")
    memory.lessons.set_lesson_status(first.lesson_id, "approved")
    memory.lessons.set_lesson_status(second.lesson_id, "revoked")
    memory.export_taskwizard(tmp_path / "out")
    lines = (tmp_path / "out" / "lessons" / "events.jsonl").read_text("utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["type"] for e in events] == ["lesson_proposed", "lesson_proposed", "lesson_approved", "lesson_revoked"]
    assert all(line == json.dumps(e, ensure_ascii=False, sort_keys=True) for line, e in zip(lines, events, strict=True))
    proposal = events[0]["lesson"]
    assert proposal["scope"]["app"] == "com.xingin.xhs" and proposal["support_count"] == len(proposal["evidence"])
    view = (tmp_path / "out" / "lessons" / "lessons.json").read_text("utf-8")
    assert view == _view(replay_lessons(events))
    assert [e["status"] for e in json.loads(view)] == ["approved", "revoked"]

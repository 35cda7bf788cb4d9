"""Alias correction from run evidence: every signature case the reference names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import load_config
from service.memory.memory import Memory

WRONG, RIGHT = "com.ss.android.ugc.aweme.lite", "com.ss.android.ugc.aweme"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    """Dream is manual here: these tests call the correction themselves."""
    opened = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_DREAM": "manual"}))
    yield opened
    opened.close()


def launch(memory: Memory, run_id: str, step: int, package: str, name: str | None = None, note: str = "") -> None:
    event = {
        "run_id": run_id,
        "step": step,
        "tool": "launch_app",
        "result_class": "ok",
        "app_package": package,
        "note": note,
    }
    memory.runs.run_event(event, launch_name=name)


def back(memory: Memory, run_id: str, step: int, note: str) -> None:
    memory.runs.run_event({"run_id": run_id, "step": step, "tool": "back", "result_class": "ok", "note": note})


def learned(memory: Memory, term: str) -> list[str]:
    return [e.package for e in memory.appkb.list_aliases(kind="learned") if e.term == term]


def wrong_then_right(memory: Memory, run_id: str = "r1", gap: int = 1, note: str = "开错了，退出") -> None:
    memory.runs.run_start(run_id, "d1")
    launch(memory, run_id, 1, WRONG, "抖抖")
    back(memory, run_id, 1 + gap, note)
    launch(memory, run_id, 2 + gap, RIGHT, None)
    memory.runs.run_finish(run_id, {"success": True})


def test_a_wrong_learned_alias_is_overwritten_once(memory: Memory) -> None:
    memory.runs.run_start("r0", "d1")
    launch(memory, "r0", 1, WRONG, "抖抖")  # learned by label: 抖抖 → lite (wrong)
    memory.runs.run_finish("r0", {"success": True})
    assert learned(memory, "抖抖") == [WRONG]
    wrong_then_right(memory)
    preview = memory.appkb.correct_aliases(dry_run=True)
    assert [c["action"] for c in preview] == ["overwrite"] and learned(memory, "抖抖") == [WRONG]
    [done] = memory.appkb.correct_aliases()
    assert done["action"] == "overwrite" and done["marker"] == "开错" and done["new_package"] == RIGHT
    assert learned(memory, "抖抖") == [RIGHT]
    event = [e for e in memory.store.events("app_kb", types=["alias_overwritten"])][-1]
    assert event.payload["old_package"] == WRONG and event.payload["signature_fingerprint"] == done["fingerprint"]
    assert [c["action"] for c in memory.appkb.correct_aliases()] == ["handled"]  # a second pass changes nothing


def test_outside_the_step_gap_nothing_happens(memory: Memory) -> None:
    wrong_then_right(memory, gap=3)
    assert memory.appkb.correct_aliases() == []


def test_without_a_marker_word_nothing_happens(memory: Memory) -> None:
    wrong_then_right(memory, note="返回上一页")
    assert memory.appkb.correct_aliases() == []


def test_a_user_alias_is_never_overwritten(memory: Memory) -> None:
    memory.appkb.learn_alias("抖抖", WRONG)
    wrong_then_right(memory)
    assert [c["action"] for c in memory.appkb.correct_aliases()] == ["user_alias"]
    assert [e.package for e in memory.appkb.list_aliases(kind="user")] == [WRONG]


def test_evidence_split_across_two_runs_is_no_signature(memory: Memory) -> None:
    memory.runs.run_start("a", "d1")
    launch(memory, "a", 1, WRONG, "抖抖")
    back(memory, "a", 2, "不对")
    memory.runs.run_finish("a", {"success": True})
    memory.runs.run_start("b", "d1")
    launch(memory, "b", 3, RIGHT, None)
    memory.runs.run_finish("b", {"success": True})
    assert memory.appkb.correct_aliases() == []


def test_only_the_marker_word_is_kept_never_the_note(memory: Memory) -> None:
    wrong_then_right(memory, note="wrong app, my phone is 13812345678")
    observed = [e.payload for e in memory.store.events("app_kb", types=["tool_observed"])]
    assert {p.get("note_marker") for p in observed} == {None, "wrong app"}
    assert all("13812345678" not in str(p) for p in observed)


def test_a_sensitive_term_is_blanked(memory: Memory) -> None:
    memory.runs.run_start("s", "d1")
    launch(memory, "s", 1, WRONG, "13812345678")
    observed = [e.payload for e in memory.store.events("app_kb", types=["tool_observed"])]
    assert "term" not in observed[-1]

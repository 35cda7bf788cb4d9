"""Lessons: proposed by anyone, approved only by a person, given to agents only in `on` mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import load_config
from service.errors import Conflict, InvalidInput, NotFound
from service.memory.memory import Memory
from store.core.errors import Forbidden


def test_only_a_person_approves_and_on_mode_gives_approved_lessons_only(tmp_path: Path) -> None:
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_MEMORY_RAG": "on"}
    with Memory.open(load_config(home=tmp_path / "h", env=env)) as memory:
        general = memory.lessons.add_lesson("启动应用前先回到桌面", actor="agent")
        xhs = memory.lessons.add_lesson("小红书搜索框在首页顶部", ["com.xingin.xhs"], actor="agent")
        memory.lessons.add_lesson("这条没人批准", actor="agent")
        with pytest.raises(Forbidden):
            memory.lessons.set_lesson_status(general.lesson_id, "approved", actor="agent")
        memory.lessons.set_lesson_status(general.lesson_id, "approved", actor="user")
        memory.lessons.set_lesson_status(xhs.lesson_id, "approved", actor="user")
        with pytest.raises(Conflict):
            memory.lessons.set_lesson_status(xhs.lesson_id, "approved", actor="user")
        started = memory.runs.run_start("r1", "d1", goal="打开小红书看看")
        assert [g["lesson_id"] for g in started["lessons"]] == [xhs.lesson_id, general.lesson_id]
        assert "candidates" not in started["recall"]  # recalled episodes never go to the agent
        episode = memory.runs.run_finish("r1", {"success": True})["episode"]
        assert episode is not None
        assert episode["injected_lessons"] == [xhs.lesson_id, general.lesson_id]
        memory.lessons.set_lesson_status(xhs.lesson_id, "revoked", actor="agent")
        again = memory.runs.run_start("r2", "d1", goal="打开小红书看看")
        assert [g["lesson_id"] for g in again["lessons"]] == [general.lesson_id]
        memory.store.rebuild()
        assert {row.status for row in memory.lessons.list_lessons()} == {"approved", "revoked", "proposed"}


def test_shadow_mode_gives_no_lessons(memory: Memory) -> None:
    lesson = memory.lessons.add_lesson("先回到桌面")
    memory.lessons.set_lesson_status(lesson.lesson_id, "approved")
    assert "lessons" not in memory.runs.run_start("r1", "d1")


def test_bad_lessons_are_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.lessons.add_lesson("   ")
    with pytest.raises(InvalidInput):
        memory.lessons.add_lesson("长" * 900)
    with pytest.raises(InvalidInput):
        memory.lessons.add_lesson("ok", ["not a package"])
    with pytest.raises(NotFound):
        memory.lessons.set_lesson_status("les_000000000000", "approved")
    assert "[redacted:mobile]" in memory.lessons.add_lesson("遇到问题打13812345678").text

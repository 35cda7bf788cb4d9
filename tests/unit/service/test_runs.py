"""A run's lifecycle on `Memory`: archive, fill-ins, fail-open."""

from __future__ import annotations

import pytest

from service.memory.memory import EpisodeFilter, Memory

INSTALLED = [("com.xingin.xhs", "小红书"), ("com.tencent.mm", "微信")]


def test_a_run_is_archived_with_what_jiyi_saw(memory: Memory) -> None:
    memory.runs.run_start("r1", "d1", goal="在小红书搜索火锅", installed=INSTALLED)
    memory.runs.run_event(
        {"run_id": "r1", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": "com.xingin.xhs"},
        launch_name="小红书",
    )
    memory.runs.run_event({"run_id": "r1", "step": 4, "tool": "type_text", "result_class": "ok", "intent": "输入 火锅"})
    finished = memory.runs.run_finish("r1", {"success": True, "tokens_total": 1200, "verifier": "pass"})
    assert finished["archived"] is True and finished["known"] is True
    episode = memory.runs.get_episode("r1")
    assert episode.goal_text == "在小红书搜索火锅"
    assert episode.apps == ["com.xingin.xhs"] and episode.steps == 4
    assert episode.device_scope == "device:d1" and episode.success is True
    assert [e.tool for e in episode.events] == ["launch_app", "type_text"]
    assert memory.health()["episodes"] == 1


def test_the_agents_outcome_wins_over_fill_ins(memory: Memory) -> None:
    memory.runs.run_start("r2", "d1", goal="x")
    memory.runs.run_finish("r2", {"apps": ["com.tencent.mm"], "steps": 9, "goal_text": "agent's own goal"})
    episode = memory.runs.get_episode("r2")
    assert (episode.apps, episode.steps, episode.goal_text) == (["com.tencent.mm"], 9, "agent's own goal")


def test_a_known_run_without_an_outcome_is_archived_as_not_reported(memory: Memory) -> None:
    memory.runs.run_start("r3", "d1")
    memory.runs.run_finish("r3")
    episode = memory.runs.get_episode("r3")
    assert (episode.success, episode.reason) == (False, "not_reported")
    assert memory.runs.run_finish("never-started")["archived"] is False


def test_archiving_fails_open(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from store.episodes import archive as episodes

    def broken(*_args: object, **_kwargs: object) -> int:
        raise OSError("disk full")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    monkeypatch.setattr(episodes, "record_outcome", broken)
    monkeypatch.setattr(episodes, "record_event", broken)
    memory.runs.run_start("r4", "d1")
    event = memory.runs.run_event({"run_id": "r4", "step": 1, "tool": "tap", "result_class": "ok"})
    finished = memory.runs.run_finish("r4", {"success": True})
    assert event["archived"] is False and finished["archived"] is False
    assert memory.health()["archive_failures"] == 2
    assert "disk full" in caplog.text


def test_revoke_restore_and_listing(memory: Memory) -> None:
    for i in range(3):
        memory.runs.run_start(f"r{i}", "d1", goal=f"任务{i}")
        memory.runs.run_finish(f"r{i}", {"success": True})
    memory.runs.revoke_episode("r1", reason="launched the wrong app")
    assert [e.run_id for e in memory.runs.list_episodes(EpisodeFilter(revoked=False))] == ["r2", "r0"]
    memory.runs.restore_episode("r1")
    assert memory.runs.count_episodes(EpisodeFilter(revoked=True)) == 0


def test_runs_never_finished_are_abandoned_oldest_first_past_the_limit(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.memory import runs

    monkeypatch.setattr(runs, "MAX_RUNS_UNDER_WAY", 3)
    for n in range(5):
        memory.runs.run_start(f"lost-{n}", "d1", goal="打开微信")
    memory.runs.run_start("lost-2", "d1", goal="restarted: to the back of the line")
    memory.runs.run_start("fresh", "d1")
    assert memory.runs.active_runs() == ["lost-4", "lost-2", "fresh"]
    assert memory.health()["abandoned_runs"] == 3
    # An abandoned run that finishes after all is archived with what it reports, not Jiyi's fill-ins.
    finished = memory.runs.run_finish("lost-0", {"success": True, "goal_text": "打开微信"})
    assert (finished["archived"], finished["known"]) == (True, False)
    assert memory.runs.run_finish("lost-4", {"success": True})["known"] is True


def test_one_long_run_keeps_bounded_evidence(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from service.memory import runs

    monkeypatch.setattr(runs, "MAX_LAUNCHED_PER_RUN", 2)
    monkeypatch.setattr(runs, "MAX_OBSERVED_PER_RUN", 4)
    memory.runs.run_start("long", "d1")
    for step in range(1, 11):
        package = f"com.example.app{step}"
        memory.runs.run_event(
            {"run_id": "long", "step": step, "tool": "launch_app", "result_class": "ok", "app_package": package},
            launch_name=f"应用{step}",
        )
    state = memory.runs._runs["long"]
    assert state.launched == ["com.example.app1", "com.example.app2"]
    assert len(state.observed) == 4 and state.steps == 10
    # Every receipt is archived all the same: the bound is on what the run keeps in memory.
    memory.runs.run_finish("long", {"success": True})
    assert len(memory.runs.get_episode("long").events) == 10


def test_implicit_alias_evidence_is_bounded_for_runs_nobody_started() -> None:
    from store.appkb import implicit_alias

    evidence = implicit_alias.ImplicitAliasEvidence()
    message = "no app named that; did you mean com.tencent.mm?"
    for n in range(implicit_alias.MAX_RUNS + 10):
        evidence.note_failure(f"ghost-{n}", "微心", message)
    runs_kept = evidence.active_runs()
    assert len(runs_kept) == implicit_alias.MAX_RUNS and runs_kept[0] == "ghost-10"
    for n in range(implicit_alias.MAX_NAMES_PER_RUN + 5):
        evidence.note_failure("busy", f"名字{n}", message)
    assert evidence.names_for("busy", "com.tencent.mm")[0] == "名字5"
    assert len(evidence.names_for("busy", "com.tencent.mm")) == implicit_alias.MAX_NAMES_PER_RUN

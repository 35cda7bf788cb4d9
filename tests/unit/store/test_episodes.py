"""The episode archive: the reference's schema, the view, revocation, folding records, replay."""

from __future__ import annotations

from datetime import datetime

import pytest

from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.episodes import archive as episodes
from store.episodes.episode_filter import EpisodeFilter
from store.episodes.folding import fold
from store.episodes.run_event import ExperienceEvent
from store.episodes.schema import EpisodeOutcome

TS = datetime(2026, 11, 2, 14, 30).timestamp()  # a Monday afternoon, local time


def outcome(run_id: str = "r1", **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "run_id": run_id,
        "ts_start": TS,
        "ts_end": TS + 60,
        "device_scope": "device:d1",
        "goal_text": "打开小红书搜索火锅",
        "apps": ["com.xingin.xhs"],
        "success": True,
        "reason": "finished",
        "steps": 6,
        "verifier": "pass",
    }
    base.update(extra)
    return base


def test_outcome_keeps_the_schema_and_coerces_the_rest() -> None:
    record = EpisodeOutcome.coerce(
        outcome(
            apps=["com.xingin.xhs", "com.xingin.xhs", "not a package", 5],
            steps=-4,
            tokens_total="many",
            tokens_by_role={"actor": 100, "spy": 5, "verifier": -1},
            verifier="maybe",
            capabilities={"memory_rag": "shadow", "Bad-Id": "on", "dream": "sometimes"},
            injected_lessons=["les_0123456789ab", "les_0123456789ab", "lesson-1"],
            deliverable_path="",
            secret_field="never stored",
            screenshot="base64…",
        ),
    ).to_dict()
    assert record["apps"] == ["com.xingin.xhs"]
    assert (record["steps"], record["tokens_total"], record["verifier"]) == (0, 0, "skipped")
    assert record["tokens_by_role"] == {"actor": 100, "verifier": 0}
    assert record["capabilities"] == {"memory_rag": "shadow"}
    assert record["injected_lessons"] == ["les_0123456789ab"]
    assert record["deliverable_path"] is None
    assert (record["time_of_day"], record["day_of_week"]) == ("afternoon", 0)
    assert "secret_field" not in record and "screenshot" not in record
    assert (record["type"], record["schema_v"]) == ("episode_outcome", 1)


def test_outcome_keeps_its_strings_verbatim() -> None:
    """Episodes keep what the agent reported, as the reference does (字符串原文照存); nothing is redacted."""
    record = EpisodeOutcome.coerce(
        outcome(goal_text="联系 13800138000 问快递到哪了", reason="验证码 482913 不对", takeover="支付密码 需要本人")
    )
    assert record.goal_text == "联系 13800138000 问快递到哪了"
    assert (record.reason, record.takeover) == ("验证码 482913 不对", "支付密码 需要本人")


@pytest.mark.parametrize("bad", [None, "", 5, "x" * 200, "a\nb"])
def test_outcome_needs_a_run_id(bad: object) -> None:
    with pytest.raises(InvalidInput, match="run_id"):
        EpisodeOutcome.coerce(outcome(run_id=bad))  # type: ignore[arg-type]


def test_experience_event_folds_its_text_and_keeps_it_verbatim() -> None:
    event = ExperienceEvent.coerce(
        {
            "run_id": "r1",
            "step": 2,
            "tool": "type_text",
            "result_class": "ok",
            "intent": "输入\n\n 手机号 13812345678",
            "note": "长" * 500,
        },
        device="d1",
        now=1.0,
    )
    assert event.intent == "输入 手机号 13812345678"
    assert event.note == "长" * 200
    assert event.device_scope == "device:d1"


def test_archive_list_get_and_filters(store: Store) -> None:
    for i in range(5):
        episodes.record_outcome(
            store,
            EpisodeOutcome.coerce(
                outcome(f"r{i}", ts_end=TS + i, success=i % 2 == 0, apps=["com.a.b"] if i < 3 else ["com.c.d"]),
            ),
            actor="agent",
        )
    episodes.record_event(
        store, ExperienceEvent.coerce({"run_id": "r1", "step": 2, "tool": "tap"}, device="d1", now=1.0), actor="agent"
    )
    episodes.record_event(
        store,
        ExperienceEvent.coerce({"run_id": "r1", "step": 1, "tool": "launch_app"}, device="d1", now=1.0),
        actor="agent",
    )
    assert [e.run_id for e in episodes.list_episodes(store, EpisodeFilter())] == ["r4", "r3", "r2", "r1", "r0"]
    assert [e.run_id for e in episodes.list_episodes(store, EpisodeFilter(app="com.a.b"), limit=2, offset=1)] == [
        "r1",
        "r0",
    ]
    assert episodes.count_episodes(store, EpisodeFilter(success=True)) == 3
    assert episodes.count_episodes(store, EpisodeFilter(text="火锅", device="d1", since=TS + 3)) == 2
    detail = episodes.get_episode(store, "r1")
    assert [e.tool for e in detail.events] == ["launch_app", "tap"]
    with pytest.raises(NotFound):
        episodes.get_episode(store, "nope")


def test_a_later_outcome_for_a_run_replaces_the_earlier(store: Store) -> None:
    episodes.record_outcome(store, EpisodeOutcome.coerce(outcome(success=False, reason="takeover")), actor="agent")
    episodes.record_outcome(store, EpisodeOutcome.coerce(outcome(success=True)), actor="agent")
    [only] = episodes.list_episodes(store, EpisodeFilter())
    assert only.success is True and only.reason == "finished"


def test_revoke_and_restore_are_events_that_survive_rebuild(store: Store) -> None:
    episodes.record_outcome(store, EpisodeOutcome.coerce(outcome()), actor="agent")
    episodes.set_revoked(store, "r1", True, actor="user", reason="wrong app")
    assert episodes.count_episodes(store, EpisodeFilter(revoked=True)) == 1
    store.rebuild()
    assert episodes.get_episode(store, "r1").revoked is True
    episodes.set_revoked(store, "r1", False, actor="user")
    assert episodes.get_episode(store, "r1").revoked is False
    types = [e.type for e in store.events("experience", subject="r1")]
    assert types == ["episode_outcome", "episode_revoked", "episode_restored"]
    with pytest.raises(NotFound):
        episodes.set_revoked(store, "nope", True, actor="user")


def test_archived_records_fold_episodes_into_aggregates(store: Store) -> None:
    for run_id in ("r1", "r2", "r3"):
        episodes.record_outcome(store, EpisodeOutcome.coerce(outcome(run_id)), actor="agent")
    folded = {
        "ts": TS,
        "run_ids": ["r1", "r2"],
        "aggregates": {
            "aggregate:media": {
                "task_category": "media",
                "episodes": 2,
                "successes": 2,
                "success_rate": 1.0,
                "ts_start": TS,
                "ts_end": TS + 60,
            }
        },
    }
    with store.atomic():
        store.append("experience", "episode_archived", folded, actor="system")
    view = episodes.episode_view(store)
    assert set(view) == {"r3", "aggregate:media"}
    assert view["aggregate:media"]["episodes"] == 2
    store.rebuild()
    assert set(episodes.episode_view(store)) == {"r3", "aggregate:media"}


def test_live_pages_and_the_runs_changed_after_a_seq(store: Store) -> None:
    # What `rebuild-vec` reads: live episodes by run id, a page at a time, and the runs changed since it began.
    for i in range(7):
        episodes.record_outcome(store, EpisodeOutcome.coerce(outcome(f"r{i}")), actor="agent")
    episodes.set_revoked(store, "r3", True, actor="user")
    pages = list(episodes.live_pages(store, page=2))
    assert [[r["run_id"] for r in p] for p in pages] == [["r0", "r1"], ["r2", "r4"], ["r5", "r6"]]
    start = store.last_seq("experience")
    assert episodes.runs_changed_after(store, start) == (set(), start)
    tap = ExperienceEvent.coerce({"run_id": "r1", "step": 1, "tool": "tap"}, device="d1", now=TS)
    episodes.record_event(store, tap, actor="agent")
    episodes.set_revoked(store, "r4", True, actor="user")
    episodes.record_outcome(store, EpisodeOutcome.coerce(outcome("r9")), actor="agent")
    fold(store, {"type": "episode_archived", "schema_v": 1, "run_ids": ["r0"], "aggregates": {}}, actor="system")
    changed, last = episodes.runs_changed_after(store, start)
    assert changed == {"r4", "r9", "r0"} and last == store.last_seq("experience")  # a tool receipt changes nothing
    current = episodes.current_records(store, sorted(changed))
    assert set(current) == {"r4", "r9"} and current["r4"]["revoked"] and not current["r9"]["revoked"]


def test_keyset_pages_neither_repeat_nor_skip_a_row_while_runs_arrive(store: Store) -> None:
    """Paged by `(ts_end, run_id)` after the last row held, a newer run archived between two pages shifts
    nothing (by offset the first page's last row came again); runs ending at the same second keep run order."""

    def archive(run_id: str, ts_end: float) -> None:
        episodes.record_outcome(store, EpisodeOutcome.coerce(outcome(run_id, ts_end=ts_end)), actor="agent")

    for i in range(6):
        archive(f"r{i}", TS + i // 2)  # two runs end in each second
    first = episodes.list_episodes(store, EpisodeFilter(), limit=3)
    archive("newer", TS + 100)
    after = episodes.episode_key(first[-1])
    second = episodes.list_episodes(store, EpisodeFilter(), limit=3, after=after)
    assert [r.run_id for r in first + second] == ["r5", "r4", "r3", "r2", "r1", "r0"]
    by_offset = episodes.list_episodes(store, EpisodeFilter(), limit=3, offset=3)
    assert by_offset[0].run_id == "r3"  # what keyset paging avoids: the row already shown, again
    assert episodes.list_episodes(store, EpisodeFilter(text="火锅"), limit=10, after=(0.0, "")) == []

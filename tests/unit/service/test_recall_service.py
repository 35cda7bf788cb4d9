"""Shadow recall in the run lifecycle, statistics by the reference's definitions, rebuild-vec."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import load_config
from service.memory.memory import Memory
from store.episodes.recall_stats import evaluate


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    now = time.time()
    memory.runs.archive_episodes(
        [
            {
                "run_id": f"h{i}",
                "ts_end": now - 3600,
                "device_scope": "device:d1",
                "goal_text": goal,
                "apps": [package],
                "success": True,
                "steps": 3,
            }
            for i, (goal, package) in enumerate(
                [
                    ("在小红书搜索火锅店", "com.xingin.xhs"),
                    ("在小红书搜索火锅店推荐", "com.xingin.xhs"),
                    ("美团点外卖", "com.sankuai.meituan"),
                ]
            )
        ]
    )
    yield memory
    memory.close()


def test_evaluation_follows_the_reference() -> None:
    e = evaluate(["a.b.c", "d.e.f"], ["a.b.c"], ["d.e.f"])
    assert (e["hit"], e["hit_at_1"], e["contaminated_run"]) == (True, False, True)
    assert (e["package_true_positives"], e["package_predictions"], e["package_actuals"]) == (1, 2, 1)
    assert (e["package_precision"], e["package_recall"]) == (0.5, 1.0)
    empty = evaluate([], [], ["x.y.z"])
    assert (empty["hit"], empty["contaminated_run"], empty["package_precision"]) == (False, False, 0.0)


def launched(memory: Memory, run_id: str, package: str) -> None:
    """A confirmed launch receipt: what a run's recall is scored against."""
    event = {"run_id": run_id, "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": package}
    memory.runs.run_event(event)


def test_shadow_recall_is_logged_never_returned_and_scored_at_run_end(hashed: Memory) -> None:
    started = hashed.runs.run_start("q1", "d1", goal="搜索火锅店")
    assert started["recall"]["status"] == "ok" and "candidates" not in started["recall"]
    launched(hashed, "q1", "com.xingin.xhs")
    finished = hashed.runs.run_finish("q1", {"success": True, "apps": ["com.xingin.xhs"], "steps": 0})
    evaluation = finished["recall_evaluation"]
    assert evaluation is not None and evaluation["hit_at_1"] is True
    assert finished["indexed"] is False  # below the quality gate
    hashed.runs.run_start("q2", "d1", goal="搜索火锅店")
    launched(hashed, "q2", "com.dianping.v1")
    hashed.runs.run_finish("q2", {"success": True, "apps": ["com.dianping.v1"], "steps": 0})
    hashed.runs.run_start("q3", "d1", goal="给妈妈打个电话")
    launched(hashed, "q3", "com.android.contacts")
    hashed.runs.run_finish("q3", {"success": True, "apps": ["com.android.contacts"], "steps": 0})
    totals = hashed.recall.recall_statistics()["totals"]
    assert totals["evaluations"] == 3 and totals["recall_runs"] == 2 and totals["hits"] == 1
    assert totals["contaminated_runs"] == 1 and totals["contaminated_run_rate"] == round(1 / 3, 4)
    assert totals["conditional_hit_rate"] == 0.5 and totals["abstain_rate"] == round(1 / 3, 4)
    packages = {p["package"]: p for p in hashed.recall.recall_statistics()["packages"]}
    assert packages["com.xingin.xhs"]["precision"] == 0.5 and packages["com.dianping.v1"]["recall"] == 0.0
    assert len(hashed.recall.recall_statistics()["daily"]) == 1
    runs = hashed.recall.recall_runs(0, time.time() + 10)
    assert {r.run_id for r in runs} == {"q1", "q2", "q3"}


def test_the_mode_off_recalls_nothing(tmp_path: Path) -> None:
    with Memory.open(
        load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash", "JIYI_MEMORY_RAG": "off"})
    ) as memory:
        assert memory.runs.run_start("q", "d1", goal="搜索火锅店")["recall"]["status"] == "off"
        assert memory.runs.run_finish("q", {"success": True})["recall_evaluation"] is None


def test_a_finished_run_joins_the_index_and_a_revoked_one_leaves_it(hashed: Memory) -> None:
    hashed.runs.run_start("n1", "d1", goal="买一台新的液晶电视机")
    assert (
        hashed.runs.run_finish("n1", {"success": True, "apps": ["com.jingdong.app.mall"], "steps": 5})["indexed"]
        is True
    )
    assert hashed.recall.recall_query("买一台新的液晶电视机", "d1").top1_apps == ["com.jingdong.app.mall"]
    hashed.runs.revoke_episode("n1")
    assert "com.jingdong.app.mall" not in hashed.recall.recall_query("买一台新的液晶电视机", "d1").recalled_apps
    hashed.runs.restore_episode("n1")
    assert hashed.recall.recall_query("买一台新的液晶电视机", "d1").top1_apps == ["com.jingdong.app.mall"]


def test_rebuild_vec_reindexes_everything_live(hashed: Memory) -> None:
    hashed.runs.revoke_episode("h2")
    seen: list[tuple[int, int]] = []
    result = hashed.recall.rebuild_vectors(progress=lambda done, total: seen.append((done, total)))
    assert result["episodes"] == 2 and result["embedded"] == 2 and seen[-1] == (2, 2)
    assert hashed.recall.recall_query("在小红书搜索火锅店", "d1").top1_apps == ["com.xingin.xhs"]


def test_actual_apps_are_confirmed_launches_only(hashed: Memory) -> None:
    # The outcome names the app, but no launch of it was confirmed: the recall did not hit, and what it
    # recalled contaminated the run (the reference's definition).
    hashed.runs.run_start("q1", "d1", goal="搜索火锅店")
    scored = hashed.runs.run_finish("q1", {"success": True, "apps": ["com.xingin.xhs"], "steps": 0})[
        "recall_evaluation"
    ]
    assert scored is not None
    assert scored["recalled_apps"] == ["com.xingin.xhs"] and scored["actual_apps"] == []
    assert (scored["hit"], scored["contaminated_run"]) == (False, True)


def test_recall_stats_file_has_the_reference_shape(hashed: Memory, tmp_path: Path) -> None:
    hashed.runs.run_start("q1", "d1", goal="搜索火锅店")
    launched(hashed, "q1", "com.xingin.xhs")
    hashed.runs.run_finish("q1", {"success": True, "apps": ["com.xingin.xhs"]})
    data = hashed.recall.export_recall_stats(tmp_path / "recall_stats.json")
    on_disk = json.loads((tmp_path / "recall_stats.json").read_text("utf-8"))
    assert on_disk == data and data["schema_v"] == 2
    for key in (
        "evaluations",
        "recall_runs",
        "hits",
        "hit_at_1_count",
        "contaminated_runs",
        "package_true_positives",
        "package_predictions",
        "package_actuals",
        "hit_rate",
        "hit_at_1",
        "conditional_hit_rate",
        "contaminated_run_rate",
        "package_precision",
        "package_recall",
        "precision_at_k",
        "recall_at_k",
        "false_hits",
        "false_hit_rate",
        "latest",
    ):
        assert key in data, key
    assert data["latest"]["actual_apps"] == ["com.xingin.xhs"] and data["latest"]["run_id"] == "q1"
    assert {"conditional_hit", "false_hit", "intent_apps", "matched_apps"} <= set(data["latest"])


def test_recall_failure_fails_open(hashed: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: object, **_k: object) -> None:
        raise RuntimeError("index gone")

    monkeypatch.setattr(hashed.recall, "recall", broken)
    started = hashed.runs.run_start("q9", "d1", goal="搜索火锅店")
    assert started["recall"]["status"] == "error"
    assert hashed.runs.run_finish("q9", {"success": True})["archived"] is True
    assert hashed.recall.errors["episode"] == 1


def term_rows(memory: Memory) -> dict[str, str]:
    rows = memory.store.db.execute_sql("SELECT run_id, apps FROM recall_term_doc").fetchall()
    return dict(rows)


def test_term_counts_follow_the_vector_index(hashed: Memory) -> None:
    assert set(term_rows(hashed)) == {"h0", "h1", "h2"}
    hashed.runs.revoke_episode("h2")
    assert set(term_rows(hashed)) == {"h0", "h1"}
    hashed.runs.restore_episode("h2")
    assert set(term_rows(hashed)) == {"h0", "h1", "h2"}
    hashed.runs.run_start("short", "d1", goal="看一眼")
    hashed.runs.run_finish("short", {"success": True, "apps": ["com.x.y"], "steps": 1})  # below the gate: not counted
    assert "short" not in term_rows(hashed)


def test_a_home_without_term_counts_gets_them_at_first_recall(tmp_path: Path) -> None:
    from store.episodes import recall_terms

    config = load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"})
    with Memory.open(config) as memory:
        memory.runs.archive_episodes(
            [
                {
                    "run_id": "a",
                    "device_scope": "device:d1",
                    "goal_text": "查看今天的黄历",
                    "apps": ["x.cal"],
                    "steps": 3,
                },
                {"run_id": "b", "device_scope": "device:d1", "goal_text": "看看", "apps": ["x.cal"], "steps": 3},
            ]
        )
        recall_terms.clear(memory.store)  # as a home from before term counts
    with Memory.open(config) as memory:
        assert term_rows(memory) == {}
        memory.recall.recall_query("黄历", "d1")
        assert term_rows(memory) == {"a": "x.cal", "b": "x.cal"}
        assert recall_terms.ensure(memory.store) is True


def test_rebuild_vec_and_a_full_dream_put_term_counts_right(hashed: Memory) -> None:
    hashed.store.db.execute_sql("DELETE FROM recall_term_doc WHERE run_id = 'h0'")  # drifted by hand
    report = hashed.dream.run(full=True)
    step = next(s for s in report["steps"] if s["step"] == "index_reconcile")
    assert step["ok"] and step["term_counts_rebuilt"] is True
    again = next(s for s in hashed.dream.run(full=True)["steps"] if s["step"] == "index_reconcile")
    assert again["term_counts_rebuilt"] is False
    assert set(term_rows(hashed)) == {"h0", "h1", "h2"}
    hashed.runs.revoke_episode("h1")
    hashed.recall.rebuild_vectors()
    assert set(term_rows(hashed)) == {"h0", "h2"}


def test_the_homes_own_scorecard_imported_back_is_not_counted_twice(hashed: Memory, tmp_path: Path) -> None:
    # `jiyi export taskwizard D` then `jiyi import taskwizard D` on the same home: the episodes were
    # "already here", but recall_stats.json was taken as a new starting point, doubling the evaluations.
    from store.interchange.taskwizard_recall import import_recall_stats

    hashed.runs.run_start("q1", "d1", goal="搜索火锅店")
    launched(hashed, "q1", "com.xingin.xhs")
    hashed.runs.run_finish("q1", {"success": True, "apps": ["com.xingin.xhs"]})
    hashed.recall.export_recall_stats(tmp_path / "recall_stats.json")
    report = import_recall_stats(hashed.store, tmp_path)
    assert report.imported == 0 and report.already_imported
    assert hashed.recall.recall_statistics()["totals"]["evaluations"] == 1

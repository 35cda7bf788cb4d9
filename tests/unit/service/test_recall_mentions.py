"""Recall through `Memory` finds the apps a goal names, from the registry and the device's inventory, beside
its past episodes (the hash embedder stands in: the model is not under test)."""

from __future__ import annotations

from pathlib import Path

from service.config import load_config
from service.memory.memory import Memory

ALIPAY, WECHAT = "com.eg.android.AlipayGphone", "com.tencent.mm"


def test_a_goal_that_names_an_installed_app_anywhere_recalls_it_with_past_runs(tmp_path: Path) -> None:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        goal = "看一下支付宝这个月的账单"
        assert memory.recall.recall_query(goal, "phone1").status == "abstained"  # the inventory is unknown
        memory.appkb.sync_inventory("phone1", [(ALIPAY, "支付宝"), (WECHAT, "微信")])
        answer = memory.recall.recall_query(goal, "phone1")
        assert answer.status == "ok"
        assert [(c.source, c.term, c.apps) for c in answer.candidates] == [("mention", "支付宝", [ALIPAY])]
        memory.runs.archive_episodes(
            [
                {
                    "run_id": "past",
                    "goal_text": "看一下支付宝这个月的账单",
                    "apps": [WECHAT],  # that time it went to 微信 (a wrong turn recall must still show)
                    "success": False,
                    "device_scope": "device:phone1",
                    "steps": 4,
                    "ts_end": 1_700_000_000.0,
                }
            ]
        )
        answer = memory.recall.recall_query(goal, "phone1")
        assert [c.source for c in answer.candidates] == ["mention", "episode"]
        assert answer.top1_apps == [ALIPAY] and answer.recalled_apps == [ALIPAY, WECHAT]
        # A run started with that goal is scored on both: recalled 支付宝 and 微信, launched 支付宝.
        memory.runs.run_start("now", "phone1", goal=goal)
        launch = {"run_id": "now", "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": ALIPAY}
        memory.runs.run_event(launch)  # recall is scored against confirmed launches only
        finished = memory.runs.run_finish("now", {"success": True, "apps": [ALIPAY], "steps": 3})
        evaluation = finished["recall_evaluation"]
        assert evaluation is not None
        assert (evaluation["hit_at_1"], evaluation["contaminated_run"]) == (True, True)

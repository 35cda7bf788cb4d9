"""`jiyi import taskwizard` indexes what it imports, and the index says when it lags the archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli.main import main
from service.config import load_config
from service.memory.memory import Memory
from store.episodes import archive
from store.episodes.schema import EpisodeOutcome

HASH = {"JIYI_EMBED_MODEL": "hash"}


def outcome(i: int, goal: str, app: str, device: str = "phone1") -> dict[str, object]:
    return EpisodeOutcome.coerce(
        {
            "run_id": f"tw-{i}",
            "ts_start": 1_700_000_000.0 + i,
            "ts_end": 1_700_000_060.0 + i,
            "device_scope": f"device:{device}",
            "goal_text": goal,
            "apps": [app],
            "success": True,
            "reason": "finished",
            "steps": 4,
        }
    ).to_dict()


def taskwizard_dir(root: Path, records: list[dict[str, object]]) -> Path:
    folder = root / "memory" / "experience"
    folder.mkdir(parents=True)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return root / "memory"


GOALS = [("在美团上点一份黄焖鸡外卖", "com.sankuai.meituan"), ("查一下黄历今天宜忌", "com.youloft.calendar")]


def test_recall_finds_imported_runs_without_a_rebuild(tmp_path: Path) -> None:
    records = [outcome(i, *GOALS[i % 2]) for i in range(40)]
    records.append({**outcome(99, "只走了一步", "com.tencent.mm"), "steps": 1})  # below the quality gate
    folder = taskwizard_dir(tmp_path, records)
    with Memory.open(load_config(home=tmp_path / "home", env=HASH)) as memory:
        assert memory.recall.state()["lagging"] == 0
        heard: list[tuple[int, int]] = []
        memory.import_taskwizard(folder, progress=lambda done, total: heard.append((done, total)))
        state = memory.recall.state()
        assert (state["episode_vectors"], state["indexable_episodes"], state["lagging"]) == (40, 40, 0)
        assert heard[-1] == (40, 40)
        answer = memory.recall.recall_query("查一下黄历今天宜忌", "phone1")
        assert answer.status == "ok" and answer.recalled_apps == ["com.youloft.calendar"]
        assert memory.recall.devices() == ["phone1"]


def test_the_index_says_how_far_it_lags_and_a_reimport_catches_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    home = tmp_path / "home"
    folder = taskwizard_dir(tmp_path, [outcome(i, *GOALS[i % 2]) for i in range(12)])
    with Memory.open(load_config(home=home, env=HASH)) as memory:
        # What an import by an older Jiyi left: the archive written, the index not.
        archive.record_many(
            memory.store, [outcome(i, *GOALS[i % 2], device="old") for i in range(100, 105)], actor="import"
        )
        state = memory.recall.state()
        assert (state["episode_vectors"], state["indexable_episodes"], state["lagging"]) == (0, 5, 5)
        memory.runs.revoke_episode("tw-100")  # a revoked run is not owed to the index
        assert memory.recall.state()["lagging"] == 4
        memory.recall.rebuild_terms()  # terms counted, vectors not: the index still lags
        assert memory.recall.state()["lagging"] == 4
    assert main(["--home", str(home), "import", "taskwizard", str(folder)]) == 0
    assert main(["--home", str(home), "import", "taskwizard", str(folder)]) == 0  # nothing new: still fine
    with Memory.open(load_config(home=home, env=HASH)) as memory:
        state = memory.recall.state()
        assert (state["episode_vectors"], state["lagging"]) == (16, 0)
        assert memory.recall.recall_query("在美团上点一份黄焖鸡外卖", "old").status == "ok"

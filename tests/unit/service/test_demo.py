"""`jiyi demo` fills a home through the bulk path with memory that looks like a real phone's, not a flat 1.00."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from service.config import load_config
from service.demo.fill import fill
from service.demo.goals import demo_tasks
from service.memory.memory import Memory
from store.episodes.episode_filter import EpisodeFilter

RESOURCES = Path(__file__).resolve().parents[3] / "resources"


def test_the_demo_looks_like_a_real_device(tmp_path: Path) -> None:
    with Memory.open(load_config(home=tmp_path / "demo", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        heard: list[tuple[int, int]] = []
        counts = fill(memory, runs=400, progress=lambda done, total: heard.append((done, total)))
        assert counts["runs"] == 400 and heard[-1] == (400, 400)
        episodes = memory.runs.list_episodes(EpisodeFilter(), limit=400)
        assert len(episodes) == 400
        goals = [e["goal_text"] for e in episodes]
        instructions = [t.instruction.rstrip("。.！!") for t in demo_tasks()]
        assert all(any(i in g for i in instructions) for g in goals)  # drawn from the shipped set
        assert len(set(goals)) > 0.7 * len(goals)  # asked again, in other words
        assert Counter(g for g in goals).most_common(1)[0][1] < 10
        outcomes = Counter(e["success"] for e in episodes)
        assert 0.6 < outcomes[True] / 400 < 0.95  # failures too
        assert any(not e["apps"] for e in episodes)  # runs that never got an app open
        totals = memory.recall.recall_statistics()["totals"]
        assert totals["evaluations"] == 400
        assert 0 < totals["abstain_rate"] < 0.5
        assert 0 < totals["contaminated_run_rate"] < 0.5  # wrong recalls
        assert 0.3 < totals["hit_at_1"] < 0.97
        daily = memory.recall.recall_statistics()["daily"]
        assert len({d["hit_at_1"] for d in daily}) > 3  # the chart is not a flat line
        assert memory.recall.state()["lagging"] == 0  # every run recall may use is indexed
        kinds = Counter(e.kind for e in memory.appkb.list_aliases())
        assert kinds["device"] > 100 and kinds["user"] == 2 and kinds["learned"] > 0  # nicknames and failed names


def test_the_shipped_tasks_name_their_sources_and_licences() -> None:
    notice = (RESOURCES / "demo_tasks_NOTICE.txt").read_text("utf-8")
    tasks = (RESOURCES / "demo_tasks.tsv").read_text("utf-8").splitlines()
    assert tasks[0].split("\t") == ["instruction", "app_name", "package", "source"]
    repos = {re.sub(r"@.*", "", line.split("\t")[3]) for line in tasks[1:]}
    assert repos and all(repo in notice for repo in repos)
    assert len(demo_tasks()) == len(tasks) - 1 > 1000

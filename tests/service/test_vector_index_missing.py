"""The home's vector index deleted (a local process removing `vectors/`): recall used to drop every past run
silently; health, the overview and `jiyi doctor` now say the index is missing and how to rebuild it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from service.config import load_config
from service.memory.memory import Memory
from tests.service.conftest import JIYI

pytestmark = pytest.mark.sqlite_only  # about the embedded index in the home's own folder


def _episodes(n: int) -> list[dict[str, object]]:
    now = time.time()
    return [
        {
            "run_id": f"r{i}",
            "ts_end": now - 3600,
            "device_scope": "device:d1",
            "goal_text": f"在小红书搜索火锅店 {i}",
            "apps": ["com.xingin.xhs"],
            "success": True,
            "steps": 3,
        }
        for i in range(n)
    ]


def test_a_deleted_vector_index_is_reported_until_rebuilt(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "home", env={"JIYI_EMBED_MODEL": "hash"})
    vectors = config.home_path / "vectors"
    with Memory.open(config) as memory:
        memory.runs.archive_episodes(_episodes(3))
        assert memory.health()["vector_index_problem"] is None
        assert memory.overview()["index"]["episode_vectors"] == 3
        shutil.rmtree(vectors)  # while the home is open
        problem = memory.health()["vector_index_problem"]
        assert problem is not None and f"{vectors} is missing" in problem and "jiyi rebuild-vec" in problem
        assert "3 archived runs" in problem
    # As a person would, in fresh processes (Chroma keeps one index per folder and process).
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_EMBED_MODEL": "hash"}
    home = ["--home", str(config.home_path)]
    doctor = subprocess.run([JIYI, "doctor", *home], env=env, capture_output=True, timeout=120)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1 and "FAIL  vectors" in out and "jiyi rebuild-vec" in out, out
    rebuilt = subprocess.run([JIYI, "rebuild-vec", *home], env=env, capture_output=True, timeout=120)
    assert rebuilt.returncode == 0, rebuilt.stderr.decode()
    doctor = subprocess.run([JIYI, "doctor", *home], env=env, capture_output=True, timeout=120)
    assert doctor.returncode == 0 and "ok    vectors" in doctor.stdout.decode(), doctor.stdout.decode()
    with Memory.open(config) as memory:
        # Only what the files say: this process's Chroma still holds the folder deleted above.
        assert memory.health()["vector_index_problem"] is None


def test_a_new_home_without_vectors_reports_nothing(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "home", env={"JIYI_EMBED_MODEL": "hash"})
    with Memory.open(config) as memory:
        assert memory.health()["vector_index_problem"] is None
        assert all(c.ok for c in memory.doctor() if c.name == "vectors")

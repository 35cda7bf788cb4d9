"""`jiyi serve` on a disk that fills up: writes answer `unavailable`, a restart exits 3 with a message,
and every acknowledged write is still there.

The disk is a real 24 MB tmpfs, mounted in a private mount namespace
(`unshare --user --map-root-user --mount`: no root needed where user
namespaces are allowed, and the mount disappears with the process). Where
mounting is not permitted the test is skipped; `tests/unit/store/test_storage_errors.py`
covers the same errors portably with SQLite's `max_page_count`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.conftest import JIYI

SCENARIO = Path(__file__).with_name("full_disk_scenario.py")
UNSHARE = ["unshare", "--user", "--map-root-user", "--mount"]


def _can_mount(folder: Path) -> str | None:
    """Why a private tmpfs cannot be mounted here (None when it can)."""
    if shutil.which("unshare") is None:
        return "unshare(1) is not installed"
    probe = [*UNSHARE, "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)]
    done = subprocess.run(probe, capture_output=True, timeout=30)
    if done.returncode != 0:
        return f"mounting a tmpfs in a user namespace is not permitted here: {done.stderr.decode().strip()}"
    return None


@pytest.mark.slow
def test_a_full_disk_answers_unavailable_and_a_restart_exits_3(short_dir: Path) -> None:
    mountpoint, run = short_dir / "disk", short_dir / "run"
    mountpoint.mkdir(mode=0o700)
    run.mkdir(mode=0o700)
    reason = _can_mount(mountpoint)
    if reason:
        pytest.skip(reason)
    done = subprocess.run(
        [*UNSHARE, sys.executable, str(SCENARIO), str(mountpoint), str(run / "jiyi.sock"), JIYI],
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()
    seen = json.loads(done.stdout)
    assert seen["failures"], "the disk never filled up"
    for error in seen["failures"]:
        assert error["code"] == "unavailable"
        assert "disk holding the database is full" in error["message"]
    assert seen["health_ok"] and seen["read_ok"]
    assert seen["recall"]["ok"], seen["recall"]
    assert any(i["interaction_id"].startswith("before-") for i in seen["recall"]["result"]["interactions"])
    assert seen["context"]["ok"], seen["context"]
    assert seen["stop_exit"] == 0
    assert seen["restart_exit"] == 3
    assert "No space left on device" in seen["restart_stderr"] and "Traceback" not in seen["restart_stderr"]
    assert seen["open_exit"] == 3
    assert "the disk holding it is full" in seen["open_stderr"] and "Traceback" not in seen["open_stderr"]
    assert seen["acked"] >= 20 and seen["lost"] == []
    assert seen["integrity"] == "ok"
    assert "cannot rollback" not in seen["log"]
    assert "Traceback" not in seen["log"]

"""The embedded vector index on a disk that fills up: the failure says the disk is full, and after
space is freed the index writes and answers again.

The disk is a real 4 MB tmpfs in a private mount namespace (as `tests/service/test_full_disk.py`
does for the database); where mounting is not permitted the test is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.service.test_full_disk import UNSHARE, _can_mount

SCENARIO = Path(__file__).with_name("full_disk_vectors.py")


@pytest.mark.slow
def test_a_full_disk_under_the_vector_index_is_named_and_recovers(tmp_path: Path) -> None:
    mountpoint = tmp_path / "disk"
    mountpoint.mkdir(mode=0o700)
    reason = _can_mount(mountpoint)
    if reason:
        pytest.skip(reason)
    done = subprocess.run(
        [*UNSHARE, sys.executable, str(SCENARIO), str(mountpoint)],
        capture_output=True,
        timeout=150,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr.decode()
    seen = json.loads(done.stdout)
    assert seen["written"] > 0 and len(seen["errors"]) == 1, seen
    on_full_disk = seen["query_on_full_disk"]  # answered, or refused as the full disk it is
    assert on_full_disk == "ok" or on_full_disk["type"] == "EnvironmentProblem", on_full_disk
    error = seen["errors"][0]
    assert error["type"] == "EnvironmentProblem", error
    assert "the disk holding it is full" in error["message"] and "free some space" in error["message"]
    assert seen["after_freeing"][0] == "run-100001", seen["after_freeing"]  # written and found once space is back

"""A put acknowledged with `mirror_problem: ENOSPC` gets its file once space returns: at the next bundle
write while the home stays open, without one (the mirror tries again by itself), and at the start after a
restart.

The full disk is a real 256 KiB tmpfs holding only the bundles folder (the database keeps room),
mounted in a private mount namespace (`unshare --user --map-root-user --mount`: no root needed
where user namespaces are allowed, and the mount disappears with the process). Where mounting is not
permitted the test is skipped.
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

SCENARIO = Path(__file__).with_name("full_bundles_scenario.py")


@pytest.mark.slow
def test_files_a_full_disk_kept_from_their_puts_are_written_once_space_returns(tmp_path: Path) -> None:
    home, mountpoint = tmp_path / "home", tmp_path / "bundles"
    mountpoint.mkdir(mode=0o700)
    reason = _can_mount(mountpoint)
    if reason:
        pytest.skip(reason)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [*UNSHARE, sys.executable, str(SCENARIO), str(home), str(mountpoint)],
        capture_output=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode()
    seen = json.loads(done.stdout)
    for key in ("full_a", "full_first", "full_c", "full_d"):
        assert "No space left on device" in seen[key]  # acknowledged: the database has the put
    assert seen["missing_while_full"]
    assert seen["after_space_returns"] is None
    assert seen["a_after_space"] == "满盘时写的 A"  # written by the next bundle write
    assert seen["first_after_space"] == "满盘时改的"  # the older revision refreshed, not kept as an outside edit
    assert seen["d_without_a_write"] == "满盘时写的 D"  # written by the retry, with no write and no restart
    assert seen["c_after_restart"] == "满盘时写的 C"  # written by the catch-up at start
    assert seen["outside_copies"] == []
    assert seen["health_ok"]

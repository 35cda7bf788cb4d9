"""Bundle files on a full disk, run as its own process inside a mount namespace.

`python full_bundles_scenario.py HOME MOUNTPOINT` mounts a 256 KiB tmpfs on
MOUNTPOINT (so it must run where mounting is allowed: `unshare --user
--map-root-user --mount`; the mount vanishes with the process), mirrors the
home's bundles there (the `bundles` setting: the database keeps room), fills
it, and puts documents whose files cannot be written (ENOSPC). Then space
returns: first while the home stays open (the next bundle write writes the
files that failed; without one, the mirror's retrying thread does), then
across a restart (the catch-up at start writes them). It prints one JSON object with what it saw; `test_full_bundles.py`
asserts on it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from service.config import load_config
from service.memory.memory import Memory

WAIT_S = 60.0  # the retry comes after 2 s, then 4 s, 8 s… (`service.memory.bundle_mirror`)


def fill(folder: Path) -> Path:
    """A file that takes every free block of `folder`'s file system."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while out.write(b"\0" * 4096):
                pass
        except OSError:
            pass  # ENOSPC: the disk is full
    return filler


def main(home: Path, mountpoint: Path) -> dict[str, Any]:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mountpoint)], check=True)
    config = load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}, overrides={"bundles": str(mountpoint)})
    seen: dict[str, Any] = {}
    files = mountpoint / "project" / "p"
    with Memory.open(config) as memory:
        put = memory.bundles.put_bundle_document
        put("project/p", "first.md", "有地方时写的", expected_revision=0)
        filler = fill(mountpoint)
        seen["full_a"] = put("project/p", "a.md", "满盘时写的 A", expected_revision=0)["mirror_problem"]
        seen["full_first"] = put("project/p", "first.md", "满盘时改的", expected_revision=1)["mirror_problem"]
        seen["missing_while_full"] = not (files / "a.md").exists()
        filler.unlink()  # space returns while the home is open
        seen["after_space_returns"] = put("project/p", "b.md", "有地方了", expected_revision=0)["mirror_problem"]
        seen["a_after_space"] = _text(files / "a.md")
        seen["first_after_space"] = _text(files / "first.md")
        filler = fill(mountpoint)
        seen["full_d"] = put("project/p", "d.md", "满盘时写的 D", expected_revision=0)["mirror_problem"]
        filler.unlink()  # space returns, and no bundle write follows: the file is written all the same
        seen["d_without_a_write"] = _wait_for(files / "d.md", WAIT_S)
        filler = fill(mountpoint)
        seen["full_c"] = put("project/p", "c.md", "满盘时写的 C", expected_revision=0)["mirror_problem"]
    filler.unlink()  # space returns while the home is closed
    with Memory.open(config) as memory:
        seen["c_after_restart"] = _text(files / "c.md")
        seen["health_ok"] = memory.health()["desk"]["bundle_events_refused"] == 0
    seen["outside_copies"] = sorted(p.name for p in files.glob("*.outside-*"))
    return seen


def _wait_for(path: Path, seconds: float) -> str | None:
    """The file's text once it exists (None if it did not within `seconds`: a deadline, not a speed)."""
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return _text(path)


def _text(path: Path) -> str | None:
    return path.read_text("utf-8") if path.exists() else None


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2])), ensure_ascii=False))

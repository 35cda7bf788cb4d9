"""The console on a read-only home says 只读 where a person looks, holds every write control disabled with the
reason, and tries no write as it opens through its private service.

Before: the overview and the status bar showed English errors, nothing said 只读, the rebuild button stayed
enabled, and opening the home tried writes (the learning timer, the desk index, the person's key). The home is
made read-only by a read-only bind mount in a private mount namespace (`read_only_console_scenario.py`), as in
`tests/cli/test_read_only_home.py`; where mounting is not permitted the test is skipped, with the kernel's reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.cli.main import main
from tests.service.conftest import private_folder
from tests.service.test_full_disk import UNSHARE, _can_mount

SCENARIO = Path(__file__).with_name("read_only_console_scenario.py")


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short private folder: the sockets live in it."""
    with private_folder() as made:
        yield made


@pytest.mark.slow
def test_the_console_on_a_read_only_home_says_so_and_offers_no_write(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home, run, out = folder / "home", folder / "run", folder / "out"
    for folder in (run, out):
        folder.mkdir(mode=0o700)
    reason = _can_mount(out)
    if reason:
        pytest.skip(reason)
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("JIYI_SOCKET", str(run / "nobody.sock"))
    assert main(["alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(home)]) == 0
    capsys.readouterr()

    done = subprocess.run(
        [*UNSHARE, sys.executable, str(SCENARIO), str(home), str(run), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["touch"] != 0  # the mount is read-only for root too
    why = f"状态目录 {home} 在只读文件系统上：可以查看，不能写入。"
    for mode, private in (("child", True),):
        window = seen[mode]
        assert window["private"] is private
        assert window["read_only_label"] == "只读" and window["read_only_tip"] == why, window
        assert window["writes_row"] == f"只读。{why}"
        assert window["index_row"].startswith("只读状态目录里打不开")  # not Chroma's English error
        assert window["rebuild"] == [False, why]  # held disabled even after the page enabled it
        assert window["write_controls"] >= 20 and window["enabled_write_controls"] == []
        assert window["problems"] == [] and window["status_message"] == ""  # no page failed
        assert window["warnings"] == []  # no write tried: none failed, none was logged
        assert (out / f"{mode}.png").stat().st_size > 0

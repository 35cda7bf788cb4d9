"""`jiyi install-desktop`: files in the user's XDG folders that point at the jiyi that wrote them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.desktop_files import DESKTOP_ENTRY, METAINFO, USER_UNIT, desktop_exec, unit_exec
from tests.conftest import REPO


def _run(home: Path, *words: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIYI_", "XDG_"))}
    env["HOME"] = str(home)
    script = Path(sys.executable).parent / "jiyi"
    return subprocess.run(
        [str(script), "install-desktop", *words], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_install_writes_entry_icon_and_unit_pointing_at_this_jiyi_and_uninstall_removes_them(tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    script = Path(sys.executable).parent / "jiyi"
    entry = tmp_path / ".local/share/applications/jiyi.desktop"
    metainfo = tmp_path / ".local/share/metainfo/io.github.jiyi.Jiyi.metainfo.xml"
    unit = tmp_path / ".config/systemd/user/jiyi.service"
    icons = tmp_path / ".local/share/icons/hicolor"
    assert f"Exec={script}\n" in entry.read_text("utf-8") and "Icon=jiyi\n" in entry.read_text("utf-8")
    assert f"ExecStart={script} serve\n" in unit.read_text("utf-8")
    assert (icons / "scalable/apps/jiyi.svg").read_bytes().startswith(b"<?xml")
    assert (icons / "256x256/apps/jiyi.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for path in (entry, metainfo, unit, icons / "48x48/apps/jiyi.png"):
        assert f"wrote {path}" in done.stdout
    assert '<launchable type="desktop-id">jiyi.desktop</launchable>' in metainfo.read_text("utf-8")
    assert "systemctl --user enable --now jiyi" in done.stdout
    if shutil.which("desktop-file-validate"):
        checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
        assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
    if shutil.which("appstreamcli"):
        checked = subprocess.run(
            ["appstreamcli", "validate", "--no-net", str(metainfo)], capture_output=True, text=True, check=False
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr

    removed = _run(tmp_path, "--uninstall")
    assert removed.returncode == 0 and f"removed {entry}" in removed.stdout
    assert not entry.exists() and not metainfo.exists() and not unit.exists() and not list(icons.rglob("jiyi.*"))
    again = _run(tmp_path, "--uninstall")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


def test_a_symlink_where_a_file_goes_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    applications = tmp_path / ".local/share/applications"
    applications.mkdir(parents=True)
    (applications / "jiyi.desktop").symlink_to(outside)
    done = _run(tmp_path)
    assert done.returncode == 3 and "jiyi.desktop is a symbolic link" in done.stderr
    assert outside.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("command", "exec_line"),
    [
        (["/opt/My Apps/jiyi"], '"/opt/My Apps/jiyi"'),
        (["/opt/100%/jiyi"], "/opt/100%%/jiyi"),
        (["/usr/bin/python3", "-m", "gui.main"], "/usr/bin/python3 -m gui.main"),
    ],
)
def test_exec_lines_are_quoted_as_the_specs_say(command: list[str], exec_line: str) -> None:
    assert desktop_exec(command) == exec_line
    assert unit_exec(["/opt/My Apps/jiyi"]) == "'/opt/My Apps/jiyi'"


def test_the_packaged_files_are_the_generated_ones_with_jiyi_on_the_path() -> None:
    """packaging/ (for distribution packagers) and `install-desktop` cannot drift apart."""
    assert (REPO / "packaging/jiyi.desktop").read_text("utf-8") == DESKTOP_ENTRY.format(exec="jiyi")
    assert (REPO / "packaging/jiyi.metainfo.xml").read_text("utf-8") == METAINFO

    def settings(text: str) -> list[str]:
        return [line for line in text.splitlines() if line and not line.startswith("#")]

    packaged = (REPO / "packaging/jiyi.service").read_text("utf-8")
    assert settings(packaged) == settings(USER_UNIT.format(exec="jiyi", how=""))

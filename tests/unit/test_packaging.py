"""What `packaging/` hands to the system names only what exists."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import REPO


def test_the_systemd_unit_points_at_nothing_that_is_not_installed() -> None:
    """systemd shows a unit's Documentation= links; a file:// path nothing installs is a dead link."""
    unit = (REPO / "packaging" / "jiyi.service").read_text("utf-8")
    links = [line.split("=", 1)[1].split() for line in unit.splitlines() if line.startswith("Documentation=")]
    assert not [link for group in links for link in group if link.startswith("file:")]
    for doc in re.findall(r"docs/[\w-]+\.md", unit):
        assert (REPO / doc).is_file(), doc  # the docs its comments send a person to are in the source
    assert re.search(r"^ExecStart=\S*jiyi serve$", unit, re.MULTILINE)


def test_the_unit_gives_up_on_what_restarting_cannot_mend() -> None:
    """A missing program or a refused home used to restart every 2 s, forever."""
    unit = (REPO / "packaging" / "jiyi.service").read_text("utf-8")
    assert re.search(r"^StartLimitBurst=\d+$", unit, re.MULTILINE)
    assert re.search(r"^RestartPreventExitStatus=2 3 6$", unit, re.MULTILINE)


def test_the_desktop_entry_validates() -> None:
    if not shutil.which("desktop-file-validate"):
        pytest.skip("desktop-file-validate is not installed (make test installs desktop-file-utils)")
    done = subprocess.run(
        ["desktop-file-validate", str(REPO / "packaging" / "jiyi.desktop")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout


def test_the_appstream_metainfo_validates() -> None:
    if not shutil.which("appstreamcli"):
        pytest.skip("appstreamcli is not installed (make test installs appstream)")
    [metainfo] = (REPO / "packaging").glob("*.metainfo.xml")
    done = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(metainfo)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert '<launchable type="desktop-id">jiyi.desktop</launchable>' in metainfo.read_text("utf-8")

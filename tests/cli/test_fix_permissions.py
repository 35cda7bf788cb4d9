"""A home others may read (plain `mkdir` makes it 0755; `cp` under a umask of 022 makes its database 0644) is
refused naming the command that fixes it, and `jiyi doctor --fix-permissions` makes it private: only the
user's own files, never through a link, each change printed; anything it must not change refuses the whole."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from service.cli.main import main

Capsys = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def _no_jiyi_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("JIYI_SOCKET", str(tmp_path / "nobody-listens.sock"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _opened_home(tmp_path: Path, capsys: Capsys) -> Path:
    """A home with a database, then made readable by others as a copy or a plain `mkdir` would leave it."""
    home = tmp_path / "home"
    assert main(["alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(home)]) == 0
    capsys.readouterr()
    home.chmod(0o755)
    (home / "jiyi.sqlite3").chmod(0o644)
    return home


def test_a_home_others_may_read_is_refused_naming_the_fix_which_makes_it_private(
    tmp_path: Path, capsys: Capsys
) -> None:
    home = _opened_home(tmp_path, capsys)
    assert main(["resolve", "绿泡泡", "--home", str(home)]) == 3
    err = capsys.readouterr().err
    assert f"home {home} is readable by others (mode 755)" in err
    assert f"run: jiyi doctor --fix-permissions --home {home}" in err

    assert main(["doctor", "--fix-permissions", "--home", str(home)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"fixed {home}: 0755 -> 0700", f"fixed {home / 'jiyi.sqlite3'}: 0644 -> 0600"]
    assert any(line.split()[1] == "database" and line.startswith("ok") for line in out[2:])  # then the checks
    assert _mode(home) == 0o700 and _mode(home / "jiyi.sqlite3") == 0o600
    assert main(["resolve", "绿泡泡", "--home", str(home)]) == 0
    capsys.readouterr()

    assert main(["doctor", "--fix-permissions", "--home", str(home)]) == 0  # again: nothing to change
    assert capsys.readouterr().out.startswith(f"permissions: {home} and its database files were private already")


def test_a_new_home_made_with_mkdir_is_fixed_before_it_holds_anything(tmp_path: Path, capsys: Capsys) -> None:
    home = tmp_path / "made"
    home.mkdir()
    home.chmod(0o755)
    assert main(["doctor", "--fix-permissions", "--home", str(home)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"fixed {home}: 0755 -> 0700",
        f"the home {home} holds no database yet: nothing else to check",
    ]
    assert _mode(home) == 0o700 and os.listdir(home) == []  # made private, nothing made in it
    assert main(["doctor", "--fix-permissions", "--home", str(tmp_path / "typo")]) == 4  # never made anew
    assert "there is no home at" in capsys.readouterr().err


def test_what_is_not_the_users_own_or_is_a_link_refuses_the_fix_and_nothing_changes(
    tmp_path: Path, capsys: Capsys
) -> None:
    home = _opened_home(tmp_path, capsys)
    lock = home / "jiyi.lock"
    lock.unlink(missing_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("")
    elsewhere.chmod(0o644)
    lock.symlink_to(elsewhere)  # a link in the place of a private file: followed, it would change another file
    assert main(["doctor", "--fix-permissions", "--home", str(home)]) == 3
    assert f"{lock} is a symlink; Jiyi changes no permissions through a link" in capsys.readouterr().err
    assert (_mode(home), _mode(home / "jiyi.sqlite3"), _mode(elsewhere)) == (0o755, 0o644, 0o644)
    lock.unlink()

    if os.geteuid() != 0:
        return  # only root can give a file to another user: the rest needs it
    os.chown(home / "jiyi.sqlite3", 65534, 65534)
    assert main(["doctor", "--fix-permissions", "--home", str(home)]) == 3
    assert "is owned by uid 65534, not by you; Jiyi changes only your own files" in capsys.readouterr().err
    assert (_mode(home), _mode(home / "jiyi.sqlite3")) == (0o755, 0o644)

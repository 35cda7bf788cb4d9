"""A home damaged in place, as a local process or a fault would: files planted, removed or garbled in a
real home, then the `jiyi` command run on it as a person would."""

from __future__ import annotations

import grp
import os
import pwd
import sys
from pathlib import Path

import pytest

from service.cli.main import main

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("changes Unix owners, groups and modes (Unix only)", allow_module_level=True)

Capsys = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def _no_jiyi_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        (lambda path: path.mkdir(), "is not a regular file"),
        (lambda path: path.write_text("a = " + "[" * 5000 + "]" * 5000, "utf-8"), "nested too deeply"),
        (lambda path: path.write_text("a = " + "{b = " * 3000 + "1" + "}" * 3000, "utf-8"), "nested too deeply"),
    ],
    ids=["a directory", "deep arrays", "deep tables"],
)
def test_a_config_toml_that_cannot_be_read_is_refused_naming_it(
    tmp_path: Path, capsys: Capsys, plant: object, message: str
) -> None:
    """A directory in config.toml's place was ignored (learning silently off); a deeply nested file
    crashed with a RecursionError traceback. Both are a clear error naming the file, exit 2."""
    home = tmp_path / "home"
    assert main(["--learn-alias", "微信=com.tencent.mm", "--home", str(home)]) == 0
    capsys.readouterr()
    assert callable(plant)
    plant(home / "config.toml")
    code = main(["alias", "list", "--home", str(home)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(home / "config.toml") in err and message in err and "Traceback" not in err


def _home_with_settings(tmp_path: Path, capsys: Capsys) -> Path:
    home = tmp_path / "home"
    assert main(["--learn-alias", "微信=com.tencent.mm", "--home", str(home)]) == 0
    (home / "config.toml").write_text('log_level = "warning"\n', "utf-8")
    capsys.readouterr()
    return home


def test_a_config_toml_anyone_may_change_is_refused_as_an_open_home_is(tmp_path: Path, capsys: Capsys) -> None:
    """A world-writable config.toml was read as it was: anyone could point the memory at their own server
    (`database_url`, `embed_url`, learning's model). Refused in one line naming it and the fix, exit 3."""
    home = _home_with_settings(tmp_path, capsys)
    settings = home / "config.toml"
    settings.chmod(0o666)
    code = main(["alias", "list", "--home", str(home)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert f"{settings} may be changed by anyone (mode 666)" in err and f"chmod 600 {settings}" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    settings.chmod(0o644)  # readable by others holds no secret (the password lives in a file of its own)
    assert main(["alias", "list", "--home", str(home)]) == 0


def test_a_config_toml_a_shared_group_may_change_is_refused(tmp_path: Path, capsys: Capsys) -> None:
    home = _home_with_settings(tmp_path, capsys)
    settings = home / "config.toml"
    mine = os.getgid()
    others = [gid for gid in os.getgroups() if gid != mine] or ([100] if os.geteuid() == 0 else [])
    if not others:
        pytest.skip("this user belongs to no group but their own: a file cannot be given to another group here")
    os.chown(settings, -1, others[0])
    settings.chmod(0o664)
    code = main(["alias", "list", "--home", str(home)])
    err = capsys.readouterr().err
    assert code == 3 and "may be changed by the group" in err and "(mode 664)" in err, err
    os.chown(settings, -1, mine)  # the user's own group: where the umask is 002, every new file is 0664
    private = grp.getgrgid(mine).gr_name == pwd.getpwuid(os.geteuid()).pw_name
    assert main(["alias", "list", "--home", str(home)]) == (0 if private else 3)

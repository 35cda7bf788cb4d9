"""A home damaged in place, as a local process or a fault would: files planted, removed or garbled in a
real home, then the `jiyi` command run on it as a person would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.cli.main import main

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

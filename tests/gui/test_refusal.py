"""The console's refusals say their cause first, and a home made with plain `mkdir` is offered a fix.

Before: a bad `config.toml` gave "无法打开状态目录" with the TOML error under 显示详情, and the console exited 3
where the CLI exits 2 for the same file; a 0755 home was refused with no way to mend it from the console.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QAbstractButton, QApplication

from gui.app import run_console
from gui.opening import close_home
from gui.refusal import PermissionQuestion, open_fixing, refusal
from service.cli.main import main
from service.config import Config, ConfigError, load_config
from service.errors import TooOpen
from tests.service.conftest import private_folder


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short private folder (the console's socket lives in the home's own folder: paths must stay short)."""
    with private_folder() as made:
        yield made


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_bad_config_toml_says_its_file_and_line_first_and_exits_as_the_cli(
    qapp: QApplication, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = folder / "home"
    home.mkdir(mode=0o700)
    settings = home / "config.toml"
    settings.write_text('log_level = "info"\n\nembed_model = \n', encoding="utf-8")
    with pytest.raises(ConfigError) as bad:
        load_config(home=home, env={})
    box = refusal(bad.value)
    assert box.text() == f"设置文件 {settings} 第 3 行第 15 列不是有效的 TOML：Invalid value"  # not under 显示详情
    assert "改正或删掉这一行" in box.informativeText() and str(settings) in box.detailedText()

    settings.write_text('log_level = "info"\nrecall_depth = 3\n', encoding="utf-8")  # a key this Jiyi has not
    with pytest.raises(ConfigError) as unknown:
        load_config(home=home, env={})
    assert refusal(unknown.value).text().startswith(f"设置文件 {settings} 第 2 行有误：unknown key 'recall_depth'")

    # The same file, the same exit code: the console's (offscreen, no box) and a command's.
    names = (QCoreApplication.organizationName(), QCoreApplication.applicationName())
    try:
        assert run_console(str(home)) == 2
    finally:
        QCoreApplication.setOrganizationName(names[0])
        QCoreApplication.setApplicationName(names[1])
    assert main(["health", "--home", str(home)]) == 2
    err = capsys.readouterr().err
    assert err.count(f"{settings}: unknown key 'recall_depth'") == 2


def _settings(home: Path) -> Config:
    """The console's settings on `home` with the hash embedder, its private service's socket in the home's
    folder."""
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_SOCKET": str(home.parent / "s")}
    return load_config(home=home, env=env)


def test_a_home_made_with_plain_mkdir_is_offered_a_fix(qapp: QApplication, folder: Path) -> None:
    home = folder / "home"
    home.mkdir()
    home.chmod(0o755)  # as `mkdir` makes it under the usual umask
    config = _settings(home)
    asked: list[str] = []

    def answer(button: str) -> object:
        def ask(question: PermissionQuestion) -> QAbstractButton | None:
            asked.append(question.text())
            return {"fix": question.fix_button, "cancel": question.cancel_button, "close": None}[button]

        return ask

    for declined in ("cancel", "close"):
        with pytest.raises(TooOpen) as refused:
            open_fixing(config, answer(declined))  # type: ignore[arg-type]
        assert _mode(home) == 0o755 and os.listdir(home) == []  # nothing changed, nothing made
    assert asked == [f"状态目录 {home} 的权限是 0755，其他用户可以读取。改为 0700？"] * 2
    box = refusal(refused.value)  # then refused, the cause first and the command that fixes it
    assert box.text() == f"状态目录 {home} 的权限是 0755，其他用户可以读取。"
    assert f"jiyi doctor --fix-permissions --home {home}" in box.informativeText()

    opened = open_fixing(config, answer("fix"))  # type: ignore[arg-type]
    try:
        assert _mode(home) == 0o700 and opened.memory.read_only is None
    finally:
        close_home(opened)

    database = home / "jiyi.sqlite3"
    database.chmod(0o644)  # copied with `cp` under a umask of 022
    asked.clear()
    opened = open_fixing(config, answer("fix"))  # type: ignore[arg-type]
    try:
        assert asked == [f"数据库 {database} 的权限是 0644，其他用户可以读取。改为 0600？"]
        assert _mode(database) == 0o600 and _mode(home) == 0o700
    finally:
        close_home(opened)


def test_a_home_others_may_read_is_asked_about_before_any_private_service_starts(
    qapp: QApplication, folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """As the console opens by default (a private `jiyi serve`): the question comes without a service tried
    first and logged as failing ("the console opens the home itself: home … is readable by others")."""
    home = folder / "home"
    home.mkdir()
    home.chmod(0o755)
    config = load_config(home=home, env={"JIYI_EMBED_MODEL": "hash", "JIYI_SOCKET": str(folder / "s")})
    asked: list[str] = []

    def decline(question: PermissionQuestion) -> QAbstractButton | None:
        asked.append(question.text())
        return question.cancel_button

    with caplog.at_level("WARNING", logger="jiyi"), pytest.raises(TooOpen):
        open_fixing(config, decline)
    assert asked == [f"状态目录 {home} 的权限是 0755，其他用户可以读取。改为 0700？"]
    assert caplog.messages == [] and os.listdir(home) == []

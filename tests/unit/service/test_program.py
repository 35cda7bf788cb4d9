"""How Jiyi starts itself again (the private service, the desktop entry, the user unit)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from service.program import program_command, restore_outside_environment


def test_a_frozen_build_is_its_own_executable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "Jiyi"))
    assert program_command() == [str(tmp_path / "Jiyi")]  # never `-m gui.main`: a bundle has no such module path


def test_an_installed_script_is_called_by_its_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = tmp_path / "bin" / "jiyi"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "serve"])
    assert program_command() == [str(script)]
    script.chmod(0o644)  # not executable: not a program to start
    assert program_command() == [sys.executable, "-m", "gui.main"]


def test_otherwise_the_module_with_the_same_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/somewhere/pytest"])
    assert program_command() == [sys.executable, "-m", "gui.main"]


def test_a_frozen_app_gives_back_the_paths_its_loader_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the app starts outside itself (xdg-open's file manager) must not load the app's libraries."""
    inside = {
        "LD_LIBRARY_PATH": "/opt/jiyi/_internal",
        "LD_LIBRARY_PATH_ORIG": "/usr/local/lib",  # the user's own, kept by PyInstaller's loader
        "QT_PLUGIN_PATH": "/opt/jiyi/_internal/PySide6/Qt/plugins",
        "QML2_IMPORT_PATH": "/opt/jiyi/_internal/PySide6/Qt/qml",
        "HOME": "/home/you",
    }
    environ = dict(inside)
    restore_outside_environment(environ)
    assert environ == inside  # not frozen: nothing to give back
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    restore_outside_environment(environ)
    assert environ == {"LD_LIBRARY_PATH": "/usr/local/lib", "HOME": "/home/you"}
    environ = {"LD_LIBRARY_PATH": "/opt/jiyi/_internal", "HOME": "/home/you"}  # the user had none
    restore_outside_environment(environ)
    assert environ == {"HOME": "/home/you"}

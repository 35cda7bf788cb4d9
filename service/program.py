"""How to run this very `jiyi` program again: the console's private service, the desktop entry and the
systemd unit all start the program that is running now, in whatever form it was installed."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path


def program_command() -> list[str]:
    """The command line that starts this `jiyi` (its arguments follow).

    A frozen build (PyInstaller, pyside6-deploy) is its own executable; an installed `jiyi` script (a venv,
    pipx, uv tool, `make install`) is called by its path; anything else (`python -m gui.main`, the tests)
    runs the program's module with the same interpreter.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "jiyi" and script.is_file() and os.access(script, os.X_OK):
        return [str(script.absolute())]
    return [sys.executable, "-m", "gui.main"]


FROZEN_PATHS = ("LD_LIBRARY_PATH", "QT_PLUGIN_PATH", "QML2_IMPORT_PATH")
"""What a frozen build (PyInstaller) points into the app for its own use: its loader sets LD_LIBRARY_PATH (keeping
the one it was given as LD_LIBRARY_PATH_ORIG), its Qt hook the plugin paths (Qt finds its plugins through the
`qt.conf` PySide6 embeds as well)."""


def restore_outside_environment(environ: MutableMapping[str, str] | None = None) -> None:
    """In a frozen build on Linux, give the environment back the paths it came with, for what the app starts
    outside itself: a file manager through xdg-open must not load the app's copies of GLib or Qt's plugins.

    The app itself is not affected: the dynamic loader read LD_LIBRARY_PATH when the process started, and the
    app starting itself again (`jiyi serve`) goes through its loader, which sets the paths anew."""
    if not getattr(sys, "frozen", False) or not sys.platform.startswith("linux"):
        return
    environ = os.environ if environ is None else environ
    for name in FROZEN_PATHS:
        original = environ.pop(f"{name}_ORIG", None)
        if original is None:
            environ.pop(name, None)
        else:
            environ[name] = original

"""How to run this very `jiyi` program again: the console's private service, the desktop entry and the
systemd unit all start the program that is running now, in whatever form it was installed."""

from __future__ import annotations

import os
import sys
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

"""Links to past runs inside a page's rich text: `run:<id>`, opened in the episode browser."""

from __future__ import annotations

import html
from collections.abc import Callable
from urllib.parse import quote

from PySide6.QtCore import QUrl


def run_link(run_id: str) -> str:
    """A link to a past run that `open_run_link` understands (the episode browser opens it)."""
    return f"<a href='run:{quote(run_id, safe='')}'>{html.escape(run_id)}</a>"


def open_run_link(url: QUrl, open_run: Callable[[str], object]) -> None:
    if url.scheme() == "run" and url.path():
        open_run(url.path())

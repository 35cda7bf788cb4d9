"""The console opened on a read-only home, run as its own process inside a mount namespace.

`python read_only_console_scenario.py HOME RUN OUT` bind-mounts HOME (a home
holding a database) read-only (run it where mounting is allowed: `unshare
--user --map-root-user --mount`; see `tests/cli/read_only_scenario.py`), then
opens the console on it offscreen at its default size, through its private
`jiyi serve` (its socket in RUN). It waits for every page's first load,
grabs the window to OUT/<mode>.png and
prints what a person would see, in one JSON object: the status bar, the
overview's rows, every write control's state, and any failure or warning.
`test_read_only_console.py` asserts on it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SIZE = (1200, 760)  # the console's default size


def read_only(folder: str) -> None:
    subprocess.run(["mount", "--bind", folder, folder], check=True)
    subprocess.run(["mount", "-o", "remount,ro,bind", folder], check=True)


class Kept(logging.Handler):
    """Every warning the console logs while it opens the home and loads its pages."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def seen_in_window(app: Any, opened: Any, out: Path, mode: str) -> dict[str, Any]:
    import qasync
    from PySide6.QtCore import QSettings

    from gui.lanes import Lanes
    from gui.main_window import MainWindow
    from gui.read_only import Writes

    loop = qasync.QEventLoop(app)
    lanes = Lanes(loop)
    problems: list[str] = []
    loop.set_exception_handler(lambda _loop, context: problems.append(str(context.get("message"))))
    lanes.failed.connect(problems.append)
    try:
        window = MainWindow(opened.memory, QSettings(str(out / f"{out.name}.ini"), QSettings.Format.IniFormat), lanes)
        window.resize(*SIZE)
        window.show()

        async def settled() -> None:
            deadline = time.monotonic() + 60
            await asyncio.sleep(0.2)
            while any(group.pending for group in list(lanes._groups)) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # painted

        loop.run_until_complete(settled())
        page = window.overview_page
        page.rebuild_button.setEnabled(True)  # as the page does when a load ends: held disabled all the same
        controls = [c for p in window.pages if isinstance(p, Writes) for c in p.write_controls()]
        window.grab().save(str(out / f"{mode}.png"))
        seen = {
            "read_only_label": window.read_only_label.text() if window.read_only_label.isVisible() else None,
            "read_only_tip": window.read_only_label.toolTip(),
            "status_message": window.statusBar().currentMessage(),
            "writes_row": page.values["writes"].text() if page.values["writes"].isVisible() else None,
            "index_row": page.values["index"].text(),
            "rebuild": [page.rebuild_button.isEnabled(), page.rebuild_button.toolTip()],
            "write_controls": len(controls),
            "enabled_write_controls": [
                c.text() if hasattr(c, "text") else type(c).__name__ for c in controls if c.isEnabled()
            ],
            "problems": problems,
        }
        window.close()
        return seen
    finally:
        lanes.shutdown()
        loop.close()


def main() -> None:
    home, run, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    read_only(str(home))
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    kept = Kept()
    logging.getLogger().addHandler(kept)
    from PySide6.QtWidgets import QApplication

    from gui.opening import close_home, open_home
    from service.config import load_config

    app = QApplication(sys.argv[:1])
    seen: dict[str, Any] = {"touch": subprocess.run(["touch", f"{home}/probe"], capture_output=True).returncode}
    for mode in ("child",):  # the console's one way: through its private service
        env = {"JIYI_EMBED_MODEL": "hash", "JIYI_SOCKET": str(run / f"{mode}.sock")}
        kept.messages.clear()
        opened = open_home(load_config(home=home, env=env))
        try:
            seen[mode] = seen_in_window(app, opened, out, mode) | {"private": opened.private is not None}
        finally:
            close_home(opened)
        seen[mode]["warnings"] = list(kept.messages)
    print(json.dumps(seen, ensure_ascii=False))


if __name__ == "__main__":
    main()

"""How the `jiyi` commands print: columns padded by display width, JSON, and progress bars.

Results go to stdout; progress and warnings go to stderr, so that a command's
output can be piped or parsed while a person still sees it work.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
from rich.cells import cell_len
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

ProgressCallback = Callable[[int, int], None]
"""`(done, total)`, the callback that `Memory`'s long operations report through."""


def pad(text: str, width: int) -> str:
    """`text` left-justified to `width` terminal columns, and at least one space after it.

    Width is the display width (a CJK character takes two columns, a combining
    mark none), so that columns of Chinese and Latin names line up.
    """
    return text + " " * max(1, width - cell_len(text))


def print_json(data: Any) -> None:
    """`data` as indented JSON on stdout, Chinese as itself (typed rows as their JSON objects; other values
    JSON lacks become strings)."""
    print(json.dumps(data, ensure_ascii=False, indent=2, default=_plain))


def _plain(value: object) -> object:
    """A typed row (`service.memory.rows`) as the object the socket would send; anything else as text."""
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value, enc_hook=str)
    return str(value)


class _BarInBrackets(ProgressColumn):
    """Rich's bar between brackets: in a log without colour the brackets show how far it got."""

    def __init__(self, width: int = 30) -> None:
        super().__init__()
        self._bar = BarColumn(bar_width=width)

    def render(self, task: Task) -> Table:
        grid = Table.grid()
        grid.add_row("[", self._bar.render(task), "]")
        return grid


@contextmanager
def progress_bar(description: str, unit: str) -> Iterator[ProgressCallback]:
    """A progress bar on stderr for the work done inside the block; yields its `(done, total)` callback.

    The bar appears with the first report (work that fails before it reports
    leaves no bar behind). On a terminal it redraws in place; elsewhere (a
    pipe, a log file) only its final state is written, once, when the block
    ends — also when it ends with an error, so the log shows how far it got.
    """
    bar = _Bar(description, unit)
    try:
        yield bar.report
    finally:
        bar.stop()


class _Bar:
    """One rich progress bar, started by its first report: `replaying [━━━━━━      ] 120/400 events 0:00:03`."""

    def __init__(self, description: str, unit: str) -> None:
        self.description, self.unit = description, unit
        self.shown: tuple[Progress, TaskID] | None = None

    def report(self, done: int, total: int) -> None:
        if self.shown is None:
            console = Console(stderr=True)
            columns = (
                TextColumn("{task.description}"),
                _BarInBrackets(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
            )
            # No refresh thread where nothing is redrawn: `stop` writes the final state anyway.
            progress = Progress(*columns, console=console, auto_refresh=console.is_terminal)
            progress.start()
            self.shown = progress, progress.add_task(self.description, total=total, unit=self.unit)
        progress, task = self.shown
        progress.update(task, completed=done, total=total)

    def stop(self) -> None:
        if self.shown is not None:
            self.shown[0].stop()

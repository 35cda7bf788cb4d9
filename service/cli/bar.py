"""The rich progress bar behind `service.cli.output.progress_bar` (imported by the commands that report progress,
so that the others never load rich's console)."""

from __future__ import annotations

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


class _BarInBrackets(ProgressColumn):
    """Rich's bar between brackets: in a log without colour the brackets show how far it got."""

    def __init__(self, width: int = 30) -> None:
        super().__init__()
        self._bar = BarColumn(bar_width=width)

    def render(self, task: Task) -> Table:
        grid = Table.grid()
        grid.add_row("[", self._bar.render(task), "]")
        return grid


class Bar:
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

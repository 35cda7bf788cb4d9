"""A read-only home in the console: every control that would write is disabled, and says why.

A home on a read-only file system, or a folder the user cannot write, serves
reads: every page shows what it holds, and every write would be refused
(docs/cli.md, A read-only home). So the console never offers one: each page
lists its write controls (`write_controls`), and `WritesHeld` keeps them
disabled with the reason as their tooltip, whatever the page does with them
later (a page enables its buttons as rows are selected or work ends).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


@runtime_checkable
class Writes(Protocol):
    """A page (or a part of one) with controls that write to the memory."""

    def write_controls(self) -> Sequence[QWidget]:
        """The buttons that ask for a write (save, import, approve, rebuild …)."""
        ...


class WritesHeld(QObject):
    """Holds write controls disabled, `why` as their tooltip, for as long as it lives (it is the window's child)."""

    def __init__(self, why: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.why = why
        self.held: list[QWidget] = []

    def hold(self, controls: Iterable[QWidget]) -> None:
        for control in controls:
            control.setEnabled(False)
            control.setToolTip(self.why)
            control.installEventFilter(self)
            self.held.append(control)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Qt sends these once the change is made: undoing it here is not re-entrant within Qt's own change.
        if isinstance(watched, QWidget):
            if event.type() == QEvent.Type.EnabledChange and watched.isEnabled():
                watched.setEnabled(False)
            elif event.type() == QEvent.Type.ToolTipChange and watched.toolTip() != self.why:
                watched.setToolTip(self.why)
        return False

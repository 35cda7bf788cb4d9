"""What the main window knows of a page: its title, its filter, how to read it again, and what it shows.

The window holds one list of pages and treats each the same: it lists the
title, focuses the filter on Ctrl+F, calls `reload` on F5, and hands every
burst of changes to `follow`, which reloads a page when a change touches a
domain it shows. A page adds itself to the console by being in that list.
"""

from __future__ import annotations

from collections.abc import Set
from typing import ClassVar, Protocol, runtime_checkable

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from gui.changes import ChangeFeed
from service.memory.domain import Domain


@runtime_checkable
class Page(Protocol):
    """One page of the console (a `QWidget`)."""

    domains: ClassVar[frozenset[Domain]]
    """The domains whose changes this page shows: a change to any of them reloads it."""

    def title(self) -> str:
        """The page's name in the window's list (translated)."""
        ...

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses on this page (None: the page has no filter)."""
        ...

    def reload(self) -> object:
        """Read the page again from memory (its work runs in the lanes; the page shows it when done)."""
        ...


@runtime_checkable
class KeepsState(Protocol):
    """A page that remembers its layout (column widths, splitters, its filter) in the console's settings."""

    def restore_state(self, settings: QSettings) -> None: ...

    def save_state(self, settings: QSettings) -> None: ...


def shows_any(page: Page, domains: Set[str]) -> bool:
    """Whether a burst of changes to `domains` touches what `page` shows."""
    return not page.domains.isdisjoint(domains)


def follow(page: Page, feed: ChangeFeed) -> None:
    """Reload `page` after every burst of changes that touches a domain it shows."""

    def heard(domains: Set[str]) -> None:
        if shows_any(page, domains):
            page.reload()

    feed.changed.connect(heard)

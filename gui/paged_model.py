"""A table model that holds the rows it has and asks for more a page at a time.

Pages come from the service (filters and sorting are done there); the model
only keeps what was fetched. A listing starts with `begin(query)`: the query
(the filters as they were then) and a generation are captured together, and
every later page of that listing is fetched with the same query, whatever the
filter boxes say meanwhile. Reads run in parallel and may finish out of
order: a first page is shown by the rule of `gui/freshness.py` (dropped when a
newer listing is shown already or the filters were changed since; a listing of
the same filters as a newer one is still shown), and pages of a listing no
longer shown are dropped. Subclasses name their `COLUMNS`, set
`headers` and implement `data`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from gui.freshness import Freshness

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
Query = TypeVar("Query")


@dataclass(frozen=True)
class Listing(Generic[Query]):
    """One listing of a table: the filters it was asked with and its generation."""

    generation: int
    query: Query


class Fetch(Protocol):
    """What a fetcher returns: the running fetch (an asyncio task), so the model learns when it ends."""

    def add_done_callback(self, callback: Callable[[Any], object], /) -> None: ...


class PagedTableModel(QAbstractTableModel, Generic[Row]):
    """Rows fetched so far; `fetcher(offset)` is started when the view wants more."""

    COLUMNS: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self.has_more = False
        self.fetcher: Callable[[int], Fetch] | None = None
        self.headers: tuple[str, ...] = ()
        self.listing: Listing[Any] | None = None  # the listing whose rows are shown
        self._fresh: Freshness[Any] = Freshness()  # the listings begun, and the one shown
        self._fetch: Fetch | None = None  # the fetch under way, if any

    def begin(self, query: Query) -> Listing[Query]:
        """Start a new listing with `query` (its first page is shown with `show`)."""
        return Listing(self._fresh.ask(query), query)

    def show(self, listing: Listing[Any], rows: list[Row], has_more: bool) -> bool:
        """The first page of `listing`; False (and nothing shown) when it is out of date (see the module)."""
        if not self._fresh.is_current(listing.generation, listing.query):
            return False
        self._fresh.shown(listing.generation)
        self.listing = listing
        self.reset_rows(rows, has_more)
        return True

    def extend(self, listing: Listing[Any], rows: list[Row], has_more: bool) -> bool:
        """A further page of `listing`; False (and nothing added) when another listing is shown now."""
        if listing is not self.listing:
            return False
        self.append_rows(rows, has_more)
        return True

    def reset_rows(self, rows: list[Row], has_more: bool) -> None:
        self.beginResetModel()
        self.rows, self.has_more, self._fetch = list(rows), has_more, None
        self.endResetModel()

    def append_rows(self, rows: list[Row], has_more: bool) -> None:
        self.has_more = has_more
        if rows:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(rows) - 1)
            self.rows.extend(rows)
            self.endInsertRows()

    def replace_row(self, row: int, record: Row) -> None:
        self.rows[row] = record
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self.has_more and self._fetch is None and self.fetcher is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent) and self.fetcher is not None:
            fetch = self.fetcher(len(self.rows))
            self._fetch = fetch
            fetch.add_done_callback(lambda _done: self._fetch_ended(fetch))

    def fetch_more(self) -> Fetch | None:
        """The next page's fetch, as a view scrolled to the end starts it (or the one under way); None when
        every row is here."""
        if self._fetch is None:
            self.fetchMore()
        return self._fetch

    def _fetch_ended(self, fetch: Fetch) -> None:
        """However the fetch ended (rows, a failure, a cancel), the view may ask for more again."""
        if self._fetch is fetch:
            self._fetch = None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        shown = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)  # the tooltip: a heading cut short, whole
        if horizontal and role in shown and 0 <= section < len(self.headers):
            return self.headers[section]
        return None

"""The one rule for answers that arrive out of order: which of them may still be shown.

Reads run in parallel and may finish in any order. Each question asked is
numbered; an answer is shown only when nothing asked later has been shown
already, and when nobody has asked a different question since (it answers
what nobody asks any more). The same question asked again (the memory
changed, the question did not) does not make an earlier answer stale, so a
stream of changes cannot keep a page from ever updating. `Tasks.refresh`
(a page's lists and panes) and `PagedTableModel` (a table's listings) both
follow it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Question = TypeVar("Question")


class Freshness(Generic[Question]):
    """The questions asked of one view (a list, a pane, a table) and the answer it shows."""

    def __init__(self) -> None:
        self._asked = 0  # how many questions were asked
        self._latest: Question | None = None  # the last one
        self._shown = 0  # the number of the question whose answer is shown (0: none)

    def ask(self, question: Question) -> int:
        """Number a new question (the latest from now on)."""
        self._asked += 1
        self._latest = question
        return self._asked

    def is_current(self, number: int, question: Question) -> bool:
        """Whether the answer to question `number` may be shown now (see the module)."""
        if number <= self._shown:
            return False
        return number == self._asked or question == self._latest

    def shown(self, number: int) -> None:
        """The answer to question `number` is shown."""
        self._shown = number

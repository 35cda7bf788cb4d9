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
    """A typed row (`service.wire`) as the object the socket would send; anything else as text."""
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value, enc_hook=str)
    return str(value)


@contextmanager
def progress_bar(description: str, unit: str) -> Iterator[ProgressCallback]:
    """A progress bar on stderr for the work done inside the block; yields its `(done, total)` callback.

    The bar appears with the first report (work that fails before it reports
    leaves no bar behind). On a terminal it redraws in place; elsewhere (a
    pipe, a log file) only its final state is written, once, when the block
    ends — also when it ends with an error, so the log shows how far it got.
    """
    from service.cli.bar import Bar  # rich's progress and console: only for a command that reports progress

    bar = Bar(description, unit)
    try:
        yield bar.report
    finally:
        bar.stop()

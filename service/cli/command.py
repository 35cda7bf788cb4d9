"""How a command module declares its words: every leaf gets its handler as `func`.

`service.cli.main.run` calls `args.func(args, config)` for whatever leaf was
parsed, so a command exists in one place: where its module adds it.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal, NoReturn, TypeAlias

if TYPE_CHECKING:  # the parser is built on every run, `--help` and `--version` too: it imports no domain module
    from service.config import Config
    from service.memory.api import MemoryApi

Command: TypeAlias = "Callable[[argparse.Namespace, Config], int]"
"""A headless command: the parsed arguments and the loaded config in, the exit code out."""

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

HomeUse = Literal["existing", "create", "none"]
"""What a command needs of its home. `existing` (the default) refuses a home that is not there, so a
mistyped `--home` is never made into a new, empty one; `create` makes the home when it is missing
(commands that write what a person gives: learn, sync, import, add, serve, demo); `none` never opens it."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, which also says which word was meant when a word is mistyped (`jiyi reslove`)."""

    def error(self, message: str) -> NoReturn:
        wrong = re.match(r"argument \S+: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if wrong:
            offered = re.findall(r"'([^']*)'", wrong.group(2))
            close = difflib.get_close_matches(wrong.group(1), offered, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean '{close[0]}'?"
        super().error(message)


def add_command(
    sub: Subparsers,
    name: str,
    common: argparse.ArgumentParser,
    func: Command,
    help: str,
    *,
    home: HomeUse = "existing",
) -> argparse.ArgumentParser:
    """Add the leaf `name` that runs `func`; returns its parser for the caller's arguments.

    `common` holds the options every word takes (`--home`), so that they may
    stand before or after the command words. `home` says whether the command
    may create a missing home (see `HomeUse`).
    """
    parser = sub.add_parser(name, parents=[common], help=help, description=help)
    parser.set_defaults(func=func, home_use=home)
    return parser


def add_group(
    sub: Subparsers, name: str, common: argparse.ArgumentParser, help: str, *, dest: str, metavar: str | None
) -> Subparsers:
    """Add the word `name` whose own words (at least one required) are added to the returned subparsers."""
    parser = sub.add_parser(name, parents=[common], help=help, description=help)
    return parser.add_subparsers(dest=dest, metavar=metavar, required=True)


def positive_int(text: str) -> int:
    """argparse type: a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


class LazyChoices:
    """An argparse `choices` list kept in another module, imported only when a value is checked or help
    is shown (building the parser imports nothing heavy). Give the option a `metavar`: argparse iterates
    `choices` when an option without one is added."""

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def _values(self) -> tuple[str, ...]:
        return tuple(getattr(importlib.import_module(self._module), self._name))

    def __contains__(self, value: object) -> bool:
        return value in self._values()

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())


def open_memory(config: Config) -> MemoryApi:
    """The home's memory (`service.remote.attach.open_memory`), imported only when a command runs."""
    from service.remote.attach import open_memory as attach

    return attach(config)

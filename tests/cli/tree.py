"""Walking an argparse command tree (tests only: argparse keeps its subparsers private)."""

from __future__ import annotations

import argparse


def leaf_commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every leaf word of `parser` by its command words, e.g. ('alias', 'learn') → its parser."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        return {path: parser}
    leaves: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    for group in groups:
        for word, child in group.choices.items():
            leaves.update(leaf_commands(child, (*path, word)))
    return leaves

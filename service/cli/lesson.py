"""`jiyi lesson …`: lessons agents get in `on` mode; only a person approves them."""

from __future__ import annotations

import argparse
from functools import partial
from typing import TYPE_CHECKING

from service.cli.command import LazyChoices, Subparsers, add_command, add_group, open_memory
from service.wire.episodes import Lesson

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`lesson add TEXT`, `list`, `approve LESSON_ID` and `revoke LESSON_ID`."""
    lesson = add_group(
        sub, "lesson", common, "lessons given to agents in `on` mode", dest="lesson_command", metavar="ACTION"
    )
    add = add_command(lesson, "add", common, add_lesson, "propose a lesson", home="create")
    add.add_argument("text", help="the lesson, as an agent should read it")
    add.add_argument("--app", action="append", default=[], help="a package it is about (repeatable)")
    add.add_argument("--run", action="append", default=[], help="a run it was learned from (repeatable)")
    listing = add_command(lesson, "list", common, list_lessons, "list lessons")
    listing.add_argument(
        "--status",
        choices=LazyChoices("store.episodes.lessons", "STATUSES"),
        metavar="STATUS",
        help="only lessons in this state: %(choices)s",
    )
    for verb, status, text in (
        ("approve", "approved", "approve a lesson (your act: agents cannot)"),
        ("revoke", "revoked", "take a lesson away"),
    ):
        action = add_command(lesson, verb, common, partial(set_status, status), text)
        action.add_argument("lesson_id", help="the id `lesson list` shows")


def add_lesson(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        lesson = memory.lessons.add_lesson(args.text, args.app, runs=args.run, actor="user")
    return _print_lessons([lesson])


def list_lessons(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        lessons = memory.lessons.list_lessons(args.status)
    return _print_lessons(lessons)


def set_status(status: str, args: argparse.Namespace, config: Config) -> int:
    """Approve (`status` "approved") or revoke ("revoked") a lesson, as the person at the terminal."""
    with open_memory(config) as memory:
        lesson = memory.lessons.set_lesson_status(args.lesson_id, status, actor="user")
    return _print_lessons([lesson])


def _print_lessons(lessons: list[Lesson]) -> int:
    for lesson in lessons:
        apps = ",".join(lesson.apps) or "any app"
        card = f"procedure v{lesson.version}  " if lesson.kind == "procedure" else ""
        print(f"{lesson.lesson_id}  {lesson.status:<13}  {card}{apps}  {lesson.text}")
    if not lessons:
        print("no lessons")
    return 0

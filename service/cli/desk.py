"""`jiyi desk …`: the desktop-assistant memory from a terminal, for machines without a display.

A person can see the maintenance state, ask memory what an agent would get,
and make the decisions only a person may make: approve, reject or disable a
skill, confirm or deactivate a fact (recorded with actor `user`). Output is JSON.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from service.config import Config
from service.memory.memory import Memory

Command = Callable[[argparse.Namespace, Config], int]
SKILL_VERBS = {"approve": "active", "reject": "rejected", "disable": "disabled"}
FACT_VERBS = {"confirm": "active", "deactivate": "inactive"}


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    desk = sub.add_parser("desk", parents=[common], help="the desktop assistant's memory").add_subparsers(
        dest="desk_command", required=True
    )
    desk.add_parser("status", parents=[common], help="maintenance backlog, idle time, review due")
    recall = desk.add_parser("recall", parents=[common], help="what memory.recall gives an agent for a query")
    recall.add_argument("query")
    recall.add_argument("--limit", type=int, default=8)
    topics = desk.add_parser("topics", parents=[common], help="topics, most recently active first")
    topics.add_argument("--text", help="only topics whose title or summary contains this")
    skills = desk.add_parser("skills", parents=[common], help="skills (drafts wait for your approval)")
    skills.add_argument("--status", choices=("draft", "active", "disabled", "rejected"))
    skill = desk.add_parser("skill", parents=[common], help="approve, reject or disable a skill (as you)")
    skill.add_argument("verb", choices=tuple(SKILL_VERBS))
    skill.add_argument("skill_id")
    facts = desk.add_parser("facts", parents=[common], help="long-term facts with their evidence")
    facts.add_argument("--scope", choices=("profile", "project", "environment"))
    facts.add_argument("--status", choices=("candidate", "active", "inactive"))
    fact = desk.add_parser("fact", parents=[common], help="confirm or deactivate a fact (as you)")
    fact.add_argument("verb", choices=tuple(FACT_VERBS))
    fact.add_argument("fact_id")
    fact.add_argument("--reason", default="")


def _print(data: Any) -> int:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    return 0


def run(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        verb = args.desk_command
        if verb == "status":
            return _print(memory.desk.maintenance_status())
        if verb == "recall":
            return _print(memory.desk.memory_recall(args.query, limit=args.limit))
        if verb == "topics":
            return _print(memory.desk.list_topics(text=args.text))
        if verb == "skills":
            return _print(memory.desk.list_skills(args.status))
        if verb == "skill":
            return _print(memory.desk.set_skill_status(args.skill_id, SKILL_VERBS[args.verb], actor="user"))
        if verb == "facts":
            return _print(memory.desk.list_facts(scope=args.scope, status=args.status))
        return _print(
            memory.desk.set_fact_status(args.fact_id, FACT_VERBS[args.verb], reason=args.reason, actor="user")
        )


VERBS = ("status", "recall", "topics", "skills", "skill", "facts", "fact")

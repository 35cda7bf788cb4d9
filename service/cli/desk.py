"""`jiyi desk …`: the desktop-assistant memory from a terminal, for machines without a display.

A person can see the maintenance state, ask memory what an agent would get,
and make the decisions only a person may make: approve, reject or disable a
skill, confirm or deactivate a fact (recorded with actor `user`). Output is JSON.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command, add_group, open_memory, positive_int
from service.cli.output import print_json

if TYPE_CHECKING:
    from service.config import Config

SKILL_VERBS = {"approve": "active", "reject": "rejected", "disable": "disabled"}
FACT_VERBS = {"confirm": "active", "deactivate": "inactive"}


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`desk status`, `recall`, `topics`, `skills`, `skill`, `facts` and `fact`."""
    desk = add_group(sub, "desk", common, "the desktop assistant's memory", dest="desk_command", metavar=None)
    add_command(desk, "status", common, status, "maintenance backlog, idle time, review due")
    recall = add_command(desk, "recall", common, recall_memory, "what memory.recall gives an agent for a query")
    recall.add_argument("query", help="what the agent would ask, e.g. 之前 UFO 检查怎么样了")
    recall.add_argument(
        "--limit",
        type=positive_int,
        default=8,
        metavar="N",
        help="related turns and task cards, at most N of each (default 8)",
    )
    topics = add_command(desk, "topics", common, list_topics, "topics, most recently active first")
    topics.add_argument("--text", help="only topics whose title or summary contains this")
    skills = add_command(desk, "skills", common, list_skills, "skills (drafts wait for your approval)")
    skills.add_argument(
        "--status", choices=("draft", "active", "disabled", "rejected"), help="only skills in this state"
    )
    skill = add_command(desk, "skill", common, decide_skill, "approve, reject or disable a skill (as you)")
    skill.add_argument("verb", choices=tuple(SKILL_VERBS), help="your decision")
    skill.add_argument("skill_id", help="the id `desk skills` shows")
    facts = add_command(desk, "facts", common, list_facts, "long-term facts with their evidence")
    facts.add_argument("--scope", choices=("profile", "project", "environment"), help="only facts of this scope")
    facts.add_argument("--status", choices=("candidate", "active", "inactive"), help="only facts in this state")
    fact = add_command(desk, "fact", common, decide_fact, "confirm or deactivate a fact (as you)")
    fact.add_argument("verb", choices=tuple(FACT_VERBS), help="your decision")
    fact.add_argument("fact_id", help="the id `desk facts` shows")
    fact.add_argument("--reason", default="", help="why, in your words (kept with the decision)")


def status(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.maintenance.maintenance_status())
    return 0


def recall_memory(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.desk.memory_recall(args.query, limit=args.limit))
    return 0


def list_topics(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.maintenance.list_topics(text=args.text))
    return 0


def list_skills(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.skills.list_skills(args.status))
    return 0


def decide_skill(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.skills.set_skill_status(args.skill_id, SKILL_VERBS[args.verb], actor="user"))
    return 0


def list_facts(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.facts.list_facts(scope=args.scope, status=args.status))
    return 0


def decide_fact(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.facts.set_fact_status(args.fact_id, FACT_VERBS[args.verb], reason=args.reason, actor="user"))
    return 0

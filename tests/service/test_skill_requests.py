"""Seed 002's one path for an agent to a skill's status (issue 36 §3): it activates a draft only when the user asked
in their latest turn, and its request names that turn. Over a real socket: a request naming no turn, a turn that
does not exist, an older turn, or words the turn does not hold is `forbidden` and writes nothing; the one that
holds up is recorded with the turn and the words; the console decides without it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.host import SocketHost
from tests.service.inprocess import exchange, exchange_as_person, line

ASKED = "好的，把“周报先审”这个技能启用吧"


@pytest.fixture
def drafted(memory: Memory) -> str:
    """A skill draft from the user's guidance, and three turns since: the latest is where the user asks."""
    now = time.time()
    memory.desk.remember_interaction(
        "guide", user_text="以后发周报前先让我看一眼再发", assistant_text="明白", ts=now - 3600
    )
    done = memory.maintenance.maintenance_commit(
        {
            "skills": [
                {
                    "name": "周报先审",
                    "text": "发周报前先给用户审阅",
                    "source_interaction_id": "guide",
                    "quote": "发周报前先让我看一眼",
                }
            ]
        }
    )
    memory.desk.remember_interaction(
        "older", user_text="启用周报先审这个技能", assistant_text="要我现在启用吗？", ts=now - 60
    )
    memory.desk.remember_interaction("latest", user_text=ASKED, assistant_text="", ts=now)
    return str(done["skills"][0]["skill_id"])


@pytest.fixture
def host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    served = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2)
    served.start()
    yield served
    served.stop()


def set_status(qtbot: QtBot, host: SocketHost, params: dict[str, Any], *, person: bool = False) -> dict[str, Any]:
    request = line({"id": 1, "method": "memory.skill.set_status", "params": params}) + b"\n"
    [reply] = exchange_as_person(qtbot, host, request, 1) if person else exchange(qtbot, host, request, 1)
    return reply


@pytest.mark.parametrize(
    ("why", "request_", "said"),
    [
        ("no turn named", {"user_request": "把“周报先审”这个技能启用"}, "an agent may activate a draft only"),
        ("no words quoted", {"interaction_id": "latest"}, "an agent may activate a draft only"),
        ("a turn that does not exist", {"interaction_id": "nope", "user_request": "启用"}, "no interaction 'nope'"),
        (
            "an older turn",
            {"interaction_id": "older", "user_request": "启用周报先审这个技能"},
            "not the user's latest turn",
        ),
        (
            "words the turn does not hold",
            {"interaction_id": "latest", "user_request": "启用所有技能"},
            "do not contain",
        ),
        ("one character", {"interaction_id": "latest", "user_request": "吧"}, "too little"),
        ("claiming to be the person", {"actor": "user"}, "a skill's status is the person's decision"),
    ],
)
def test_an_activation_without_the_users_request_is_forbidden(
    qtbot: QtBot, memory: Memory, drafted: str, host: SocketHost, why: str, request_: dict[str, Any], said: str
) -> None:
    before = memory.store.count_events()
    reply = set_status(qtbot, host, {"skill_id": drafted, "status": "active", **request_})
    assert reply["ok"] is False and reply["error"]["code"] == "forbidden", (why, reply)
    assert said in reply["error"]["message"], (why, reply["error"]["message"])
    assert memory.store.count_events() == before and memory.skills.get_skill(drafted).status == "draft"


def test_an_agent_decides_nothing_else_about_a_skill(
    qtbot: QtBot, memory: Memory, drafted: str, host: SocketHost
) -> None:
    for status in ("rejected", "disabled", "draft"):
        reply = set_status(qtbot, host, {"skill_id": drafted, "status": status})
        assert reply["ok"] is False and reply["error"]["code"] == "forbidden", (status, reply)
    memory.skills.set_skill_status(drafted, "disabled")  # the person's, here
    reply = set_status(
        qtbot, host, {"skill_id": drafted, "status": "active", "interaction_id": "latest", "user_request": "启用吧"}
    )
    assert reply["ok"] is False and "not a draft" in reply["error"]["message"]  # the person disabled it


def test_the_users_request_of_the_latest_turn_activates_and_is_recorded(
    qtbot: QtBot, memory: Memory, drafted: str, host: SocketHost
) -> None:
    # Quoted as the user wrote it, give or take spaces, width and case.
    words = "把“周报先审”这个技能 启用"
    reply = set_status(
        qtbot, host, {"skill_id": drafted, "status": "active", "interaction_id": "latest", "user_request": words}
    )
    assert reply["ok"], reply
    skill = reply["result"]
    assert skill["status"] == "active" and skill["decided_by"] == "agent"
    assert skill["request_interaction_id"] == "latest" and skill["user_request"] == words
    event = list(memory.store.events("desk", types=["skill_status_changed"]))[-1]
    assert event.actor == "agent" and event.payload["interaction_id"] == "latest"
    assert event.payload["user_request"] == words and event.payload["from"] == "draft"
    # One click in the console takes it back: the person's, with no request.
    reply = set_status(qtbot, host, {"skill_id": drafted, "status": "draft", "actor": "user"}, person=True)
    assert reply["ok"] and reply["result"]["status"] == "draft" and reply["result"]["decided_by"] == "user"


def test_a_turn_the_user_said_after_the_request_makes_it_stale(
    qtbot: QtBot, memory: Memory, drafted: str, host: SocketHost
) -> None:
    memory.desk.remember_interaction("after", user_text="算了，先不用", assistant_text="好", ts=time.time() + 5)
    reply = set_status(
        qtbot, host, {"skill_id": drafted, "status": "active", "interaction_id": "latest", "user_request": "启用吧"}
    )
    assert reply["ok"] is False and "after is" in reply["error"]["message"]

"""Each write says what it changed (Anki's `OpChanges`): its reply's `changes` names the domains it changed,
always among the ones its declaration names, driven through the real socket for every write method."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.config import load_config
from service.memory.domain import EVERY_DOMAIN, Domain
from service.memory.group import run_group
from service.memory.memory import Memory
from service.ops import DECLARED
from service.rpc.dispatch import Dispatcher
from service.rpc.host import SocketHost
from store.learning.grant import example_section
from tests.service.inprocess import exchange_as_person, line
from tests.service.test_limits import answer, seed, write_requests

HASHED = {"JIYI_EMBED_MODEL": "hash"}  # what changed is under test, not the model
LAST = ("rebuild", "vectors.rebuild", "job.start")  # they touch everything, or start work on another thread


def test_every_write_declares_its_domains_and_every_read_none() -> None:
    for name, operation in DECLARED.items():
        assert operation.changes <= EVERY_DOMAIN, name
        if operation.kind == "read":
            assert not operation.changes, name
    schema = DECLARED["app.alias.learn"].schema()
    assert schema["changes"] == ["app_kb"] and DECLARED["app.resolve"].schema()["changes"] == []


@pytest.fixture
def seeded(home: Path) -> Iterator[Memory]:
    """A home with something of every kind for the writes to act on (the budget tests' seed), open."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "config.toml").write_text(example_section(), "utf-8")
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        seed(Dispatcher(memory))
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        yield memory


def test_every_write_over_the_socket_changes_only_what_it_declares(
    qtbot: QtBot, seeded: Memory, short_dir: Path
) -> None:
    requests = write_requests(seeded)
    declared_writes = {name for name, operation in DECLARED.items() if operation.kind == "write"}
    assert set(requests) == declared_writes, "a new write method needs a request in write_requests"
    published: list[str] = []
    lock = threading.Lock()

    def heard(domain: str, _txn: int) -> None:
        with lock:
            published.append(domain)

    seeded.add_listener(heard)
    host = SocketHost(seeded, short_dir / "run" / "jiyi.sock", workers=2)
    host.start()
    reported: dict[str, list[str]] = {}
    try:
        for method in sorted(requests, key=lambda name: (name in LAST, LAST.index(name) if name in LAST else 0)):
            with lock:
                published.clear()
            # As the console: the person's operations are among the writes (docs/protocol.md, The person's authority).
            [reply] = exchange_as_person(
                qtbot, host, line({"id": method, "method": method, "params": requests[method]}) + b"\n", 1
            )
            assert reply["ok"], (method, reply)
            with lock:
                during = set(published)
            declared = DECLARED[method].changes
            reported[method] = reply["changes"]
            assert reply["changes"] == sorted(set(reply["changes"])), method
            assert set(reply["changes"]) <= declared, f"{method} changed {reply['changes']}, declares {declared}"
            assert set(reply["changes"]) <= during, f"{method} reported a change it never announced"
            if method not in LAST:  # a job goes on after its reply: what it announces later is its own
                assert during <= declared, f"{method} announced {during}, declares {declared}"
        job = reply["result"]["job_id"]
        qtbot.waitUntil(lambda: seeded.jobs.status(job).state != "running", timeout=60_000)
    finally:
        host.stop()
        seeded.remove_listener(heard)
    # What each write did change: the declarations are not merely wide enough, they are what happens.
    assert reported["app.alias.learn"] == ["app_kb"]
    assert reported["interaction.remember"] == ["desk"]
    assert reported["lesson.add"] == ["lessons"]
    assert reported["episode.revoke"] == ["experience"]
    assert reported["learning.record.revoke"] == ["desk", "learning", "lessons"]
    assert set(reported["run.finish"]) >= {"experience"}
    assert reported["rebuild"] == sorted(EVERY_DOMAIN)
    assert set(reported["taskwizard.import"]) == {"app_kb"}  # its folder holds an App-KB only
    assert reported["job.start"] == []  # the job changes what it changes after the reply, as change notices


def test_a_read_carries_no_changes_and_a_refused_write_none(seeded: Memory) -> None:
    dispatcher = Dispatcher(seeded)
    read = answer(dispatcher, "app.resolve", {"name": "绿泡泡"})
    assert read["ok"] and "changes" not in read
    refused = answer(dispatcher, "lesson.approve", {"lesson_id": "no-such-lesson", "actor": "user"})
    assert refused["ok"] is False and "changes" not in refused
    plan = answer(dispatcher, "memory.maintenance.plan", {})
    assert plan["ok"] and plan["changes"] == []  # a plan proposes: nothing is written


def test_a_grouped_write_reports_its_own_changes_only(seeded: Memory) -> None:
    """Writes committed in one group each report what they changed, not the group's union: a turn
    remembered again as it was changes nothing, beside a new turn that changes the desk."""
    dispatcher = Dispatcher(seeded)
    assert answer(dispatcher, "interaction.remember", _turn("g1"))["changes"] == ["desk"]
    again = dispatcher.prepare(line({"id": 1, "method": "interaction.remember", "params": _turn("g1")}))
    new = dispatcher.prepare(line({"id": 2, "method": "interaction.remember", "params": _turn("g2")}))
    assert not isinstance(again, dict) and not isinstance(new, dict) and dispatcher.is_grouped(new)
    writes = [dispatcher.prepare_write(again), dispatcher.prepare_write(new)]
    outcomes = run_group(seeded.parts, writes)
    assert all(outcome.error is None for outcome in outcomes)
    assert writes[0].changes == frozenset() and writes[1].changes == {Domain.DESK}


def _turn(interaction_id: str) -> dict[str, Any]:
    return {"interaction_id": interaction_id, "user_text": "分组写入的一轮"}

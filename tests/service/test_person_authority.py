"""The person's authority stays the person's (issue 36 §3): over one real socket, every operation only the person
may perform is `forbidden` to an agent (whatever it calls itself, whatever key it guesses) and served to the
console, which presents the person's key the service wrote in its home; nothing an agent is refused writes."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service import person_key
from service.config import load_config
from service.mcp.link import ServiceLink
from service.memory.memory import Memory
from service.ops import DECLARED
from service.ops.declare import Args
from service.remote.memory import RemoteMemory
from service.rpc.dispatch import Dispatcher
from service.rpc.host import SocketHost
from store.core.errors import Forbidden
from store.learning.grant import example_section
from tests.service.inprocess import exchange, exchange_as_person, in_thread, line, person_hello
from tests.service.test_limits import seed, write_requests

HASHED = {"JIYI_EMBED_MODEL": "hash"}
PERSON_ONLY = {name for name, operation in DECLARED.items() if operation.person is not None}


@pytest.fixture
def seeded(home: Path) -> Iterator[Memory]:
    """A home with something of every kind for the person's operations to act on, open (either back end)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    with (home / "config.toml").open("a", encoding="utf-8") as settings:  # beside a PostgreSQL URL, if any
        settings.write("\n" + example_section())
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        seed(Dispatcher(memory))
    with Memory.open(load_config(home=home, env=HASHED)) as memory:  # a restart ends the leases under way as failed
        yield memory


@pytest.fixture
def host(qtbot: QtBot, seeded: Memory, short_dir: Path) -> Iterator[SocketHost]:
    served = SocketHost(seeded, short_dir / "run" / "jiyi.sock", workers=2)
    served.start()
    yield served
    served.stop()


def person_requests(memory: Memory) -> dict[str, dict[str, Any]]:
    """A request that needs the person for every operation that has such requests (the budget tests' writes,
    with `actor: user` where only that claim needs the person, and an import as a job)."""
    writes = write_requests(memory)
    mcp = memory.home.parent / "memory.jsonl"
    as_user = {"app.alias.learn", "app.alias.forget", "lesson.add", "bundle.document.put"}
    requests = {name: {**params, "actor": "user"} if name in as_user else params for name, params in writes.items()}
    requests["job.start"] = {"kind": "facts.import", "system": "mcp-memory", "file": str(mcp)}
    return {name: params for name, params in requests.items() if name in PERSON_ONLY}


def _needs_person(name: str, params: dict[str, Any]) -> bool:
    operation = DECLARED[name]
    assert operation.person is not None
    args: Args = operation.params(**params)
    return operation.person.needed_for(args)


ORDER = ("app.alias.learn", "lesson.approve", "episode.revoke", "learning.record.edit", "job.start")


def _in_order(names: set[str]) -> list[str]:
    """The console's requests in an order where each finds what it acts on (an approval before a revoke)."""
    return sorted(names, key=lambda name: (name == "job.start", name not in ORDER, name))


def test_every_person_only_operation_is_declared_so_and_shown() -> None:
    # The ones issue 36 names, and the others of their nature (docs/protocol.md, The person's authority).
    named = {
        "app.alias.learn",
        "app.alias.forget",
        "app.alias.undo",
        "episode.revoke",
        "episode.restore",
        "lesson.add",
        "lesson.approve",
        "lesson.revoke",
        "memory.fact.set_status",
        "memory.skill.set_status",
        "learning.owner_review",
        "learning.record.edit",
        "learning.record.revoke",
        "taskwizard.import",
        "desk.import",
        "facts.import",
        "job.start",
        "bundle.document.put",
    }
    assert named == PERSON_ONLY
    for name in PERSON_ONLY:
        schema = DECLARED[name].schema()
        assert schema["person"]["decides"] and schema["person"]["when"], name
        assert "forbidden" in schema["errors"], name
    assert DECLARED["app.resolve"].schema()["person"] is None
    table = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text("utf-8")
    assert "| `memory.fact.set_status` | write | yes |" in table and "| always |" in table


def test_over_the_socket_an_agent_is_forbidden_and_the_console_is_served(
    qtbot: QtBot, seeded: Memory, host: SocketHost
) -> None:
    requests = person_requests(seeded)
    assert set(requests) == PERSON_ONLY, "a new person-only operation needs a request here"
    assert all(_needs_person(name, params) for name, params in requests.items())
    wrong = line({"id": "hello", "method": "client.hello", "params": {"kind": "console", "person_key": "x" * 43}})
    claims = {
        "no hello": b"",
        "says console": line({"id": "hello", "method": "client.hello", "params": {"kind": "console"}}) + b"\n",
        "a wrong key": wrong + b"\n",
    }
    events = seeded.store.count_events()
    for name, params in requests.items():
        request = line({"id": name, "method": name, "params": params}) + b"\n"
        for claim, hello in claims.items():
            *said, reply = exchange(qtbot, host, hello + request, 2 if hello else 1)
            assert reply["ok"] is False and reply["error"]["code"] == "forbidden", (name, claim, reply)
            message = reply["error"]["message"]
            assert DECLARED[name].person.decides in message and "the person's decision" in message, message  # type: ignore[union-attr]
            if claim == "a wrong key":
                assert said[0]["error"]["code"] == "forbidden" and "not this service's" in said[0]["error"]["message"]
                assert "x" * 43 not in json.dumps(said) + message  # named as wrong, never echoed
                assert "presented a person's key that is not this service's" in message
            elif said:
                assert said[0]["result"]["person"] is False
    assert seeded.store.count_events() == events, "a refused request wrote something"
    for name in _in_order(set(requests)):
        [reply] = exchange_as_person(
            qtbot, host, line({"id": name, "method": name, "params": requests[name]}) + b"\n", 1
        )
        assert reply["ok"], (name, reply)
    job = reply["result"]["job_id"]
    qtbot.waitUntil(lambda: seeded.jobs.status(job).state != "running", timeout=60_000)
    assert seeded.jobs.status(job).state == "done"
    # What the console did is recorded as the person's.
    assert seeded.facts.get_fact(requests["memory.fact.set_status"]["fact_id"]).status == "inactive"
    assert [e.actor for e in seeded.store.events("lessons", types=["lesson_approved"])][-1] == "user"
    assert next(e for e in seeded.appkb.list_aliases(kind="user") if e.term == "红薯").package == "com.xingin.xhs"


def test_an_agent_is_refused_before_anything_is_said_of_its_params(seeded: Memory) -> None:
    """The person's operation refuses an agent first, even where its params break a rule the operation checks
    (a record's content that is only spaces): the agent learns nothing of its params' rules."""
    dispatcher = Dispatcher(seeded)
    edit = {"id": 1, "method": "learning.record.edit", "params": {"record_id": "rec_x", "content": "   "}}
    reply = json.loads(dispatcher.handle_line(line(edit)))
    assert reply["error"]["code"] == "forbidden", reply
    reply = json.loads(dispatcher.handle_line(line(edit), dispatcher.person))
    assert reply["error"] == {"code": "invalid_params", "message": "params.content must be non-empty text"}


def test_the_key_is_the_homes_private_file_fresh_each_start_and_never_said(
    qtbot: QtBot, seeded: Memory, short_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = seeded.store.home / person_key.KEY_FILE
    keys = []
    for _ in range(2):
        served = SocketHost(seeded, short_dir / "run" / "jiyi.sock", workers=2)
        served.start()
        try:
            info = os.lstat(path)
            assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
            key = person_key.read(seeded.store.home)
            keys.append(key)
            hello, health = exchange(
                qtbot, served, person_hello(served) + line({"id": 2, "method": "health"}) + b"\n", 2
            )
            assert hello["result"] == {"kind": "console", "protocol": hello["result"]["protocol"], "person": True}
            assert key not in json.dumps([hello, health])
        finally:
            served.stop()
        assert not path.exists(), "the key outlived the service that wrote it"
    assert keys[0] != keys[1] and len(keys[0]) >= 43
    assert not any(key in record.getMessage() for record in caplog.records for key in keys)
    # An old key (a console that read it before a restart) is a wrong key now.
    served = SocketHost(seeded, short_dir / "run" / "jiyi.sock", workers=2)
    served.start()
    try:
        stale = line({"id": "h", "method": "client.hello", "params": {"kind": "console", "person_key": keys[0]}})
        params = {"lesson_id": seeded.lessons.list_lessons(None)[0].lesson_id}
        said, reply = exchange(
            qtbot, served, stale + b"\n" + line({"id": 1, "method": "lesson.approve", "params": params}) + b"\n", 2
        )
        assert said["error"]["code"] == "forbidden" and reply["error"]["code"] == "forbidden"
    finally:
        served.stop()


def test_the_console_reads_the_key_and_a_planted_one_is_not_trusted(
    qtbot: QtBot, seeded: Memory, host: SocketHost
) -> None:
    remote = in_thread(qtbot, lambda: RemoteMemory.attach(seeded.config, host.path))
    try:
        lesson = seeded.lessons.list_lessons(None)[0].lesson_id
        approved = in_thread(qtbot, lambda: remote.lessons.set_lesson_status(lesson, "approved"))
        assert approved.status == "approved"
        # A key file that is a symlink (or readable by others) is not read: the console then acts as an agent,
        # and the person's operation says why it was refused.
        path = seeded.store.home / person_key.KEY_FILE
        real = path.read_text("ascii")
        target = seeded.store.home.parent / "planted.key"
        target.write_text(real, "ascii")
        target.chmod(0o600)
        path.unlink()
        path.symlink_to(target)
        remote.close()
        remote = in_thread(qtbot, lambda: RemoteMemory.attach(seeded.config, host.path))
        with pytest.raises(Forbidden, match="revoking a lesson is the person's decision"):
            in_thread(qtbot, lambda: remote.lessons.set_lesson_status(lesson, "revoked"))
        assert seeded.lessons.list_lessons("approved")[0].lesson_id == lesson
        with pytest.raises(person_key.KeyProblem, match="symlink"):
            person_key.read(seeded.store.home)
        path.unlink()
        path.write_text(real, "ascii")
        path.chmod(0o644)
        with pytest.raises(person_key.KeyProblem, match="readable by others"):
            person_key.read(seeded.store.home)
    finally:
        remote.close()


def test_an_agents_alias_is_learned_and_the_consoles_is_the_users(
    qtbot: QtBot, seeded: Memory, host: SocketHost
) -> None:
    agent = {"name": "番茄", "package": "com.xingin.xhs"}
    [reply] = exchange(qtbot, host, line({"id": 1, "method": "app.alias.learn", "params": agent}) + b"\n", 1)
    assert reply["ok"] and reply["result"]["entry"]["kind"] == "learned"
    assert any("learned alias" in warning for warning in reply["result"]["warnings"])
    [reply] = exchange_as_person(
        qtbot, host, line({"id": 2, "method": "app.alias.learn", "params": {**agent, "actor": "user"}}) + b"\n", 1
    )
    assert reply["ok"] and reply["result"]["entry"]["kind"] == "user"
    # An agent may forget its learned aliases, never the person's.
    [reply] = exchange(
        qtbot, host, line({"id": 3, "method": "app.alias.forget", "params": {"name": "番茄"}}) + b"\n", 1
    )
    assert (
        reply["ok"] is False
        and reply["error"]["code"] == "forbidden"
        and "person's own alias" in reply["error"]["message"]
    )
    assert [e.kind for e in seeded.appkb.list_aliases(text="番茄")] == ["user"]
    [reply] = exchange(
        qtbot, host, line({"id": 4, "method": "app.alias.forget", "params": {"name": "小蓝书"}}) + b"\n", 1
    )
    assert reply["ok"] and [e["kind"] for e in reply["result"]["removed"]] == ["learned"]


def test_jiyi_mcp_never_presents_the_key(qtbot: QtBot, seeded: Memory, host: SocketHost) -> None:
    """`jiyi mcp` runs as the same user beside the home, and is an agent all the same: its link never reads the
    key, so the person's operations are refused to it (it offers no tool for them either)."""
    config = load_config(home=seeded.store.home, env={**HASHED, "JIYI_SOCKET": str(host.path)})
    link = ServiceLink(config)
    lesson = seeded.lessons.list_lessons(None)[0].lesson_id
    try:
        with pytest.raises(Forbidden, match="approving a lesson is the person's decision"):
            in_thread(qtbot, lambda: link.call(DECLARED["lesson.approve"], {"lesson_id": lesson, "actor": "user"}))
        assert link.private is None  # it reached the service the test runs, as an agent
    finally:
        link.close()
    assert seeded.lessons.list_lessons("approved") == []

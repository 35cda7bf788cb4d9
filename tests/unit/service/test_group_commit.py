"""Group commit (`service.memory.group`): several writes, one transaction, each its own outcome."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.config import Config, load_config
from service.memory.group import run_group
from service.memory.memory import Memory
from store.core.errors import Conflict, EnvironmentProblem, InvalidInput, NotFound
from store.core.transaction import Transaction
from store.desk.projection import DOMAIN as DESK


def _remember(memory: Memory, interaction_id: str, text: str = "提醒我买牛奶") -> Callable[[], Any]:
    return lambda: memory.desk.remember_interaction(interaction_id, user_text=f"{interaction_id} {text}")


def _interaction_ids(memory: Memory) -> list[str]:
    return [e.payload["interaction_id"] for e in memory.store.events(DESK, types=["interaction_remembered"])]


def test_a_refused_write_gets_its_own_error_and_the_others_commit_each_as_its_own_change(memory: Memory) -> None:
    memory.desk.remember_interaction("x", user_text="x 原来的话")
    outcomes = run_group(
        memory.parts,
        [
            _remember(memory, "a"),
            _remember(memory, "x", "换了的话"),  # the same id with other text: a conflict
            lambda: memory.desk.remember_interaction("empty"),  # neither text: refused
            _remember(memory, "a"),  # a repeat inside the group sees the first: not created again
            _remember(memory, "c"),
        ],
    )
    assert [type(o.error) for o in outcomes] == [type(None), Conflict, InvalidInput, type(None), type(None)]
    assert [o.value["created"] for o in outcomes if o.error is None] == [True, False, True]
    assert _interaction_ids(memory) == ["x", "a", "c"]
    # Each write is its own change in the log (history and undo group events by it).
    events = list(memory.store.events(DESK))
    assert [e.txn for e in events] == [e.seq for e in events]
    assert memory.store.write_stats.snapshot()["transactions"] == 2  # the first write, then the group


def test_a_write_failing_after_it_appended_is_rolled_back_and_the_others_still_commit(
    memory: Memory, config: Config
) -> None:
    def half_written() -> None:
        memory.desk.remember_interaction("half", user_text="只写了一半")
        raise RuntimeError("failed after writing")

    outcomes = run_group(memory.parts, [_remember(memory, "a"), half_written, _remember(memory, "b")])
    assert outcomes[0].error is None and outcomes[2].error is None
    assert isinstance(outcomes[1].error, RuntimeError)
    assert _interaction_ids(memory) == ["a", "b"]
    with pytest.raises(NotFound):
        memory.desk.get_interaction("half")
    assert memory.desk.desk_counts()["interactions"] == 2
    memory.close()
    # The views' bookkeeping names only committed events: opened again, nothing needs a rebuild.
    with Memory.open(config) as reopened:
        assert reopened.store.rebuilt_on_open == []
        assert reopened.desk.desk_counts()["interactions"] == 2


def test_a_write_that_catches_its_own_half_written_block_keeps_nothing_of_it(memory: Memory) -> None:
    store = memory.store

    def catches() -> str:
        try:
            with store.atomic():
                memory.desk.remember_interaction("inner", user_text="块里写了一条")
                raise Conflict("the block fails after appending")
        except Conflict:
            pass
        return "went on"

    outcomes = run_group(memory.parts, [_remember(memory, "a"), catches, _remember(memory, "b")])
    assert [o.value if o.error is None else o.error for o in outcomes][1] == "went on"
    assert all(o.error is None for o in outcomes)
    assert _interaction_ids(memory) == ["a", "b"]  # as when the block was a transaction of its own


def test_changes_are_published_only_once_the_group_committed(memory: Memory) -> None:
    seen: list[tuple[str, bool]] = []

    def listener(domain: str, _seq: int) -> None:
        # Another thread has its own connection: it sees only what is committed.
        found: list[bool] = []

        def look() -> None:
            try:
                memory.desk.get_interaction("b")
                found.append(True)
            except NotFound:
                found.append(False)
            finally:
                memory.store.db.close()  # this thread's connection

        reader = threading.Thread(target=look)
        reader.start()
        reader.join()
        seen.append((domain, found[0]))

    memory.add_listener(listener)
    run_group(memory.parts, [_remember(memory, "a"), _remember(memory, "b")])
    assert seen == [(DESK, True)]


@pytest.mark.postgresql_only
def test_a_reader_following_the_log_during_two_hosts_group_commits_never_skips_an_event(
    memory: Memory, home: Path, tmp_path: Path
) -> None:
    """Event numbers are drawn inside the write lock, so they commit in order: what a reader has seen
    up to event n is everything up to n, even while two hosts commit groups as fast as they can."""
    other_home = tmp_path / "other"
    other_home.mkdir(mode=0o700)
    (other_home / "config.toml").write_text((home / "config.toml").read_text())
    other = Memory.open(load_config(home=other_home, env={}))
    stop = threading.Event()
    failures: list[BaseException] = []
    seen: list[int] = []

    def host(target: Memory, name: str) -> None:
        try:
            for g in range(25):
                run_group(target.parts, [_remember(target, f"{name}-{g}-{i}") for i in range(4)])
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            failures.append(exc)

    def reader() -> None:
        try:
            while not stop.is_set():
                after = seen[-1] if seen else 0
                seen.extend(e.seq for e in memory.store.events(after=after))
        except BaseException as exc:
            failures.append(exc)
        finally:
            memory.store.db.close()  # this thread's connection

    follow = threading.Thread(target=reader)
    follow.start()
    writers = [threading.Thread(target=host, args=(m, n)) for m, n in ((memory, "h0"), (other, "h1"))]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    follow.join()
    try:
        assert not failures
        seen.extend(e.seq for e in memory.store.events(after=seen[-1] if seen else 0))
        assert seen == [e.seq for e in memory.store.events()]  # nothing skipped, nothing twice
        assert len(_interaction_ids(other)) == 200
    finally:
        other.close()
        memory.store.take_models()  # the fixture's memory closes through its own database


def _written_before_and_heard(memory: Memory) -> list[str]:
    """One turn committed before the group; the domains the memory publishes from now on."""
    memory.desk.remember_interaction("before", user_text="before 先记下的")
    published: list[str] = []
    memory.add_listener(lambda domain, _seq: published.append(domain))
    return published


def _three_writes(memory: Memory) -> list[Callable[[], Any]]:
    """Two good turns around one refused before it appends (neither text)."""
    return [_remember(memory, "a"), lambda: memory.desk.remember_interaction("empty"), _remember(memory, "b")]


def _no_write_of_the_group_is_kept(memory: Memory, outcomes: list[Any], published: list[str]) -> None:
    assert isinstance(outcomes[1].error, InvalidInput)  # refused before the commit: its own error
    for outcome in (outcomes[0], outcomes[2], outcomes[3]):  # succeeded, then the commit failed: not acknowledged
        assert outcome.value is None and isinstance(outcome.error, Exception), outcome
        assert not isinstance(outcome.error, InvalidInput)
    assert published == []
    assert _interaction_ids(memory) == ["before"]
    # The store goes on: the next group commits, and nothing of the failed one comes back with it.
    again = run_group(memory.parts, [_remember(memory, "c")])
    assert again[0].error is None and _interaction_ids(memory) == ["before", "c"]
    assert published == [DESK]


def test_when_the_commit_fails_every_write_of_the_group_gets_the_error_and_none_is_kept(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    published = _written_before_and_heard(memory)
    real = Transaction._record_views

    def commit_fails(transaction: Transaction) -> None:
        # The commit's own statement (the views' bookkeeping, written with the COMMIT) fails, as on a lost disk.
        monkeypatch.setattr(Transaction, "_record_views", real)
        raise EnvironmentProblem("the database could not be written at commit")

    monkeypatch.setattr(Transaction, "_record_views", commit_fails)
    outcomes = run_group(memory.parts, [*_three_writes(memory), _remember(memory, "d")])
    assert all("at commit" in str(o.error) for o in (outcomes[0], outcomes[2], outcomes[3]))
    _no_write_of_the_group_is_kept(memory, outcomes, published)


@pytest.mark.postgresql_only
def test_when_the_server_drops_the_group_before_its_commit_no_write_is_acknowledged(
    memory: Memory, request: pytest.FixtureRequest
) -> None:
    published = _written_before_and_heard(memory)
    postgres = request.getfixturevalue("postgres")

    def server_drops_this_connection() -> str:
        pid = memory.store.db.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
        with postgres.admin() as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        return "asked the server to end this group's connection"

    outcomes = run_group(memory.parts, [*_three_writes(memory), server_drops_this_connection])
    _no_write_of_the_group_is_kept(memory, outcomes, published)


def test_an_alias_learned_in_a_group_is_published_once_after_the_commit(memory: Memory) -> None:
    """Every write announces its change through `Parts.changed`, so a group holds the App-KB's too (it once
    published on the bus directly, from inside the group's open transaction)."""
    seen: list[tuple[str, bool]] = []
    memory.add_listener(lambda domain, _seq: seen.append((domain, memory.store.db.in_transaction())))
    run_group(
        memory.parts,
        [
            lambda: memory.appkb.learn_alias("绿泡泡", "com.tencent.mm"),
            lambda: memory.appkb.learn_alias("企鹅", "com.tencent.mobileqq"),
        ],
    )
    assert seen == [("app_kb", False)]

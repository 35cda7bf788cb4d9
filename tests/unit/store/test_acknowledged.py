"""The home's mark of the last change it acknowledged (`store.core.acknowledged`): kept after every commit,
compared on open; a database that holds less is refused, reported or accepted knowingly, never opened silently."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

from service.config import load_config, save_settings
from store.core.acknowledged import DOMAIN, LOSS_ACCEPTED, MARK_NAME, Mark
from store.core.connect import connect_database
from store.core.database import Store
from store.core.errors import ChangesMissing, UnsafePath
from store.projections import all_projections
from tests.conftest import open_store
from tests.postgres_server import PostgresServer


def note(store: Store, count: int = 1) -> list[int]:
    """Commit `count` changes of one event each (a domain without a view); their seqs."""
    seqs = []
    for i in range(count):
        with store.atomic():
            seqs.append(store.append("test", "noted", {"i": i}, actor="test").seq)
    return seqs


def read_mark(home: Path) -> Mark:
    return Mark.decode((home / MARK_NAME).read_bytes())


def lose_newest(home: Path, count: int) -> None:
    """What a WAL cut short, or a server restored to an earlier moment, leaves: the newest events gone (the
    views' bookkeeping still ahead of the log: opening rebuilds them)."""
    settings = load_config(home=home, env={})
    db = connect_database(home, settings.database_url, settings.database_password())
    try:
        db.execute_sql("DELETE FROM event WHERE seq IN (SELECT seq FROM event ORDER BY seq DESC LIMIT ?)", (count,))
    finally:
        db.close()


@pytest.fixture
def written(home: Path) -> list[int]:
    """A home with seven acknowledged changes, closed."""
    store = open_store(home)
    try:
        return note(store, 7)
    finally:
        store.close()


def test_every_commit_moves_the_mark_before_it_returns(home: Path) -> None:
    store = open_store(home)
    try:
        assert read_mark(home).seq == 0 and (home / MARK_NAME).stat().st_mode & 0o777 == 0o600
        seq = note(store)[0]
        assert (read_mark(home).seq, read_mark(home).ts) == (seq, store.events(after=seq - 1).__next__().ts)
        with store.atomic():  # an import's many events at once
            records = store.append_many("test", [("noted", {"i": i}) for i in range(50)], actor="test")
        assert read_mark(home).seq == records[-1].seq
        assert (home / MARK_NAME).stat().st_size == 512  # one record, written in place
    finally:
        store.close()


def test_a_savepoint_rolled_back_leaves_the_mark_at_what_committed(home: Path) -> None:
    store = open_store(home)
    try:
        with store.atomic():
            kept = store.append("test", "noted", {"i": 1}, actor="test").seq
            with pytest.raises(ValueError), store.atomic():
                store.append("test", "noted", {"i": 2}, actor="test")
                raise ValueError("a write that changed its mind")
        assert read_mark(home).seq == kept == store.last_seq()
    finally:
        store.close()
    open_store(home).close()  # no event was acknowledged that the log does not hold


def started_at(backend: str, written: list[int]) -> int:
    """Where a new mark starts: the file's newest event; on a shared server, at this host's next write (which
    of the events before are its own the log does not say)."""
    return written[-1] if backend == "sqlite" else 0


def test_a_home_from_before_the_mark_gets_one_and_opens(home: Path, written: list[int], backend: str) -> None:
    (home / MARK_NAME).unlink()
    store = open_store(home)
    try:
        assert store.acknowledged_seq is None and store.loss is None
        assert read_mark(home).seq == started_at(backend, written)
        seq = note(store)[0]
    finally:
        store.close()
    assert read_mark(home).seq == seq


def test_events_the_database_lost_are_refused_then_reported_then_accepted_knowingly(
    home: Path, written: list[int], backend: str
) -> None:
    """The newest two acknowledged events gone (a WAL cut short; a server restored): opening said nothing and
    went on. Now it is refused with the count and the ways forward, `jiyi doctor` sees it, and accepting it
    records who accepted what in the log."""
    lose_newest(home, 2)
    count = "2 of the 7 events" if backend == "sqlite" else "up to 2 of the 7 events"
    with pytest.raises(ChangesMissing) as refused:
        open_store(home)
    message = str(refused.value)
    assert f"{count} acknowledged are missing (it ends at event {written[4]})" in message
    assert "`jiyi doctor`" in message and "from a backup" in message and "`jiyi serve --accept-loss`" in message
    assert refused.value.missing == 2 and read_mark(home).seq == written[-1]  # nothing was changed
    # the loss's parts, for the console's box to say the cause (gui/refusal.py)
    assert (refused.value.kind, refused.value.acknowledged) == ("lost", written[-1])
    assert refused.value.exact is (backend == "sqlite") and refused.value.location

    settings = load_config(home=home, env={})
    url, password = settings.database_url, settings.database_password()
    reported = Store.open(home, all_projections(), database_url=url, password=password, loss="report")
    try:
        assert reported.loss is not None and reported.loss.kind == "lost" and reported.loss.missing == 2
        with pytest.raises(ChangesMissing):
            note(reported)  # a store opened to report the loss takes no write
    finally:
        reported.close()
    assert read_mark(home).seq == written[-1]

    accepted = Store.open(home, all_projections(), database_url=url, password=password, loss="accept")
    try:
        assert accepted.accepted_loss is not None
        (event,) = accepted.events(DOMAIN, types=[LOSS_ACCEPTED])
        assert event.actor == "user" and event.seq == accepted.last_seq() == read_mark(home).seq
        assert event.payload["missing"] == 2 and event.payload["kind"] == "lost"
        assert event.payload["acknowledged_seq"] == written[-1] and event.payload["held_seq"] == written[4]
        assert f"pid {os.getpid()}" in str(event.payload["by"])
        note(accepted)
    finally:
        accepted.close()
    open_store(home).close()  # accepted once: the next open goes on


def test_rebuilding_the_views_keeps_the_mark(home: Path, written: list[int]) -> None:
    store = open_store(home)
    try:
        store.rebuild()
    finally:
        store.close()
    store = open_store(home)
    try:
        assert store.acknowledged_seq == written[-1] and store.loss is None
    finally:
        store.close()


def test_the_mark_is_a_private_file(
    home: Path, written: list[int], backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    mark = home / MARK_NAME
    mark.chmod(0o644)
    with pytest.raises(UnsafePath, match="readable by others"):
        open_store(home)
    mark.chmod(0o600)
    elsewhere = home.parent / "elsewhere"
    mark.rename(elsewhere)
    mark.symlink_to(elsewhere)
    with pytest.raises(UnsafePath, match="symlink"):
        open_store(home)
    mark.unlink()
    elsewhere.write_bytes(b"\0" * 100 + elsewhere.read_bytes()[100:])  # torn by a power cut, or edited
    elsewhere.rename(mark)
    with caplog.at_level(logging.WARNING, logger="jiyi.store"):
        store = open_store(home)
    try:
        assert "acknowledgement mark" in caplog.text and "unreadable" in caplog.text
        assert read_mark(home).seq == started_at(backend, written)  # a new one
    finally:
        store.close()


@pytest.mark.sqlite_only
def test_an_older_copy_is_told_from_a_lost_wal(home: Path, written: list[int], tmp_path: Path) -> None:
    """A backup restored over the database: refused, said to be an older copy, accepted knowingly as one."""
    backup = tmp_path / "backup.sqlite3"
    shutil.copy(home / "jiyi.sqlite3", backup)  # closed cleanly: everything is in the file
    store = open_store(home)
    try:
        later = note(store, 3)
    finally:
        store.close()
    shutil.copy(backup, home / "jiyi.sqlite3")
    with pytest.raises(ChangesMissing, match="an older copy of the one this home last opened") as refused:
        open_store(home)
    assert f"3 of the {later[-1]} events acknowledged are missing" in str(refused.value)
    assert refused.value.kind == "older copy" and refused.value.location == str(home / "jiyi.sqlite3")
    store = Store.open(home, all_projections(), loss="accept")
    try:
        (event,) = store.events(DOMAIN, types=[LOSS_ACCEPTED])
        assert event.payload["kind"] == "older copy" and event.payload["missing"] == 3
    finally:
        store.close()


@pytest.mark.sqlite_only
def test_another_stores_database_put_in_place_is_refused(home: Path, written: list[int], tmp_path: Path) -> None:
    other = open_store(tmp_path / "other")
    try:
        note(other, 20)
    finally:
        other.close()
    shutil.copy(tmp_path / "other" / "jiyi.sqlite3", home / "jiyi.sqlite3")
    with pytest.raises(ChangesMissing, match="is another store's") as refused:
        open_store(home)
    assert refused.value.missing is None and refused.value.kind == "another store"


@pytest.mark.sqlite_only
def test_a_deleted_database_is_refused_not_made_anew(home: Path, written: list[int]) -> None:
    """No bundles or vectors to notice it by: the database deleted opened as a new, empty home."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{home / 'jiyi.sqlite3'}{suffix}").unlink(missing_ok=True)
    with pytest.raises(ChangesMissing, match="is missing or empty, but this home acknowledged 7 events in it") as no:
        open_store(home)
    assert (no.value.kind, no.value.acknowledged, no.value.location) == (
        "database missing",
        7,
        str(home / "jiyi.sqlite3"),
    )
    assert not (home / "jiyi.sqlite3").exists()
    store = Store.open(home, all_projections(), new_database=True)  # `jiyi serve --new-database`: knowingly
    try:
        (event,) = store.events(DOMAIN, types=[LOSS_ACCEPTED])
        assert event.payload["kind"] == "database missing" and event.payload["missing"] == 7
    finally:
        store.close()


@pytest.mark.sqlite_only
def test_a_wal_deleted_after_its_checkpoint_loses_nothing(home: Path, written: list[int]) -> None:
    store = open_store(home)
    note(store, 3)
    store.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    Path(f"{home / 'jiyi.sqlite3'}-wal").unlink(missing_ok=True)
    store = open_store(home)
    try:
        assert store.loss is None and store.acknowledged_seq == 10
    finally:
        store.close()


@pytest.mark.postgresql_only
def test_hosts_sharing_a_store_each_compare_their_own_mark(
    home: Path, tmp_path: Path, database_url: str, postgres: PostgresServer
) -> None:
    """Two homes on one server: each keeps what it acknowledged; another host's later writes never make one
    refuse, and a loss of the other's newest commits refuses only the host that acknowledged them."""
    second = tmp_path / "second"
    second.mkdir(mode=0o700)
    save_settings(second, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
    first = open_store(home)
    try:
        note(first, 3)
    finally:
        first.close()
    other = open_store(second)
    try:
        note(other, 4)
    finally:
        other.close()
    open_store(home).close()  # the first host's mark is behind the server's newest event: nothing is missing
    lose_newest(second, 2)
    open_store(home).close()  # its own acknowledged events are all there
    with pytest.raises(ChangesMissing, match="up to 2 of the 7 events"):
        open_store(second)


@pytest.mark.sqlite_only
def test_a_database_file_at_a_long_path_outside_the_home_is_named_by_its_digest(tmp_path: Path) -> None:
    folder = tmp_path / ("很长的文件夹名" * 12)
    folder.mkdir(mode=0o700)
    url = f"sqlite:///{folder / 'jiyi.sqlite3'}"
    store = Store.open(tmp_path / "home", all_projections(), database_url=url)
    try:
        note(store, 2)
    finally:
        store.close()
    mark = read_mark(tmp_path / "home")
    assert mark.where.startswith("sha256:") and mark.seq == 2

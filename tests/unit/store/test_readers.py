"""The store's reader threads: reads of one request side by side on a file, on the caller's thread on a server,
inside a transaction, and once the store closed."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest

from store.core.database import Store
from store.core.readers import READERS


def _count_and_thread(store: Store) -> tuple[int, str]:
    count = store.db.execute_sql("SELECT count(*) FROM meta WHERE key = 'readers-test'").fetchone()[0]
    return int(count), threading.current_thread().name


def test_reads_run_side_by_side_on_connections_of_their_own(store: Store, backend: str) -> None:
    with store.atomic():
        store.db.execute_sql("INSERT INTO meta(key, value) VALUES ('readers-test', '1')")
    release = threading.Event()

    def held_read() -> tuple[int, str]:
        release.wait(timeout=30)
        return _count_and_thread(store)

    held = [store.readers.aside(held_read) for _ in range(READERS)]
    # Every reader busy (another request's reads, say): the next read runs on its caller, queueing behind none.
    assert store.readers.aside(lambda: _count_and_thread(store))() == (1, threading.current_thread().name)
    release.set()
    answers = [answer() for answer in held]
    assert {count for count, _ in answers} == {1}  # each reader sees what was committed
    threads = {name for _, name in answers}
    if backend == "sqlite":
        assert len(threads) == READERS and all(name.startswith("jiyi-reader") for name in threads)
        # Free again: the next read goes to a reader.
        assert store.readers.aside(lambda: _count_and_thread(store))()[1].startswith("jiyi-reader")
    else:  # a server: each would hold a connection for the host's life, so they run on the caller's thread
        assert threads == {threading.current_thread().name}


def test_inside_a_transaction_a_read_sees_its_writes(store: Store) -> None:
    with store.atomic():
        store.db.execute_sql("INSERT INTO meta(key, value) VALUES ('readers-test', '1')")
        count, thread = store.readers.aside(lambda: _count_and_thread(store))()
        assert (count, thread) == (1, threading.current_thread().name)


def test_a_reads_error_reaches_the_caller(store: Store) -> None:
    answer = store.readers.aside(lambda: store.db.execute_sql("SELECT * FROM no_such_table").fetchall())
    with pytest.raises(Exception, match="no_such_table"):
        answer()


def test_closing_stops_the_readers_and_later_reads_run_on_the_caller(store: Store) -> None:
    store.readers.aside(lambda: _count_and_thread(store))()
    store.readers.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("jiyi-reader")]
    _count, thread = store.readers.aside(lambda: _count_and_thread(store))()
    assert thread == threading.current_thread().name


def _open_files(path: Path) -> int:
    """How many of this process's file descriptors are open on `path`."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            count += Path(os.readlink(fd)) == path
    return count


@pytest.mark.sqlite_only
def test_closing_the_store_closes_every_readers_connection_at_once(store: Store) -> None:
    assert store.path is not None
    alone = _open_files(store.path)  # this thread's own connection
    started = [store.readers.aside(lambda: _count_and_thread(store)) for _ in range(READERS * 2)]
    assert {name for _, name in (answer() for answer in started)} != {threading.current_thread().name}
    assert _open_files(store.path) > alone
    # The collector is off during the tests: nothing but the close may close the readers' connections.
    store.close()
    assert _open_files(store.path) == 0

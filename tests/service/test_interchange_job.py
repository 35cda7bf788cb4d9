"""The desk export and import through a service that owns the home, over a real socket: an attached command
follows the import as the service's job and gets the report a home of its own would give; what comes out of
the service's home is what went in.

A real `Memory` (the hash embedder: the model is not under test) behind an in-process `SocketHost`; the
client runs on a thread while the test thread runs the host's loop.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from pytestqt.qtbot import QtBot

from service.config import Config, load_config
from service.demo.desk import fill_desk
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.wire.recall import DeskRecall
from store.core.errors import InvalidInput
from store.core.home import DB_NAME
from store.interchange import desk_format
from tests.service.inprocess import in_thread

QUERIES = ("周报", "打印机", "Ubuntu", "weekly report")


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    yield memory
    memory.close()


@pytest.fixture
def demo_export(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    """A demo desk exported from a home of its own, and what `memory.recall` answers there."""
    with Memory.open(load_config(home=tmp_path / "source", env={"JIYI_EMBED_MODEL": "hash"})) as source:
        fill_desk(source)
        out = tmp_path / "out"
        source.interchange.export_desk(out)
        source.desk.index.drain()
        recalled = {query: _recalled(source.desk.memory_recall(query, limit=8)) for query in QUERIES}
    return out, recalled


def _recalled(result: DeskRecall) -> object:
    return msgspec.structs.replace(result, latency_ms=0.0)


def test_an_attached_import_is_the_services_job_and_the_home_gives_back_what_went_in(
    demo_export: tuple[Path, dict[str, object]], qtbot: QtBot, hashed: Memory, remote: RemoteMemory
) -> None:
    out, recalled = demo_export
    total = desk_format.read_export(out).total
    seen: list[tuple[int, int]] = []
    reports = in_thread(qtbot, lambda: remote.interchange.import_desk(out, lambda d, t: seen.append((d, t))))
    assert sum(report.added for report in reports.values()) == total > 0
    assert all(report.refused == 0 and report.skipped == 0 for report in reports.values())
    # one count: the records read, then written, then the desk items the service indexed before it answered
    indexed = hashed.desk.index.open().count()
    assert indexed > 0 and seen and seen[-1] == (2 * total + indexed, 2 * total + indexed)
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    job = hashed.jobs.list()[0]
    assert job.kind == "desk.import" and job.state == "done" and job.cancellable is False
    assert (job.phase, job.phase_done, job.phase_total) == ("indexing", indexed, indexed)  # its last phase's own
    assert job.outcome is not None and job.outcome["reports"] == msgspec.to_builtins(reports)
    # the service indexed what it imported before it answered: recall through it is the source's
    through = in_thread(qtbot, lambda: {query: remote.desk.memory_recall(query, limit=8) for query in QUERIES})
    assert {query: _recalled(result) for query, result in through.items()} == recalled
    # out again through the service: every kind's file as the source wrote it
    back = out.parent / "back"
    counts = in_thread(qtbot, lambda: remote.interchange.export_desk(back))
    assert sum(counts.values()) == total
    for kind in desk_format.KINDS:
        name = desk_format.file_name(kind)
        assert (back / name).read_bytes() == (out / name).read_bytes(), name
    again = in_thread(qtbot, lambda: remote.interchange.import_desk(out))
    assert sum(report.skipped for report in again.values()) == total


def test_a_symlinked_export_is_refused_by_the_service_and_not_followed(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, demo_export: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    out, _ = demo_export
    (tmp_path / "link").symlink_to(out)
    with pytest.raises(InvalidInput, match="is a symlink to a folder"):
        in_thread(qtbot, lambda: remote.interchange.import_desk(tmp_path / "link"))
    assert hashed.jobs.list()[0].state == "failed"
    assert hashed.store.db.execute_sql("SELECT COUNT(*) FROM desk_interaction").fetchone()[0] == 0


def test_a_home_filled_and_closed_while_the_served_one_is_open_leaves_the_served_import_its_own_home(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, demo_export: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    # The served `Memory` opens first, the source after it in this process: the source took peewee's models
    # (bound one per process) and the projections wrote the served import's rows into the source's tables,
    # which failed as a UNIQUE constraint answered `internal`.
    out, recalled = demo_export
    total = desk_format.read_export(out).total
    reports = in_thread(qtbot, lambda: remote.interchange.import_desk(out))
    assert sum(report.added for report in reports.values()) == total > 0
    assert all(report.refused == 0 for report in reports.values())
    served = hashed.store.db.execute_sql("SELECT COUNT(*) FROM desk_interaction").fetchone()[0]
    assert served == reports["interactions"].added > 0
    with sqlite3.connect(tmp_path / "source" / DB_NAME) as source:
        assert source.execute("SELECT COUNT(*) FROM desk_interaction").fetchone()[0] == served  # its own only
    through = in_thread(qtbot, lambda: {query: remote.desk.memory_recall(query, limit=8) for query in QUERIES})
    assert {query: _recalled(result) for query, result in through.items()} == recalled


def test_a_mem0_import_through_the_service_counts_its_memories_in_each_phase(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, tmp_path: Path
) -> None:
    memories = [{"id": str(n), "memory": f"Likes tea number {n}", "user_id": "alex"} for n in range(1, 5)]
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": memories}), "utf-8")
    heard: dict[str, list[tuple[int, int]]] = {"reading": [], "writing": [], "indexing": []}

    def follow(name: str) -> Callable[[int, int], None]:
        return lambda done, total: heard[name].append((done, total))

    report = in_thread(
        qtbot,
        lambda: remote.interchange.import_foreign(
            "mem0", path, progress=follow("reading"), writing=follow("writing"), indexing=follow("indexing")
        ),
    )
    assert report.added == 4
    # Each phase counts its own: 4 memories read, 4 written; the 8 desk items (4 turns, 4 facts) indexed.
    assert all(total == 4 for _done, total in heard["reading"] + heard["writing"]), heard
    assert heard["indexing"][-1] == (8, 8)
    job = hashed.jobs.list()[0]
    assert (job.kind, job.phase, job.phase_done, job.phase_total) == ("facts.import", "indexing", 8, 8)
    assert (job.done, job.total) == (16, 16)  # the one count over every phase, for a bar that moves on

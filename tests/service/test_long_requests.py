"""Long maintenance requests (an import, a rebuild) are served beside the request workers, never on them:
while one is in flight, agents' short requests are still answered, even by a host with a single worker."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.host import SocketHost
from service.rpc.methods import REGISTRY
from service.rpc.registry import MethodTable
from store.episodes.schema import EpisodeOutcome
from tests.service.declared import declared
from tests.service.inprocess import in_thread, line, parse, person_hello, talk


@pytest.fixture
def one_worker(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    """A host with one request worker: a long request on it would leave none for anyone else."""
    served = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=1)
    served.start()
    yield served
    served.stop()


def taskwizard_dir(folder: Path, runs: int) -> Path:
    (folder / "experience").mkdir(parents=True)
    with open(folder / "experience" / "events.jsonl", "w", encoding="utf-8") as out:
        for i in range(runs):
            record = EpisodeOutcome.coerce(
                {"run_id": f"tw-{i}", "ts_start": 1000.0 + i, "ts_end": 1050.0 + i, "goal_text": f"导入的任务 {i}"}
            )
            out.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    return folder


def long_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("jiyi-long")]


def test_short_requests_are_answered_while_an_import_is_in_flight(
    qtbot: QtBot, one_worker: SocketHost, memory: Memory, tmp_path: Path
) -> None:
    source = taskwizard_dir(tmp_path / "memory", 3)
    import_line = line({"id": "import", "method": "taskwizard.import", "params": {"directory": str(source)}})
    reads = [
        line({"id": "list", "method": "episode.list", "params": {"limit": 10}}),
        line({"id": "stats", "method": "recall.stats"}),
        line({"id": "runs", "method": "episode.list", "params": {"limit": 5}}),
    ]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-importer") as pool:
        # The import waits for the write lock this thread holds: it stays in flight, holding its thread.
        with memory.parts.writes:
            # An import is the person's: sent as the console sends it, after the hello that presents the key.
            importing = pool.submit(talk, one_worker.path, person_hello(one_worker) + import_line + b"\n", 2)
            qtbot.waitUntil(lambda: bool(long_threads()))
            answered = in_thread(qtbot, lambda: talk(one_worker.path, b"\n".join(reads) + b"\n", len(reads)))
            still_importing = not importing.done()
        qtbot.waitUntil(importing.done, timeout=15_000)
        [hello, imported] = [parse(reply) for reply in importing.result()]
        assert hello["result"]["person"] is True
    replies = [parse(reply) for reply in answered]
    assert [r["id"] for r in replies] == ["list", "stats", "runs"]
    assert all(r["ok"] for r in replies), replies
    assert replies[0]["result"]["episodes"] == []  # answered before the import wrote anything
    assert still_importing  # every short request was answered while the import waited
    assert imported["ok"] is True and imported["result"]["experience"]["imported"] == 3
    assert {e.run_id for e in memory.runs.list_episodes(limit=10)} == {"tw-0", "tw-1", "tw-2"}


def test_maintenance_methods_are_declared_long() -> None:
    long = {name for name, method in REGISTRY.items() if method.long}
    assert {"taskwizard.import", "rebuild", "vectors.rebuild"} <= long
    assert not long & {"episode.list", "run.start", "run.event", "run.finish", "app.resolve", "recall.stats"}


def test_a_method_cannot_be_long_and_instant() -> None:
    table = MethodTable("test")
    with pytest.raises(ValueError, match="both long and instant"):
        table.op(declared("x"), long=True, instant=lambda _memory: True)(lambda _memory, _a, _c: None)

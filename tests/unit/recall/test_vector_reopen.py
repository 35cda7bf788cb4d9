"""After a call on the embedded index fails for want of disk, the index closes its Chroma client and
opens a fresh one on the next call: a connection left inside a failed write's transaction would
otherwise hold the lock every later write waits on (`full_disk_vectors.py` hung in about one run in
eight before this)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import recall.vectors as vectors_module
from recall.embedders import HashEmbedder
from recall.vectors import Document, VectorIndex
from store.core.errors import EnvironmentProblem


def _documents(start: int, count: int) -> list[Document]:
    return [Document(f"run-{n}", f"目标 {n}", {"device": "d1"}, str(n)) for n in range(start, start + count)]


def test_a_disk_failure_closes_the_client_and_the_next_call_opens_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = VectorIndex(tmp_path, HashEmbedder())
    assert index.upsert("episode", "device:d1", _documents(0, 3)) == 3
    first = index.client
    collection = index.collection("episode", "device:d1")

    def full(*_: Any, **__: Any) -> None:
        raise RuntimeError("Error in compaction: Failed to apply logs to the metadata segment")

    monkeypatch.setattr(collection, "upsert", full)
    monkeypatch.setattr(
        vectors_module, "vector_problem", lambda exc, folder: EnvironmentProblem(f"{folder}: the disk is full")
    )
    with pytest.raises(EnvironmentProblem, match="the disk is full"):
        index.upsert("episode", "device:d1", _documents(10, 1))
    assert first._closed  # its connections, and any transaction one was left in, are gone

    monkeypatch.undo()
    assert index.upsert("episode", "device:d1", _documents(20, 2)) == 2
    assert index.client is not first
    assert {"run-0", "run-20", "run-21"} <= set(index.ids("episode", "device:d1"))


def test_a_failure_that_is_not_the_disk_keeps_the_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = VectorIndex(tmp_path, HashEmbedder())
    index.upsert("episode", "device:d1", _documents(0, 1))
    first = index.client
    collection = index.collection("episode", "device:d1")
    monkeypatch.setattr(collection, "upsert", lambda *a, **k: (_ for _ in ()).throw(ValueError("a bug")))
    with pytest.raises(ValueError, match="a bug"):
        index.upsert("episode", "device:d1", _documents(5, 1))
    assert index.client is first and not first._closed

"""A query on a collection while its first vectors are written answers with what is there, never an error.

Chroma's embedded index raised `InternalError: Error creating hnsw segment reader: Nothing found on disk`
when a query reached a brand-new collection while another thread wrote its first vectors (seen as an
`internal` reply to `memory.recall` right after two `interaction.remember` calls, while the desk indexer
drained its queue). Writes and queries on one collection now take turns; the embedding itself is done
outside that turn, so a recall never waits for the model.
"""

from __future__ import annotations

import threading
from pathlib import Path

from recall.embedders import HashEmbedder
from recall.vectors import Document, VectorIndex


def test_queries_while_a_new_collection_gets_its_first_vectors_never_fail(tmp_path: Path) -> None:
    index = VectorIndex(tmp_path, HashEmbedder())
    probe = HashEmbedder().queries(["目标"])[0]
    failures: list[BaseException] = []
    for round_ in range(12):
        scope = f"device:r{round_}"
        index.collection("desk_interaction", scope)  # created empty, as the indexer's first batch finds it
        written = threading.Event()

        def write(scope: str = scope, written: threading.Event = written) -> None:
            try:
                for batch in range(4):
                    docs = [Document(f"t{batch}-{n}", f"目标 {batch} {n}", {"k": 1}, f"{batch}-{n}") for n in range(8)]
                    index.upsert("desk_interaction", scope, docs)
            except BaseException as exc:  # reported below, with the reader's
                failures.append(exc)
            finally:
                written.set()

        writer = threading.Thread(target=write)
        writer.start()
        while not written.is_set():
            try:
                index.query("desk_interaction", scope, probe, 5)
            except BaseException as exc:
                failures.append(exc)
                break
        writer.join()
        assert failures == []
        assert len(index.query("desk_interaction", scope, probe, 5)) == 5  # every batch arrived and is seen

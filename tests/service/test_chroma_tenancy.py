"""Several stores on one `chroma run` server: each home reads, counts and drops only its own collections (named
by its store id), the hosts of one store share theirs, and collections an older Jiyi named are read by no store
(`jiyi doctor` names them). Real SQLite homes or a real PostgreSQL store, a real Chroma server, the hash
embedder (this is about whose vectors are read, not about the model)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest

from recall.desk_index import COLLECTIONS, SCOPE
from recall.embedders import get_embedder
from recall.vectors import VectorIndex
from service.config import load_config, save_settings
from service.memory.doctor import chroma_collection_names
from service.memory.memory import Memory
from service.wire.desk import Signals
from tests.chroma_server import chroma_server
from tests.postgres_server import PostgresServer

# Starts a Chroma server (seconds), and on PostgreSQL a database too.
pytestmark = pytest.mark.slow

A_TEXT = "灯塔项目的数据库定了用 PostgreSQL"
B_TEXT = "周末去杭州西湖划船看荷花"
INTERACTION = COLLECTIONS["interaction"]


@pytest.fixture
def chroma_url(tmp_path: Path) -> Iterator[str]:
    with chroma_server(tmp_path / "chroma") as url:
        yield url


def open_home(home: Path, chroma_url: str) -> Memory:
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash", "JIYI_CHROMA_URL": chroma_url}))


def episode(run_id: str, goal: str) -> dict[str, object]:
    return {
        "run_id": run_id,
        "ts_end": time.time(),
        "device_scope": "device:d1",
        "goal_text": goal,
        "apps": ["com.xingin.xhs"],
        "success": True,
        "steps": 3,
    }


def nearest(memory: Memory, text: str) -> dict[str, float]:
    """The desk interaction index's hits for `text` in `memory`'s store: id → cosine distance."""
    desk = memory.desk.index.open()
    hits = desk.index.query(INTERACTION, SCOPE, desk.embedder.queries([text])[0], 10)
    return {hit.id: hit.distance for hit in hits}


def documents(memory: Memory, ids: list[str]) -> list[str]:
    collection = memory.desk.index.open().index.collection(INTERACTION, SCOPE, create=False)
    assert collection is not None
    return list(collection.get(ids=ids, include=["documents"])["documents"])


def fill(home: Path, chroma_url: str, own: str, text: str) -> None:
    """Turn `t1` (in every home) and one of the home's own, indexed; one archived run, indexed."""
    with open_home(home, chroma_url) as memory:
        memory.desk.remember_interaction("t1", user_text=text, ts="2026-11-01T02:00:00Z")
        memory.desk.remember_interaction(own, user_text=f"{text} 第二条", ts="2026-11-02T02:00:00Z")
        memory.desk.index.drain()
        memory.runs.archive_episodes([episode(f"run-{own}", f"在小红书搜索{text}")])


def test_two_homes_on_one_server_each_recall_and_rebuild_only_their_own(tmp_path: Path, chroma_url: str) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    fill(a, chroma_url, "a2", A_TEXT)
    fill(b, chroma_url, "b2", B_TEXT)

    with open_home(b, chroma_url) as memory:
        assert memory.desk.index.open().keys("interaction") == {"t1", "b2"}
        assert documents(memory, ["t1"]) == [B_TEXT]  # its own turn t1, not a's of the same id
        assert nearest(memory, B_TEXT)["t1"] < 1e-6
        assert min(nearest(memory, A_TEXT).values()) > 0.05  # a's vectors are nowhere in b's recall
        assert memory.recall.state()["episode_vectors"] == 1
        related = memory.desk.memory_recall(B_TEXT)
        assert related.retrieval.mode == "hybrid"
        first = related.interactions[0]
        assert first.interaction_id == "t1" and isinstance(first.signals, Signals)
        assert (first.signals.similarity or 0.0) > 0.99  # its own vector
        rebuilt = memory.recall.rebuild_vectors()
        assert rebuilt["episodes"] == 1
        memory.desk.index.drain()
        assert memory.desk.index.open().keys("interaction") == {"t1", "b2"}

    with open_home(a, chroma_url) as memory:  # b's rebuild dropped and refilled b's collections only
        assert memory.desk.index.lag() == 0
        assert memory.desk.index.open().keys("interaction") == {"t1", "a2"}
        assert documents(memory, ["t1"]) == [A_TEXT]
        assert nearest(memory, A_TEXT)["t1"] < 1e-6
        assert memory.recall.state()["episode_vectors"] == 1
        assert memory.recall.recall_query(f"在小红书搜索{A_TEXT}", "d1").top1_apps == ["com.xingin.xhs"]
        a_id = memory.parts.store.store_id
    with open_home(b, chroma_url) as memory:
        b_id = memory.parts.store.store_id
    assert a_id and b_id and a_id != b_id
    names = chroma_collection_names(chroma_url)
    assert names and all(n.startswith((f"jiyi.{a_id[:16]}.", f"jiyi.{b_id[:16]}.")) for n in names)


def test_an_older_jiyis_collections_are_read_by_no_store_and_doctor_names_them(tmp_path: Path, chroma_url: str) -> None:
    # What an older Jiyi left on the server: this home's episode under the plain name (no store prefix).
    embedder = get_embedder("hash")
    older = VectorIndex(tmp_path / "older", embedder)  # the embedded index names collections as every Jiyi did
    name = older.name("episode", "device:d1")
    host, port = chroma_url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port))
    made = older.collection("episode", "device:d1")
    assert made is not None
    client.create_collection(name, embedding_function=None, metadata=made.metadata)
    client.get_collection(name, embedding_function=None).add(
        ids=["run-old"], embeddings=embedder.passages(["在小红书搜索火锅店"]), metadatas=[{"source_hash": "x"}]
    )

    home = tmp_path / "home"
    with open_home(home, chroma_url) as memory:
        memory.runs.archive_episodes([episode("run-old", "在小红书搜索火锅店")])
        memory.recall.engine.index.drop_all()  # as if the run had been indexed by the older Jiyi only
        state = memory.recall.state()
        assert state["episode_vectors"] == 0 and state["lagging"] == 1  # the older collection is not this store's
        checks = {c.name: c for c in memory.doctor()}
        assert not checks["vector names"].ok
        assert "older Jiyi" in checks["vector names"].detail and "jiyi rebuild-vec" in checks["vector names"].detail

        assert memory.recall.rebuild_vectors()["embedded"] == 1
        assert memory.recall.state()["lagging"] == 0
        checks = {c.name: c for c in memory.doctor()}
        assert checks["vector names"].ok and "1 more named by an older Jiyi" in checks["vector names"].detail
    assert name in chroma_collection_names(chroma_url)  # a rebuild leaves what an older Jiyi's host may still read


@pytest.mark.postgresql_only
def test_two_hosts_of_one_postgresql_store_share_its_collections(
    tmp_path: Path, chroma_url: str, database_url: str, postgres: PostgresServer
) -> None:
    homes = []
    for host in ("a", "b"):
        home = tmp_path / host
        home.mkdir(mode=0o700)
        save_settings(home, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
        homes.append(home)
    with open_home(homes[0], chroma_url) as memory:
        memory.desk.remember_interaction("t1", user_text=A_TEXT, ts="2026-11-01T02:00:00Z")
        memory.desk.index.drain()
        memory.runs.archive_episodes([episode("run-1", f"在小红书搜索{A_TEXT}")])
    with open_home(homes[1], chroma_url) as memory:  # another host: nothing to embed, a's vectors are its store's
        assert memory.desk.index.lag() == 0
        assert nearest(memory, A_TEXT)["t1"] < 1e-6
        assert memory.recall.state()["episode_vectors"] == 1
        assert memory.recall.recall_query(f"在小红书搜索{A_TEXT}", "d1").top1_apps == ["com.xingin.xhs"]

"""The vector index: Chroma collections of episodes and of app names (`app_alias`).

`chromadb.PersistentClient` in the home's `vectors/` by default, or
`chromadb.HttpClient` when `JIYI_CHROMA_URL` names a Chroma server; no code
path assumes the embedded one. Collections are scoped by kind, embedder and
device (a `where` filter on a large collection costs tens of milliseconds, a
collection per device costs nothing), and record the embedder and dimension
they were built with: a mismatch is an error that names `jiyi rebuild-vec`.
Vectors are always computed by Jiyi's embedder (Chroma's own default would
download a model). Ids are the run ids, so an upsert is idempotent; an
unchanged source hash is never embedded again.

On a Chroma server, several stores may keep their collections side by side:
each store's names begin with its id (`jiyi.<16 hex digits of the store id>.`,
`store.core.identity`), so a home reads, counts and drops only its own, and the
hosts of one store share them. Names an older Jiyi gave on a server (no store
prefix) are read by no store (`older_collections` finds them for `jiyi doctor`);
each store fills its own with `jiyi rebuild-vec`. The embedded index is the
home's own folder and keeps the plain names.

The embedded index is private like the rest of the home: `vectors/` is made
0700 before Chroma opens it, and after Chroma creates or writes files (its
client, each upsert and delete) a pass takes group and other bits off what
it made with the process umask (files 0600, folders 0700). Not a umask around
Chroma's calls: the umask is process-wide, so it would also change what other
threads create meanwhile (the console's own files, exports) and race with
them restoring it; Chroma (1.x, local) writes its files in the calling
thread, during those calls, so the pass after them leaves nothing behind, and
until it runs the 0700 folder keeps others out.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from recall.embedders import CHOICES, Embedder
from recall.remote_embedder import EmbeddingServerProblem
from recall.vector_errors import vector_problem
from store.core.errors import EnvironmentProblem, InvalidInput
from store.core.freed_memory import wipe_freed_memory
from store.core.home import read_only_reason
from store.core.home.atomic_file import make_private, make_private_dirs

if TYPE_CHECKING:  # numpy comes with Chroma and the model, when vectors are first read: `jiyi resolve` never
    import numpy as np

log = logging.getLogger("jiyi.recall")

# What a kind's vectors are computed from changed at these versions; an older collection needs `rebuild-vec`.
# episode 2: the goal alone is embedded (1 embedded the whole document: goal, apps, outcome).
SCHEMES = {"episode": 2}
# How a kind's documents are embedded: e5 has a query and a passage mode (the new task is always a query). Goals
# embedded as queries too (goal against goal is a symmetric match) were measured and left out: level on the
# paraphrase set out of sample, 0.08 of hit@1 lost on the instruction split (docs/recall.md, Confidence).
# Recorded per collection (a collection without it holds passages); a change names `jiyi rebuild-vec`.
MODES = {"episode": "passage"}
# Documents embedded and written per Chroma call: well under Chroma's batch cap (5,461 for the embedded one).
BATCH = 1000
# The names an older Jiyi gave on a Chroma server, before each store's began with its id: `kind-slugdim-scope`.
_OLDER_NAME = re.compile(r"[a-z_]+-[A-Za-z0-9._-]*-[0-9a-f]{12}")


class IndexMismatch(EnvironmentProblem):
    """The collection was built by another embedder or with another dimension."""


Metadata = dict[str, str | int | float | bool]
"""A document's metadata: what Chroma keeps beside it (scalars only)."""


@dataclass(frozen=True)
class Document:
    """One item to index: its id, text, metadata and the hash of what it was built from.

    The vector is computed from `embed_text` when given (an episode's goal alone),
    else from `text`; `text` is what the collection stores as the document. A document
    may come with its `vector` already made by the embedder (shipped: `recall/shipped_aliases.py`).
    """

    id: str
    text: str
    metadata: Metadata
    source_hash: str
    embed_text: str | None = None
    vector: Any = None


@dataclass(frozen=True)
class Hit:
    id: str
    distance: float
    metadata: Metadata
    document: str


def source_hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def _client(home: Path, url: str) -> Any:
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=True)
    if url:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InvalidInput(f"JIYI_CHROMA_URL must look like http://host:port, not {url!r}")
        return chromadb.HttpClient(
            host=parsed.hostname,
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=settings,
        )
    folder = home / "vectors"
    read_only = read_only_reason(home)
    if read_only:  # Chroma writes its own SQLite file as it opens: on a read-only home, recall goes by words
        raise VectorsReadOnly(f"{read_only}: its vector index cannot be opened there (Chroma writes as it opens)")
    wipe_freed_memory()  # hnswlib writes rows it never filled to data_level0.bin
    make_private_dirs(folder)
    client = chromadb.PersistentClient(path=str(folder), settings=settings)
    make_private(folder)  # chroma.sqlite3, and what an older Jiyi left readable
    return client


class VectorsReadOnly(EmbeddingServerProblem):
    """The home's vector index is on a read-only home (recall then goes by mentions and words, as without vectors)."""


def store_namespace(store_id: str | None) -> str:
    """What a store's collection names begin with on a Chroma server (`EnvironmentProblem` without an id)."""
    if not store_id:
        raise EnvironmentProblem(
            "this store has no id yet (a database older than schema 6, opened without migrating), so its vectors "
            "cannot be told from another store's on the Chroma server; open it once where it can be migrated"
        )
    return f"jiyi.{store_id[:16]}."


def older_collections(names: Sequence[str]) -> list[str]:
    """Of the collection names on a Chroma server, those an older Jiyi gave (no store's prefix)."""
    return sorted(n for n in names if not n.startswith("jiyi.") and _OLDER_NAME.fullmatch(n))


def collection_names(client: Any) -> list[str]:
    """Every collection's name on `client` (Chroma 1.x lists collections; older ones listed names)."""
    return [c if isinstance(c, str) else c.name for c in client.list_collections()]


class VectorIndex:
    """Chroma collections for one embedder (on a Chroma server: of the store `store_id` names)."""

    def __init__(self, home: Path, embedder: Embedder, url: str = "", store_id: str | None = None) -> None:
        self.home, self.embedder, self.url = home, embedder, url
        self.store_id = store_id
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._lock = threading.Lock()
        # Held while a collection is opened and cached, and while `drop_all` deletes and forgets them: a handle
        # opened before a drop is never cached after it (it would name a deleted collection from then on).
        self._cache_lock = threading.RLock()
        # One turn per collection for Chroma's own writes and queries: a query that reached a collection while
        # its first vectors were written failed ("Error creating hnsw segment reader: Nothing found on disk").
        # Embedding happens outside the turn, so a query waits for at most one batch's write, never the model.
        self._turns: dict[str, threading.Lock] = {}

    @property
    def is_open(self) -> bool:
        """Whether its client is made (Chroma imported, its files opened): asking it now would not wait."""
        return self._client is not None

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    self._client = _client(self.home, self.url)
                except (InvalidInput, VectorsReadOnly):
                    raise
                except Exception as exc:
                    where = self.url or str(self.home / "vectors")
                    raise EnvironmentProblem(f"cannot open the vector index at {where}: {exc}") from exc
            return self._client

    @contextmanager
    def _disk_checked(self) -> Iterator[None]:
        """A failed call on the embedded index is raised as the full disk it was, when it was one."""
        try:
            yield
        except Exception as exc:
            problem = None if self.url else vector_problem(exc, self.home / "vectors")
            if problem is None:
                raise
            self._reopen_later()
            raise problem from exc

    def _reopen_later(self) -> None:
        """Close the embedded client after a disk failure; the next call opens a fresh one.

        A write that failed on a full disk can leave one of Chroma's SQLite connections inside its
        transaction, and every later write then waits on that lock for good (about one run in eight
        on a 4 MB disk). Closing the client closes its connections, which rolls the transaction back.
        """
        with self._cache_lock, self._lock:  # the order `collection` takes them in
            client, self._client = self._client, None
            self._collections.clear()
        if client is not None:
            with suppress(Exception):  # closing a client whose disk is full must not hide the problem
                client.close()

    def reopen_if_gone(self) -> bool:
        """Close the embedded client when its folder was deleted under it (the next call opens a fresh one,
        which creates the folder again): a client kept on deleted files answers "readonly database".
        True when it did."""
        if self.url or self._client is None or (self.home / "vectors" / "chroma.sqlite3").is_file():
            return False
        self._reopen_later()
        return True

    def _keep_private(self) -> None:
        """Take group and other bits off the files Chroma just made (the embedded index only)."""
        if not self.url:
            make_private(self.home / "vectors")

    @property
    def namespace(self) -> str:
        """What this store's collection names begin with: its id on a Chroma server, nothing in `vectors/`."""
        return store_namespace(self.store_id) if self.url else ""

    def _prefix(self, kind: str) -> str:
        """The store's namespace, `kind`, this embedder's slug and dimension: two stores' or two embedders'
        collections never share a name."""
        choice = CHOICES.get(self.embedder.id)
        slug = choice.slug if choice else str(getattr(self.embedder, "slug", "x"))  # a served model names its own
        return f"{self.namespace}{kind}-{slug}{self.embedder.dim}-"

    def name(self, kind: str, scope: str) -> str:
        return self._prefix(kind) + hashlib.sha1(scope.encode()).hexdigest()[:12]

    def collection(self, kind: str, scope: str, *, create: bool = True) -> Any | None:
        """The collection of `kind` for `scope`, checked against this embedder."""
        name = self.name(kind, scope)
        if name in self._collections:
            return self._collections[name]
        with self._cache_lock, self._disk_checked():
            return self._open(kind, scope, name, create=create)

    def _open(self, kind: str, scope: str, name: str, *, create: bool) -> Any | None:
        if create:
            collection = self.client.get_or_create_collection(
                name,
                embedding_function=None,
                metadata={
                    "hnsw:space": "cosine",
                    "embedder": self.embedder.id,
                    "dim": self.embedder.dim,
                    "kind": kind,
                    "scope": scope,
                    "scheme": SCHEMES.get(kind, 1),
                    "embed_mode": MODES.get(kind, "passage"),
                },
            )
        else:
            client = self.client  # an unusable index is an error, not "no collection yet"
            try:
                collection = client.get_collection(name, embedding_function=None)
            except Exception:
                return None
        meta = collection.metadata or {}
        if meta.get("embedder") != self.embedder.id or meta.get("dim") != self.embedder.dim:
            raise IndexMismatch(
                f"the vector collection {name} was built by {meta.get('embedder')} ({meta.get('dim')}-d), "
                f"not {self.embedder.id} ({self.embedder.dim}-d); run `jiyi rebuild-vec`"
            )
        if meta.get("scheme", 1) != SCHEMES.get(kind, 1):
            raise IndexMismatch(
                f"the vector collection {name} was built by an older Jiyi (vectors of scheme {meta.get('scheme', 1)}, "
                f"now {SCHEMES.get(kind, 1)}); run `jiyi rebuild-vec`"
            )
        built, wanted = meta.get("embed_mode", "passage"), MODES.get(kind, "passage")
        if built != wanted:
            raise IndexMismatch(
                f"the vector collection {name} holds its texts embedded as {built} (an older Jiyi), and recall "
                f"now embeds them as {wanted}; run `jiyi rebuild-vec`"
            )
        self._collections[name] = collection
        return collection

    def _turn(self, collection: Any) -> threading.Lock:
        """The lock a Chroma write or query on `collection` holds (see `__init__`)."""
        with self._lock:
            return self._turns.setdefault(str(collection.name), threading.Lock())

    def upsert(self, kind: str, scope: str, documents: Sequence[Document]) -> int:
        """Index `documents`; returns how many were embedded (unchanged hashes are skipped).

        Many documents (a bulk ingest) are embedded and added `BATCH` at a time:
        one model call and one Chroma write per batch, under Chroma's own cap.
        """
        if not documents:
            return 0
        collection = self.collection(kind, scope)
        assert collection is not None
        documents = list({d.id: d for d in documents}.values())  # an id listed twice: its last listing
        embedded = 0
        with self._disk_checked():
            for start in range(0, len(documents), BATCH):
                embedded += self._upsert_batch(collection, documents[start : start + BATCH], MODES.get(kind, "passage"))
        return embedded

    def _upsert_batch(self, collection: Any, documents: Sequence[Document], mode: str) -> int:
        known = collection.get(ids=[d.id for d in documents], include=["metadatas"])
        hashes = {i: (m or {}).get("source_hash") for i, m in zip(known["ids"], known["metadatas"] or [], strict=False)}
        changed = [d for d in documents if hashes.get(d.id) != d.source_hash]
        if changed:
            made = [d for d in changed if d.vector is None]
            texts = [d.text if d.embed_text is None else d.embed_text for d in made]
            embed = self.embedder.queries if mode == "query" else self.embedder.passages
            fresh = iter(embed(texts) if made else ())
            import numpy as np

            vectors = np.stack([next(fresh) if d.vector is None else d.vector for d in changed])
            with self._turn(collection):
                collection.upsert(
                    ids=[d.id for d in changed],
                    embeddings=vectors,
                    documents=[d.text for d in changed],
                    metadatas=[{**d.metadata, "source_hash": d.source_hash} for d in changed],
                )
            self._keep_private()  # a collection's first vectors make its segment folder and files
        return len(changed)

    def delete(self, kind: str, scope: str, ids: Sequence[str]) -> None:
        collection = self.collection(kind, scope, create=False)
        if collection is not None and ids:
            with self._disk_checked(), self._turn(collection):
                collection.delete(ids=list(ids))
            self._keep_private()

    def query(self, kind: str, scope: str, vector: Any, k: int, *, metadata: bool = True) -> list[Hit]:
        """The `k` nearest items of the scope (none when it has no collection yet); `metadata=False` leaves
        each hit's metadata empty (see `query_many`)."""
        return self.query_many(kind, scope, [vector], k, metadata=metadata)[0]

    def query_many(
        self, kind: str, scope: str, vectors: Sequence[Any], k: int, *, metadata: bool = True
    ) -> list[list[Hit]]:
        """`query` for many vectors in one Chroma call (an evaluation, a demo: ~15× cheaper than one by one).

        `metadata=False` asks Chroma for ids and distances only: reading the hits' metadata is most of a
        query's cost (bench/memory_recall.py: 40 nearest of 20k, 12 ms with it, 4 ms without).
        """
        collection = self.collection(kind, scope, create=False)
        if collection is None or not len(vectors):
            return [[] for _ in vectors]
        # No count() first: it costs ~9 ms at 100k, and Chroma answers a short or empty collection with fewer hits.
        # Documents are not fetched: recall needs the metadata only, and long texts cost time at 100k.
        include = ["distances", "metadatas"] if metadata else ["distances"]
        with self._disk_checked(), self._turn(collection):
            result = collection.query(query_embeddings=list(vectors), n_results=k, include=include)
        metadatas = result["metadatas"] if metadata else [[None] * len(ids) for ids in result["ids"]]
        return [
            [Hit(i, float(d), m or {}, "") for i, d, m in zip(ids, distances, found, strict=False)]
            for ids, distances, found in zip(result["ids"], result["distances"], metadatas, strict=True)
        ]

    def vectors(self, kind: str, scope: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of `ids` (ids the scope does not hold are left out)."""
        collection = self.collection(kind, scope, create=False)
        if collection is None or not ids:
            return {}
        import numpy as np

        with self._disk_checked():
            found = collection.get(ids=list(ids), include=["embeddings"])
        return {i: np.asarray(v, dtype=np.float32) for i, v in zip(found["ids"], found["embeddings"], strict=True)}

    def count(self, kind: str, scope: str) -> int:
        collection = self.collection(kind, scope, create=False)
        if collection is None:
            return 0
        with self._disk_checked():
            return int(collection.count())

    def ids(self, kind: str, scope: str) -> list[str]:
        collection = self.collection(kind, scope, create=False)
        return [] if collection is None else list(collection.get(include=[])["ids"])

    def drop_all(self, kind: str | None = None, progress: Callable[[str], None] | None = None) -> int:
        """Delete every collection of this store of `kind` (all kinds when None), whatever embedder built it.

        On a Chroma server, other stores' collections and those an older Jiyi named are left alone.
        """
        dropped = 0
        mine = self.namespace + (f"{kind}-" if kind is not None else "")
        with self._cache_lock:
            for name in collection_names(self.client):
                if name.startswith(mine):
                    self.client.delete_collection(name)
                    dropped += 1
                    if progress:
                        progress(name)
            self._collections.clear()
        return dropped

    def scopes(self, kind: str) -> list[str]:
        """The scopes that have a `kind` collection for this embedder."""
        out = []
        prefix = self._prefix(kind)
        for name in collection_names(self.client):
            if name.startswith(prefix):
                meta = self.client.get_collection(name, embedding_function=None).metadata or {}
                if isinstance(meta.get("scope"), str):
                    out.append(meta["scope"])
        return out

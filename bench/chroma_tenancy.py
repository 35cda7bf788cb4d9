"""Stores side by side on one Chroma server: what naming a store's collections by its id costs.

Three ways for several stores to share one `chroma run` server, measured in the same run on the same server:

* plain — the names an older Jiyi gave (no store in them): the baseline, and the bug (stores share vectors);
* prefix — Jiyi's choice: the store's id begins each name (`jiyi.<16 hex>.episode-…`), one client, no more calls;
* tenant — the alternative: a Chroma tenant and database per store, made through its AdminClient, and a client
  bound to them.

For each: the time from a new client to the first answered query (what a host pays once as it opens a store;
median of `--opens`), and the median of `--queries` top-10 queries over a collection of `--vectors` vectors
(what every recall pays). Hash embedder (the model is not what is measured).

Run: `python bench/chroma_tenancy.py [--vectors 5000] [--queries 300] [--opens 15] [--json]`
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' Chroma server

import chromadb  # noqa: E402
import numpy as np  # noqa: E402
from chromadb.config import Settings  # noqa: E402

from recall.embedders import get_embedder  # noqa: E402
from recall.vectors import Document, VectorIndex  # noqa: E402
from tests.chroma_server import chroma_server  # noqa: E402

SCOPE = "device:bench"
SETTINGS = Settings(anonymized_telemetry=False)


class PlainIndex(VectorIndex):
    """The names an older Jiyi gave on a server (no store prefix): the baseline."""

    @property
    def namespace(self) -> str:
        return ""


class TenantIndex(VectorIndex):
    """A Chroma tenant and database per store, each made through the AdminClient when the index opens."""

    @property
    def namespace(self) -> str:
        return ""

    @property
    def client(self) -> Any:
        if self._client is None:
            parsed = urlparse(self.url)
            host, port = parsed.hostname or "127.0.0.1", parsed.port or 8000
            admin = chromadb.AdminClient(
                Settings(
                    chroma_api_impl="chromadb.api.fastapi.FastAPI",
                    chroma_server_host=host,
                    chroma_server_http_port=port,
                    anonymized_telemetry=False,
                )
            )
            tenant = database = f"jiyi-{self.store_id}"
            try:
                admin.get_tenant(tenant)
            except Exception:
                admin.create_tenant(tenant)
            try:
                admin.get_database(database, tenant)
            except Exception:
                admin.create_database(database, tenant)
            self._client = chromadb.HttpClient(
                host=host, port=port, tenant=tenant, database=database, settings=SETTINGS
            )
        return self._client


KINDS: dict[str, type[VectorIndex]] = {"plain": PlainIndex, "prefix": VectorIndex, "tenant": TenantIndex}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--opens", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = get_embedder("hash")
    documents = [Document(f"run-{n}", f"在小红书搜索第{n}家火锅店", {"n": n}, f"h{n}") for n in range(args.vectors)]
    probes = np.asarray(embedder.queries([f"搜索第{n * 7}家火锅店" for n in range(args.queries)]))
    with tempfile.TemporaryDirectory() as folder, chroma_server(Path(folder) / "chroma") as url:
        ids = {name: uuid.uuid4().hex for name in KINDS}
        indexes = {name: kind(Path(folder), embedder, url, ids[name]) for name, kind in KINDS.items()}
        for index in indexes.values():
            index.upsert("episode", SCOPE, documents)
            index.query("episode", SCOPE, probes[0], 10)  # warm
        each: dict[str, list[float]] = {name: [] for name in KINDS}
        opens: dict[str, list[float]] = {name: [] for name in KINDS}
        for vector in probes:  # interleaved, so the machine's drift falls on all three alike
            for name, index in indexes.items():
                started = time.perf_counter()
                index.query("episode", SCOPE, vector, 10)
                each[name].append(time.perf_counter() - started)
        for _ in range(args.opens):
            for name, kind in KINDS.items():
                started = time.perf_counter()
                kind(Path(folder), embedder, url, ids[name]).query("episode", SCOPE, probes[0], 10)
                opens[name].append(time.perf_counter() - started)
        figures = {
            name: {
                "query_p50_ms": round(statistics.median(each[name]) * 1000, 3),
                "open_to_first_query_ms": round(statistics.median(opens[name]) * 1000, 2),
            }
            for name in KINDS
        }
    base = figures["plain"]
    for name in figures:
        figures[name]["query_vs_plain"] = round(figures[name]["query_p50_ms"] / base["query_p50_ms"], 3)
        figures[name]["open_vs_plain"] = round(
            figures[name]["open_to_first_query_ms"] / base["open_to_first_query_ms"], 3
        )
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{args.vectors} vectors, {args.queries} queries, {args.opens} opens, one chroma run server")
        print(f"{'naming':8} {'query p50 ms':>13} {'× plain':>8} {'open→query ms':>14} {'× plain':>8}")
        for name, row in figures.items():
            print(
                f"{name:8} {row['query_p50_ms']:>13} {row['query_vs_plain']:>8} "
                f"{row['open_to_first_query_ms']:>14} {row['open_vs_plain']:>8}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

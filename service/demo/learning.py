"""The demo's learning: a grant in its config.toml, and a worker's and a reviewer's work on what it found.

The extractor and the reviewer here are scripted (the demo calls no model): facts from what the person
said about themselves, a no-op for everything else; most candidates approved, one rejected, two left
for the owner to review on the 学习 page.
"""

from __future__ import annotations

from typing import TypedDict

from service.memory.memory import Memory
from service.wire.learning import Adopted
from store.learning.sources import SourceJson

FACTS = {
    "我是做嵌入式开发的": ("fact.profile", "用户做嵌入式开发"),
    "回答请简短一点": ("fact.profile", "用户希望回答简短"),
    "书房那台电脑装的是 Ubuntu 24.04": ("fact.environment", "书房电脑是 Ubuntu 24.04"),
    "打印机在客厅，型号是 HP M227": ("fact.environment", "客厅打印机是 HP M227"),
    "以后发周报前先让我看一眼再发": ("skill_draft", "发周报前先给用户审阅"),
    "整理新闻时只保留科技和财经": ("fact.profile", "整理新闻只保留科技和财经"),
}
LEASES = 80  # at most this many extraction admissions of the demo grant are spent
LEFT_FOR_THE_OWNER = 2


def fill_learning(memory: Memory) -> dict[str, int]:
    """Run the pipeline over the demo's sources as scripted workers would; how many records were adopted."""
    proposed = 0
    for n in range(LEASES):
        lease = memory.learning.extract_lease(f"demo-lease-{n}")
        if lease.get("empty"):
            break
        result = _candidate(lease["snapshot"]["source"])
        if result is not None:
            proposed += 1
        memory.learning.extract_submit(lease["operation_id"], f"demo-submit-{n}", result or {"operation": "noop"})
    adopted = 0
    for n in range(max(0, proposed - LEFT_FOR_THE_OWNER)):
        review = memory.learning.review_lease(f"demo-review-{n}")
        if review.get("empty"):
            break
        verdict = "rejected" if n == 1 else "approved"
        reason = "只是一时的说法" if verdict == "rejected" else "用户原话，符合学习规则"
        reply = memory.learning.review_submit(review["review_id"], f"demo-verdict-{n}", verdict, reason)
        adopted += isinstance(reply.adoption, Adopted)
    return {"learned": adopted}


class Proposal(TypedDict):
    """A candidate the scripted extractor submits: a fact or skill draft the person said, verbatim."""

    operation: str  # "add"
    kind: str
    content: str
    quotations: list[str]


def _candidate(source: SourceJson) -> Proposal | None:
    said = " ".join(t["text"] for t in source["turns"] if t["role"] == "user")
    for quote, (kind, content) in FACTS.items():
        if quote in said:
            return {"operation": "add", "kind": kind, "content": content, "quotations": [quote]}
    return None

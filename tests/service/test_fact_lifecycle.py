"""Facts keep their lifecycle whoever writes them (issue 36 §4, seed 002): an environment fact stays a candidate
until independent evidence on two valid workdays, learning's adoption included, and a fact that says what one
already here says adds its evidence there instead of becoming a second fact. On both back ends."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.config import load_config
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from store.learning.grant import example_section
from tests.service.test_limits import answer

DAY = 86_400.0
IDS = itertools.count(1)  # request ids: plain, never a long number (the filter refuses those as sensitive)
HASHED = {"JIYI_EMBED_MODEL": "hash"}


@pytest.fixture
def learning(home: Path) -> Iterator[Memory]:
    """A home with the owner's grant (every kind, `add`), open."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    with (home / "config.toml").open("a", encoding="utf-8") as settings:
        settings.write("\n" + example_section())
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        yield memory


def said(memory: Memory, interaction_id: str, text: str, days_ago: float) -> None:
    """The user said `text`, `days_ago` days ago (a workday of its own)."""
    memory.desk.remember_interaction(
        interaction_id, user_text=text, assistant_text="好的", ts=time.time() - days_ago * DAY
    )


def learn(dispatcher: Dispatcher, proposals: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """Run the pipeline over what waits, as a scripted extractor and reviewer would: for a source whose user
    words hold a quote of `proposals`, that fact (kind, content); a no-op for the rest; every candidate approved.
    The adoptions' outcomes."""
    for _ in range(100):
        leased = answer(dispatcher, "learning.extract.lease", {"request_id": f"x-{next(IDS)}"})
        assert leased["ok"], leased
        lease = leased["result"]
        if lease.get("empty"):
            break
        words = " ".join(t["text"] for t in lease["snapshot"]["source"]["turns"] if t["role"] == "user")
        found = next(((quote, fact) for quote, fact in proposals.items() if quote in words), None)
        result: dict[str, Any] = {"operation": "noop"}
        if found is not None:
            quote, (kind, content) = found
            result = {"operation": "add", "kind": kind, "content": content, "quotations": [quote]}
        submit = {"operation_id": lease["operation_id"], "request_id": f"s-{next(IDS)}", "result": result}
        submitted = answer(dispatcher, "learning.extract.submit", submit)
        assert submitted["ok"] and submitted["result"]["accepted"], submitted
    adoptions = []
    for _ in range(100):
        leased = answer(dispatcher, "learning.review.lease", {"request_id": f"r-{next(IDS)}"})
        assert leased["ok"], leased
        review = leased["result"]
        if review.get("empty"):
            break
        verdict = {
            "review_id": review["review_id"],
            "request_id": f"v-{next(IDS)}",
            "verdict": "approved",
            "reason": "原话",
        }
        reviewed = answer(dispatcher, "learning.review.submit", verdict)
        assert reviewed["ok"], reviewed
        adoptions.append(reviewed["result"]["adoption"])
    return adoptions


def facts_about(memory: Memory, *words: str) -> list[Any]:
    return [f for f in memory.facts.list_facts() if all(w in f.content for w in words)]


def test_an_adopted_environment_fact_is_a_candidate_until_a_second_workday(learning: Memory) -> None:
    dispatcher = Dispatcher(learning)
    said(learning, "t1", "打印机在客厅，型号是 HP M227", days_ago=2)
    [adoption] = learn(dispatcher, {"打印机在客厅": ("fact.environment", "客厅打印机是 HP M227")})
    assert adoption["outcome"] == "adopted"
    [fact] = facts_about(learning, "M227")
    assert fact.status == "candidate" and len(fact.workdays) == 1, fact  # one workday of evidence: not yet
    assert "adopted by learning" in fact.status_reason
    record = learning.learning.list_records("active")[0]
    assert record.target == f"fact:{fact.fact_id}" and record.managed  # still learning's, a candidate
    # Independent evidence on another workday, in other words: the same fact, now active.
    said(learning, "t2", "客厅那台打印机是 HP M227", days_ago=1)
    learn(dispatcher, {"客厅那台打印机": ("fact.environment", "打印机在客厅，型号 HP M227")})
    [fact] = facts_about(learning, "M227")
    assert fact.status == "active" and len(fact.workdays) == 2, fact
    assert {e.source_id for e in fact.evidence} == {"t1", "t2"}


def test_adoption_adds_evidence_to_a_candidate_and_never_promotes_it_alone(learning: Memory) -> None:
    dispatcher = Dispatcher(learning)
    said(learning, "t1", "打印机在客厅，型号是 HP M227", days_ago=1)
    evidence = [{"interaction_id": "t1", "quote": "打印机在客厅，型号是 HP M227"}]
    commit = {"facts": [{"scope": "environment", "content": "打印机在客厅，型号 HP M227", "evidence": evidence}]}
    assert answer(dispatcher, "memory.maintenance.commit", commit)["result"]["facts"][0]["status"] == "candidate"
    # The demo's case: learning adopts the same thing in other words, from the same turn (one workday).
    learn(dispatcher, {"打印机在客厅": ("fact.environment", "客厅打印机是 HP M227")})
    [fact] = facts_about(learning, "M227")  # no second fact
    assert fact.content == "打印机在客厅，型号 HP M227" and fact.status == "candidate", fact


def test_a_near_duplicate_commit_adds_evidence_and_a_different_fact_stays_apart(learning: Memory) -> None:
    dispatcher = Dispatcher(learning)
    said(learning, "a", "客厅打印机是 HP M227", days_ago=3)
    said(learning, "b", "打印机在客厅，型号是 HP M227", days_ago=2)
    said(learning, "c", "书房打印机也是 HP M227", days_ago=2)
    said(learning, "d", "客厅打印机换成 HP M428 了", days_ago=1)

    def commit(content: str, source: str, quote: str) -> dict[str, Any]:
        fact = {"scope": "environment", "content": content, "evidence": [{"interaction_id": source, "quote": quote}]}
        reply = answer(dispatcher, "memory.maintenance.commit", {"facts": [fact]})
        assert reply["ok"], reply
        return dict(reply["result"]["facts"][0])

    first = commit("客厅打印机是 HP M227", "a", "客厅打印机是 HP M227")
    second = commit("打印机在客厅，型号 HP M227", "b", "打印机在客厅，型号是 HP M227")
    assert second["fact_id"] == first["fact_id"] and second["outcome"] == "activated", second  # two workdays now
    study = commit("书房打印机是 HP M227", "c", "书房打印机也是 HP M227")
    newer = commit("客厅打印机是 HP M428", "d", "客厅打印机换成 HP M428 了")
    assert len({first["fact_id"], study["fact_id"], newer["fact_id"]}) == 3  # another room, another model
    assert study["status"] == newer["status"] == "candidate"
    assert len(facts_about(learning, "M227")) == 2


def test_learning_never_revives_what_the_person_retired_in_other_words(learning: Memory) -> None:
    dispatcher = Dispatcher(learning)
    said(learning, "t1", "打印机在客厅，型号是 HP M227", days_ago=2)
    evidence = [{"interaction_id": "t1", "quote": "打印机在客厅，型号是 HP M227"}]
    commit = {"facts": [{"scope": "environment", "content": "打印机在客厅，型号 HP M227", "evidence": evidence}]}
    fact_id = answer(dispatcher, "memory.maintenance.commit", commit)["result"]["facts"][0]["fact_id"]
    learning.facts.set_fact_status(fact_id, "inactive")  # the person's
    said(learning, "t2", "客厅那台打印机是 HP M227", days_ago=1)
    [adoption] = learn(dispatcher, {"客厅那台打印机": ("fact.environment", "客厅打印机是 HP M227")})
    assert adoption["outcome"] == "refused" and "deactivated" in adoption["reason"], adoption
    assert [f.status for f in facts_about(learning, "M227")] == ["inactive"]

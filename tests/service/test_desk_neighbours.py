"""The turn after the one that matches: a strongly related turn lends part of its score to the turns said just
before and after it in the same sitting, so an answer that shares no word with the question still comes.
Real SQLite or PostgreSQL, real Chroma; the hash embedder (this is about the order, not the model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import load_config
from service.memory.memory import Memory
from service.wire.desk import Signals
from service.wire.row import value_of
from store.desk import fusion, retrieval

FILLER = [
    "帮我查一下明天的天气",
    "推荐一部周末看的电影",
    "英语口语怎么练比较好",
    "算一下 3280 乘以 12",
    "给我讲个笑话",
    "今晚吃什么好",
    "学习Python有什么好书",
    "帮我写一封请假邮件",
    "心情不太好，陪我聊聊",
    "把会议纪要整理成三条要点",
    "明天北京会不会下雪",
    "我想换个手机，预算四千",
    "今天有什么新闻",
    "家里的WiFi名字记一下",
]


@pytest.fixture
def hashed(home: Path) -> Iterator[Memory]:
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        yield memory


def test_the_answer_said_right_after_the_match_comes_as_its_neighbour(hashed: Memory) -> None:
    assert fusion.DEFAULT.neighbour > 0
    for day, text in enumerate(FILLER, start=1):
        hashed.desk.remember_interaction(f"f{day}", user_text=text, ts=f"2026-10-{day:02d}T02:00:00Z")
    said = {
        "match": ("2026-10-20T02:00:00Z", "周六带小宇去香山爬山，帮我看看路线", "推荐从东门上，走双清路线"),
        "answer": ("2026-10-20T02:01:30Z", "那就早上八点东门见，记一下", "好的，已记下：周六早上八点东门"),
        "later": ("2026-10-20T05:00:00Z", "早上八点提醒我吃药", "好的，每天早上八点提醒你"),
    }
    for key, (ts, user, assistant) in said.items():
        hashed.desk.remember_interaction(key, user_text=user, assistant_text=assistant, ts=ts)
    hashed.desk.index.drain()
    result = hashed.desk.memory_recall("带小宇去香山爬山")
    assert result.retrieval.mode == "hybrid"
    related = {i.interaction_id: i for i in result.interactions if i.why == "related"}
    assert next(iter(related)) == "match"
    # shares no word with the question, and would not pass the floor alone: it came as the match's neighbour
    answer = related["answer"]
    assert isinstance(answer.signals, Signals)
    assert answer.signals.neighbour_of == "match" and answer.signals.fts_rank is None
    assert answer.score == pytest.approx(fusion.DEFAULT.neighbour, abs=0.01)
    # the next turn by id, but said hours later: another sitting, it borrows nothing
    assert "later" not in related
    # full text alone (degraded: no dense searcher) lends nothing: every hit counts there already
    words_only = retrieval.recall(hashed.store, "带小宇去香山爬山", retrieval.RecallLimits(8), dense=None)
    assert all(value_of(value_of(i, "signals"), "neighbour_of") is None for i in words_only.interactions)
    assert "match" in [i.interaction_id for i in words_only.interactions if i.why == "related"]


def test_a_neighbour_is_the_next_turn_of_the_same_conversation_not_the_next_row(hashed: Memory) -> None:
    """Two agent windows write through one service at once: the row stored between a match and its answer is
    the other window's, and it lends nothing; the answer, the same source's next turn, is the neighbour."""
    for day, text in enumerate(FILLER, start=1):
        hashed.desk.remember_interaction(f"f{day}", user_text=text, ts=f"2026-10-{day:02d}T02:00:00Z")
    said = [
        ("match", "desktop", "2026-10-20T02:00:00Z", "周六带小宇去香山爬山，帮我看看路线", "推荐从东门上，走双清路线"),
        ("other", "voice", "2026-10-20T02:00:40Z", "把客厅的灯调暗一点", "好的，已调到百分之三十"),
        ("answer", "desktop", "2026-10-20T02:01:30Z", "那就早上八点东门见，记一下", "好的，已记下：周六早上八点东门"),
    ]
    for key, source, ts, user, assistant in said:
        hashed.desk.remember_interaction(key, user_text=user, assistant_text=assistant, source=source, ts=ts)
    hashed.desk.index.drain()
    related = {
        i.interaction_id: i for i in hashed.desk.memory_recall("带小宇去香山爬山").interactions if i.why == "related"
    }
    assert next(iter(related)) == "match"
    assert value_of(related["answer"].signals, "neighbour_of") == "match"
    assert value_of(value_of(related.get("other"), "signals"), "neighbour_of") is None

"""Fusion's own rules on hand-made candidates: the weight a Chinese question gives meaning, what neighbours
borrow and from whom, and the floor's `near_best` option."""

from __future__ import annotations

from dataclasses import replace

import pytest
from msgspec import UNSET

from store.desk import fts, fusion


def candidates() -> list[fusion.Candidate[None]]:
    """ "words": the best BM25, middling similarity; "meaning": little BM25, the nearest; two weaker ones."""
    return [
        fusion.Candidate("words", None, 1.0, fts_rank=1, bm25=10.0, share=1.0, similarity=0.85, standing=4.0),
        fusion.Candidate("meaning", None, 2.0, fts_rank=2, bm25=4.0, share=0.6, similarity=0.92, standing=6.0),
        fusion.Candidate("weak", None, 3.0, fts_rank=3, bm25=2.0, share=0.2, similarity=0.79, standing=0.5),
        fusion.Candidate("far", None, 4.0, similarity=0.78, standing=0.2),
    ]


def order(found: list[fusion.Candidate[None]]) -> list[str]:
    return [c.key for c in found]


@pytest.mark.parametrize(
    ("text", "chinese"),
    [
        ("灯塔什么时候上线", True),
        ("家里WiFi叫什么", True),
        ("When did Melanie go hiking?", False),
        ("zeppelin 照片", True),  # a word each
        ("zeppelin photos 照片", False),
        ("", False),
    ],
)
def test_a_question_is_chinese_when_it_holds_two_characters_per_latin_word(text: str, chinese: bool) -> None:
    assert fts.mostly_chinese(text) is chinese


def test_the_chinese_weight_lets_meaning_outrank_shared_words() -> None:
    floor = fusion.Floor(active=True)
    english = fusion.fuse(candidates(), 10, floor)
    chinese = fusion.fuse(candidates(), 10, floor, replace(fusion.DEFAULT, weight=fusion.DEFAULT.weight_chinese))
    assert order(english)[:2] == ["words", "meaning"]
    assert order(chinese)[:2] == ["meaning", "words"]
    # below the floor either way: neither 3 deviations nor half the query's weight
    assert "weak" not in order(english) and "far" not in order(chinese)


def test_neighbours_borrow_from_admitted_turns_only() -> None:
    found = candidates()
    after_words: fusion.Candidate[None] = fusion.Candidate("after-words", None, 1.5)  # neither list found it
    after_weak: fusion.Candidate[None] = fusion.Candidate("after-weak", None, 3.5)
    adjacent = {"words": [after_words], "weak": [after_weak]}
    fused = fusion.fuse(found, 10, fusion.Floor(active=True), adjacent=adjacent)
    by_key = {c.key: c for c in fused}
    assert by_key["after-words"].scored.neighbour_of == "words"
    best = max(c.fused for c in fused)
    assert by_key["after-words"].fused == pytest.approx(fusion.DEFAULT.neighbour * by_key["words"].fused / best, 0.01)
    assert "after-weak" not in by_key  # "weak" did not pass the floor: it lends nothing
    assert by_key["words"].scored.neighbour_of is UNSET


def test_near_best_admits_what_scores_close_to_the_best_admitted() -> None:
    found = candidates()
    found[2] = replace(found[2], similarity=0.91, standing=2.0)  # near the best by meaning, under 3 deviations
    floor = fusion.Floor(active=True)
    off = replace(fusion.DEFAULT, near_best=1.0)
    assert "weak" not in order(fusion.fuse([replace(c) for c in found], 10, floor, off))
    assert "weak" in order(fusion.fuse([replace(c) for c in found], 10, floor, replace(fusion.DEFAULT, near_best=0.5)))

"""Fusion's own rules on hand-made candidates: the weight a Chinese question gives meaning, what counts as
related (above unrelated text, standing out here, the query's words) and how it is scored, what neighbours
borrow and from whom, the dates a question names and the later of two statements."""

from __future__ import annotations

from dataclasses import replace

import pytest
from msgspec import UNSET

from store.desk import fts, fusion, question


def candidates() -> list[fusion.Candidate[None]]:
    """ "words": the best BM25, middling similarity; "meaning": little BM25, the nearest; two weaker ones."""
    return [
        fusion.Candidate(
            "words",
            None,
            1.0,
            fts_rank=1,
            bm25=10.0,
            share=1.0,
            coverage=1.0,
            dense_rank=2,
            similarity=0.85,
            standing=4.0,
            above=4.0,
        ),
        fusion.Candidate(
            "meaning",
            None,
            2.0,
            fts_rank=2,
            bm25=4.0,
            share=0.6,
            coverage=0.3,
            dense_rank=1,
            similarity=0.92,
            standing=6.0,
            above=6.0,
        ),
        fusion.Candidate(
            "weak",
            None,
            3.0,
            fts_rank=3,
            bm25=2.0,
            share=0.2,
            coverage=0.1,
            dense_rank=3,
            similarity=0.79,
            standing=0.5,
            above=1.0,
        ),
        fusion.Candidate("far", None, 4.0, dense_rank=4, similarity=0.78, standing=0.2, above=0.5),
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
    # below the floor either way: neither above unrelated text, nor standing out here, nor half the query's words
    assert "weak" not in order(english) and "far" not in order(chinese)


def test_related_is_read_on_the_embedders_scale_when_the_memory_is_too_small_to_have_a_background() -> None:
    """Six turns: no background to stand out from (`standing` None), so the yardstick alone decides."""
    small = [replace(c, standing=None) for c in candidates()]
    found = {c.key: c for c in fusion.fuse(small, 10, fusion.Floor(active=True))}
    assert set(found) == {"words", "meaning"}
    # the score says how plainly: 0.5 at the threshold, more above it; the words' coverage counts as much
    at_threshold = replace(small[2], above=fusion.ABOVE_UNRELATED, coverage=0.0)
    [alone] = fusion.fuse([at_threshold], 10, fusion.Floor(active=True))
    assert alone.score == 0.5 and alone.scored.above_unrelated == fusion.ABOVE_UNRELATED
    assert found["meaning"].score > 0.95 and found["words"].score == 1.0  # all the query's terms
    # nothing above unrelated text and no words: nothing is related, however small the memory
    nothing = [replace(c, standing=None, coverage=0.0, above=1.0) for c in candidates()]
    assert fusion.fuse(nothing, 10, fusion.Floor(active=True)) == []


def test_what_stands_out_here_counts_and_what_stands_far_below_the_best_does_not() -> None:
    found = candidates()
    found[0] = replace(found[0], above=3.5)
    found[1] = replace(found[1], above=3.5)
    found[2] = replace(found[2], standing=3.5)  # only loosely similar, but it stands out in this memory
    assert "weak" in order(fusion.fuse([replace(c) for c in found], 10, fusion.Floor(active=True)))
    # ... unless the best related item stands more than `within` deviations above it
    found[1] = replace(found[1], above=1.0 + fusion.WITHIN + 0.5)
    assert "weak" not in order(fusion.fuse([replace(c) for c in found], 10, fusion.Floor(active=True)))
    everything = replace(fusion.DEFAULT, within=None)
    assert "weak" in order(fusion.fuse([replace(c) for c in found], 10, fusion.Floor(active=True), everything))


def test_neighbours_borrow_from_related_turns_only() -> None:
    found = candidates()
    after_words: fusion.Candidate[None] = fusion.Candidate("after-words", None, 1.5)  # neither list found it
    after_weak: fusion.Candidate[None] = fusion.Candidate("after-weak", None, 3.5)
    adjacent = {"words": [after_words], "weak": [after_weak]}
    fused = fusion.fuse(found, 10, fusion.Floor(active=True), adjacent=adjacent)
    by_key = {c.key: c for c in fused}
    assert by_key["after-words"].scored.neighbour_of == "words"
    best = max(c.fused for c in fused)
    assert by_key["after-words"].fused == pytest.approx(fusion.DEFAULT.neighbour * by_key["words"].fused / best, 0.01)
    assert by_key["after-words"].score == pytest.approx(fusion.DEFAULT.neighbour * by_key["words"].score, 0.01)
    assert "after-weak" not in by_key  # "weak" did not pass the floor: it lends nothing
    assert by_key["words"].scored.neighbour_of is UNSET


def test_what_was_said_on_the_day_the_question_names_comes_first() -> None:
    day = question.periods("What did Nate cook on 9 November, 2022?")
    [(start, _end)] = day
    found = candidates()
    found[1] = replace(found[1], epoch=start + 3600.0)  # "meaning" was said that day
    assert order(fusion.fuse(found, 10, fusion.Floor(active=True), periods=day))[0] == "meaning"
    assert question.periods("5月12号那天吃了什么") == []  # no year: which one is a guess


def test_asked_for_the_latest_the_later_of_two_like_statements_comes_first() -> None:
    first: fusion.Candidate[None] = fusion.Candidate(
        "first", None, 1.0, fts_rank=1, bm25=9.0, coverage=0.8, dense_rank=1, similarity=0.93, above=5.0
    )
    moved: fusion.Candidate[None] = fusion.Candidate(
        "moved", None, 9.0, fts_rank=2, bm25=8.9, coverage=0.6, dense_rank=2, similarity=0.929, above=4.8
    )
    other: fusion.Candidate[None] = fusion.Candidate(
        "other", None, 5.0, fts_rank=3, bm25=8.0, coverage=0.6, dense_rank=3, similarity=0.92, above=4.7
    )

    def alike(keys: list[str]) -> dict[tuple[str, str], float]:
        pairs = {("first", "moved"): 0.95, ("first", "other"): 0.85, ("moved", "other"): 0.85}
        return {**pairs, **{(b, a): v for (a, b), v in pairs.items()}}

    three = [first, moved, other]
    assert order(fusion.fuse([replace(c) for c in three], 10, fusion.Floor(active=True)))[0] == "first"
    latest = order(fusion.fuse([replace(c) for c in three], 10, fusion.Floor(active=True), resemblance=alike))
    assert latest[:2] == ["moved", "first"]  # "other" is later too, but says something else
    assert question.asks_latest("复查最后改到了哪天？") and not question.asks_latest("复查是哪天？")


def test_without_vectors_every_hit_counts_and_equal_hits_come_newest_first() -> None:
    words_only = [
        fusion.Candidate(f"run-{n}", None, float(n), fts_rank=n + 1, bm25=5.0, coverage=1.0, held=frozenset({"a"}))
        for n in range(3)
    ]
    found = fusion.fuse(words_only, 10, fusion.Floor(active=False))
    assert order(found) == ["run-2", "run-1", "run-0"] and {c.score for c in found} == {1.0}


def test_the_runs_of_one_task_come_together_newest_first_with_one_score() -> None:
    """Eight runs of a daily check told apart by their result: the last (a failure, less like the question) first."""
    runs = [
        fusion.Candidate(
            f"run-{n}",
            "daily check",
            float(n),
            fts_rank=n + 1,
            bm25=5.0,
            coverage=1.0,
            held=frozenset({"a"}),
            dense_rank=n + 1,
            similarity=0.90 if n == 7 else 0.93,
            above=6.0 if n == 7 else 8.0,
        )
        for n in range(8)
    ]
    other: fusion.Candidate[str] = fusion.Candidate(
        "other", "news", 9.0, fts_rank=9, bm25=4.0, coverage=0.5, dense_rank=9, similarity=0.92, above=7.0
    )
    found = fusion.fuse([*runs, other], 10, fusion.Floor(active=True), run_of=lambda row: row)
    assert [c.key for c in found][:8] == [f"run-{n}" for n in range(7, -1, -1)]
    assert len({c.score for c in found[:8]}) == 1
    alone = fusion.fuse([replace(c) for c in [*runs, other]], 10, fusion.Floor(active=True))
    assert alone[0].key != "run-7"  # without runs, the failed run's result makes it the least like the question

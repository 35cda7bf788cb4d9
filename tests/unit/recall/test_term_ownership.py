"""Term ownership: rare words that one app's past runs hold point at that app."""

from __future__ import annotations

from recall.term_ownership import goal_terms, ownership
from store.episodes.recall_terms import TermStats


def test_goal_terms_are_cjk_bigrams_and_latin_words() -> None:
    # folded like keyword_score: traditional to simplified, punctuation and spaces dropped
    assert goal_terms("查看黄历，打開App 2") == ["查看", "看黄", "黄历", "历打", "打开", "app2"]
    assert goal_terms("看") == [] and goal_terms("") == []
    assert goal_terms("黄历黄历") == ["黄历", "历黄"]  # each term once


def test_a_rare_owned_term_outweighs_a_common_shared_one() -> None:
    stats = TermStats(
        documents=100,
        df={"查看": 60, "黄历": 3},
        owners={"查看": {"a.cal": 5, "b.shop": 40}, "黄历": {"a.cal": 3}},
    )
    owned = ownership(["查看", "黄历"], stats)
    assert owned["a.cal"] > 0.8 > owned["b.shop"]
    assert 0.0 < owned["b.shop"] < 0.2


def test_words_the_device_never_saw_dilute_ownership() -> None:
    stats = TermStats(documents=100, df={"黄历": 3}, owners={"黄历": {"a.cal": 3}})
    alone = ownership(["黄历"], stats)["a.cal"]
    diluted = ownership(["黄历", "航班", "机票"], stats)["a.cal"]
    assert abs(alone - 1.0) < 1e-9
    assert diluted < 0.4
    assert ownership(["黄历"], TermStats()) == {}

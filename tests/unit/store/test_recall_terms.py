"""The term counts beside the vector index: exact counts through upserts, corrections and removals."""

from __future__ import annotations

from store.core.database import Store
from store.episodes import recall_terms
from store.episodes.recall_terms import TermDoc

XHS, MT, WNL = "com.xingin.xhs", "com.sankuai.meituan", "com.youloft.calendar"


def doc(run_id: str, package: str, *terms: str, scope: str = "device:d1") -> TermDoc:
    return TermDoc(run_id, scope, (package,), terms)


def test_counts_follow_puts_corrections_and_removals(store: Store) -> None:
    assert recall_terms.ensure(store) is False  # new tables: not built yet
    assert recall_terms.put(store, [doc("r1", XHS, "火锅", "搜索"), doc("r2", MT, "外卖", "搜索")]) == 2
    stats = recall_terms.stats(store, "device:d1", ["搜索", "火锅", "黄历"], [XHS, MT])
    assert stats.documents == 2 and stats.df == {"搜索": 2, "火锅": 1}
    assert stats.owners == {"搜索": {XHS: 1, MT: 1}, "火锅": {XHS: 1}}

    assert recall_terms.put(store, [doc("r1", XHS, "搜索", "火锅")]) == 0  # unchanged: nothing moves
    assert recall_terms.put(store, [doc("r1", WNL, "黄历")]) == 1  # corrected: old terms leave
    stats = recall_terms.stats(store, "device:d1", ["搜索", "火锅", "黄历"], [XHS, MT, WNL])
    assert stats.documents == 2 and stats.df == {"搜索": 1, "黄历": 1}
    assert stats.owners == {"搜索": {MT: 1}, "黄历": {WNL: 1}}

    assert recall_terms.remove(store, "device:d1", ["r2", "nope"]) == 1
    stats = recall_terms.stats(store, "device:d1", ["搜索", "黄历"], [MT, WNL])
    assert stats.documents == 1 and stats.df == {"黄历": 1} and stats.owners == {"黄历": {WNL: 1}}
    rows = store.db.execute_sql("SELECT count(*) FROM recall_term_app WHERE n <= 0").fetchone()[0]
    assert rows == 0  # emptied counts are deleted, not left at zero


def test_scopes_of_an_index_never_built_are_none(store: Store) -> None:
    assert recall_terms.scopes(store) == []  # a fresh home: asking for devices is not an error
    recall_terms.ensure(store)
    recall_terms.put(store, [doc("a", XHS, "火锅"), doc("c", MT, "火锅", scope="device:d2")])
    assert sorted(recall_terms.scopes(store)) == ["device:d1", "device:d2"]


def test_devices_are_counted_apart_and_owners_are_limited_to_the_apps_asked(store: Store) -> None:
    recall_terms.ensure(store)
    recall_terms.put(store, [doc("a", XHS, "火锅"), doc("b", MT, "火锅"), doc("c", MT, "火锅", scope="device:d2")])
    one = recall_terms.stats(store, "device:d1", ["火锅"], [XHS])
    assert one.documents == 2 and one.df == {"火锅": 2} and one.owners == {"火锅": {XHS: 1}}
    assert recall_terms.stats(store, "device:d2", ["火锅"], [MT, XHS]).owners == {"火锅": {MT: 1}}
    assert recall_terms.stats(store, "device:none", ["火锅"], [MT]).documents == 0
    assert sorted(recall_terms.scopes(store)) == ["device:d1", "device:d2"]
    assert sorted(recall_terms.run_ids(store, "device:d1")) == ["a", "b"]


def test_clear_empties_and_only_mark_built_makes_it_current(store: Store) -> None:
    recall_terms.ensure(store)
    recall_terms.put(store, [doc("a", XHS, "火锅")])
    recall_terms.mark_built(store)
    assert recall_terms.ensure(store) is True
    recall_terms.clear(store)
    assert recall_terms.ensure(store) is False
    recall_terms.mark_built(store)
    store.db.execute_sql("DROP TABLE recall_term_app")  # by hand
    assert recall_terms.ensure(store) is False  # recreated, and to be filled again
    assert recall_terms.stats(store, "device:d1", ["火锅"], [XHS]).owners == {}
    assert recall_terms.stats(store, "device:d1", ["火锅"], [XHS]).documents == 0


def test_a_task_with_thousands_of_terms_is_looked_up_in_chunks(store: Store) -> None:
    recall_terms.ensure(store)
    many = [f"w{i}" for i in range(3000)]
    recall_terms.put(store, [doc("a", XHS, *many[::2]), doc("b", MT, "w1", "w2999")])
    stats = recall_terms.stats(store, "device:d1", many, [XHS, MT])
    assert len(stats.df) == 1502 and stats.df["w1"] == 1 and stats.df["w0"] == 1
    assert stats.owners["w2999"] == {MT: 1} and stats.owners["w2998"] == {XHS: 1}

"""The wire's types are the service's (`service/wire/`): the facade hands the store's rows over by field name.

A field the store renames or drops fails at the hand-over, naming it; a field the store adds stays off the
wire; and each of the store's rows the facade hands over still has every field its wire type sends, so such
a change fails here, in one place, before any operation meets it.
"""

from __future__ import annotations

import inspect
import re
from types import ModuleType
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from service.memory.memory import Memory
from service.wire import desk, episodes, learning
from service.wire.row import Row, all_of, of
from store.core.rows import Row as StoreRow
from store.desk import rows as store_desk
from store.episodes import rows as store_episodes
from store.learning import rows as store_learning

PAIRS = [(store_desk, desk), (store_episodes, episodes), (store_learning, learning)]


def rows_of(module: ModuleType, base: type) -> dict[str, Any]:
    return {
        name: kind
        for name, kind in vars(module).items()
        if inspect.isclass(kind) and issubclass(kind, base) and kind is not base and kind.__module__ == module.__name__
    }


def shape(field: msgspec.structs.FieldInfo) -> tuple[str, str, str, str]:
    """A field as a hand-over meets it: its JSON name, its type (a row named by its class's name, wherever that
    class lives), its default."""
    named = re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", repr(field.type))
    named = re.sub(r"\b(?:store|service)\.[\w.]*\.(\w+)", r"\1", named)
    return field.encode_name, named, repr(field.default), repr(field.default_factory)


def test_every_row_the_store_answers_has_its_wire_twin_with_the_same_fields() -> None:
    """Each field a wire row sends, the store's row of that name has: same JSON name, same type, same default
    (so a rename, a retype or a new default fails here, not at a hand-over or silently through a default)."""
    checked = 0
    for store_module, wire_module in PAIRS:
        stored, wired = rows_of(store_module, StoreRow), rows_of(wire_module, Row)
        assert set(stored) <= set(wired), f"store rows without a wire type: {sorted(set(stored) - set(wired))}"
        for name, kind in stored.items():
            store_fields = {f.name: shape(f) for f in msgspec.structs.fields(kind)}
            for field in msgspec.structs.fields(wired[name]):
                said = f"{store_module.__name__}.{name}.{field.name}"
                assert store_fields.get(field.name) == shape(field), said
            for option in ("omit_defaults", "tag", "tag_field"):  # what decides which fields and tags go out
                assert getattr(kind.__struct_config__, option) == getattr(wired[name].__struct_config__, option)
            checked += 1
    assert checked >= 40  # every row of the three domains, not an empty loop


def test_a_retyped_store_field_fails_the_pairs_test() -> None:
    """The comparison above tells a type apart, and a row type by name (not by the module that holds it)."""

    class Stored(StoreRow, frozen=True):
        signals: store_desk.Signals
        score: int

    class Wired(Row, frozen=True):
        signals: desk.Signals
        score: float

    stored, wired = msgspec.structs.fields(Stored), msgspec.structs.fields(Wired)
    assert shape(stored[0]) == shape(wired[0])
    assert shape(stored[1]) != shape(wired[1])


def card(**changes: object) -> store_desk.TaskCard:
    """The store's own task card (it keeps the `epoch` the wire's leaves out)."""
    fields = dict(
        task_id="t1", title="订机票", status="done", result="ok", schedule_id=None, run_id="r1",
        interaction_id=None, source="agent", ts="2026-12-06T08:00:00+08:00", epoch=1.7e9, workday="2026-12-06",
    )  # fmt: skip
    return store_desk.TaskCard(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_store_row_is_handed_over_as_the_wire_type_with_the_same_bytes() -> None:
    """The same bytes but for what the wire leaves out (the card's `epoch`)."""
    stored = card()
    wired = of(desk.TaskCard, stored)
    assert type(wired) is desk.TaskCard
    sent = msgspec.json.decode(msgspec.json.encode(stored))
    del sent["epoch"]
    assert msgspec.json.encode(wired) == msgspec.json.encode(sent)
    assert all_of(desk.TaskCard, [stored, card(task_id="t2")])[1].task_id == "t2"


def test_a_field_the_store_renames_fails_at_the_hand_over_naming_it() -> None:
    class Renamed(StoreRow, frozen=True):
        task_id: str
        heading: str  # was `title`

    with pytest.raises(msgspec.ValidationError, match="title"):
        of(desk.TaskCard, Renamed(task_id="t1", heading="订机票"))


def test_a_field_the_store_adds_stays_off_the_wire() -> None:
    """The store's card has `epoch`, the wire's has not: handed over, the field is gone."""
    assert "epoch" in store_desk.TaskCard.__struct_fields__
    assert "epoch" not in msgspec.json.decode(msgspec.json.encode(of(desk.TaskCard, card())))


def test_an_unset_field_stays_unset() -> None:
    topic = store_desk.Topic(
        topic_id="tp", title="出行", summary="", kind="thread", task_ids=[], first_workday="2026-12-06",
        last_workday="2026-12-06", interactions=1,
    )  # fmt: skip
    wired = of(desk.Topic, topic)
    assert wired.updated is UNSET and wired.segment is UNSET
    assert list(msgspec.json.decode(msgspec.json.encode(wired))) == list(
        msgspec.json.decode(msgspec.json.encode(topic))
    )


def test_a_float_the_json_could_not_carry_is_kept_for_the_socket_to_refuse() -> None:
    """NaN is handed over as NaN (not null): the socket's encoder answers it `internal`, as before."""

    class Scored(StoreRow, frozen=True):
        score: float

    class WireScored(Row, frozen=True):
        score: float

    assert of(WireScored, Scored(score=float("nan"))).score != of(WireScored, Scored(score=float("nan"))).score


def test_the_task_card_the_store_keeps_with_its_epoch_goes_out_as_the_wire_s(memory: Memory) -> None:
    """One task card type in the store (its `epoch` orders and exports it); `task.complete`, `task.list` and
    `transition.assess` answer the wire's card, which leaves the epoch out."""
    wire_fields = list(desk.TaskCard.__struct_fields__)
    assert "epoch" in store_desk.TaskCard.__struct_fields__ and "epoch" not in wire_fields
    done = memory.desk.complete_task("t1", title="订机票", status="succeeded", ts="2026-12-06T08:00:00+08:00")
    assert list(done["card"]) == wire_fields
    assert [list(card) for card in memory.desk.list_tasks()] == [wire_fields]
    memory.desk.complete_task("t2", title="订机票 改签", status="failed", ts="2026-12-06T09:00:00+08:00")
    related = memory.desk.assess_transition("订机票的事再看看", current_task_id="t2")["related_tasks"]
    assert [list(card) for card in related] == [[*wire_fields, "score", "signals"]]

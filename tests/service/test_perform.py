"""The binding of an operation to the facade method that performs it (`service/ops/perform.py`): checked
when the facade is imported, and what the socket and the remote memory derive from it."""

from __future__ import annotations

from typing import Annotated, Any, cast

import pytest

from service.memory.desk import DeskService
from service.memory.lessons import LessonService
from service.memory.memory import PARTS
from service.ops import DECLARED, desk, maintenance
from service.ops.declare import Args, Operation, Reply
from service.ops.fields import Integer, Text
from service.ops.perform import (
    PERFORMS,
    Performer,
    converts,
    holds,
    lists,
    pages,
    performers,
    performs,
    prepares,
    prepares_converted,
)
from service.remote.calls import performed
from service.rpc.methods import PERFORMED, REGISTRY


class PageArgs(Args, frozen=True):
    text: Annotated[str | None, Text(10)] = None
    limit: Annotated[int, Integer(1, 10)] = 2
    offset: Annotated[int, Integer()] = 0


class Page(Reply, frozen=True):
    rows: list[int]
    next_offset: int | None


PAGE = Operation("test.page", PageArgs, Page, kind="read", idempotent=True, description="A page.")


def test_a_method_that_does_not_take_a_field_is_refused_naming_it() -> None:
    with pytest.raises(TypeError, match=r"performing 'memory\.recall': the method takes no parameter 'limit'"):

        @performs(desk.RECALL)
        def recall(self: Any, query: str, *, size: int = 8) -> Any:
            return None


def test_a_parameter_the_params_do_not_give_is_refused_naming_it() -> None:
    with pytest.raises(TypeError, match=r"the params give no 'device'"):

        @performs(desk.RECALL)
        def recall(self: Any, query: str, device: str, *, limit: int = 8) -> Any:
            return None


def test_a_prepared_read_and_a_page_without_limit_are_refused() -> None:
    with pytest.raises(TypeError, match="which does not write"):
        prepares(desk.RECALL)(cast(Any, lambda self, query, limit=8: lambda: None))  # mypy refuses it too
    with pytest.raises(TypeError, match="its result must hold the rows in one field"):
        lists(desk.RECALL)(lambda self, query, limit=8: [])


def test_a_page_asks_for_one_row_more_and_says_where_the_next_begins() -> None:
    asked: list[int] = []

    def rows(text: str | None = None, limit: int = 2, offset: int = 0) -> list[int]:
        asked.append(limit)
        return list(range(offset, min(offset + limit, 5)))

    pages(PAGE)(rows)
    (performer,) = getattr(rows, PERFORMS)
    assert performer.answer(rows, PageArgs(limit=2, offset=0)) == Page(rows=[0, 1], next_offset=2)
    assert performer.answer(rows, PageArgs(limit=2, offset=3)) == Page(rows=[3, 4], next_offset=None)
    assert asked == [3, 3]


class Said(Reply, frozen=True):
    """A wire type converting a facade's answer (an int) into its text and back."""

    text: str

    @classmethod
    def of(cls, answer: int) -> Said:
        return cls(text=str(answer))

    def back(self) -> int:
        return int(self.text)


class SayArgs(Args, frozen=True):
    n: Annotated[int, Integer()] = 0
    limit: Annotated[int, Integer(1, 10)] = 2
    offset: Annotated[int, Integer()] = 0


class Held(Reply, frozen=True):
    n: int
    done: bool
    change: int


class SaidPage(Reply, frozen=True):
    rows: list[Said]
    next_offset: int | None


SAY = Operation("test.say", SayArgs, Said, kind="write", idempotent=True, description="Say a number.")
HOLD = Operation("test.hold", SayArgs, Held, kind="write", idempotent=True, description="Hold a change.")
SAID_PAGE = Operation("test.said", SayArgs, SaidPage, kind="read", idempotent=True, description="A page.")


def test_a_converted_answer_goes_out_as_the_wire_type_and_comes_back_as_the_facades() -> None:
    def say(self: Any, n: int, limit: int = 2, offset: int = 0) -> int:
        return n * 10

    converts(SAY)(say)
    (performer,) = getattr(say, PERFORMS)
    result = performer.answer(lambda **values: say(None, **values), SayArgs(n=4))
    assert result == Said(text="40") and performer.back(result) == 40


def test_a_prepared_write_answers_its_result_converted_when_it_is_made() -> None:
    made: list[int] = []

    def prepare(self: Any, n: int, limit: int = 2, offset: int = 0) -> Any:
        def write() -> int:
            made.append(n)
            return n

        return write

    prepares_converted(SAY)(prepare)
    (performer,) = getattr(prepare, PERFORMS)
    write = performer.answer(lambda **values: prepare(None, **values), SayArgs(n=7))
    assert made == []  # prepared, not written
    assert write() == Said(text="7") and made == [7]


def test_a_held_answer_is_one_field_the_others_repeat_the_params_or_are_the_bindings() -> None:
    def change(self: Any, n: int, limit: int = 2, offset: int = 0) -> int:
        return n + 100

    holds(HOLD, also={"done": True})(change)
    (performer,) = getattr(change, PERFORMS)
    result = performer.answer(lambda **values: change(None, **values), SayArgs(n=3))
    assert result == Held(n=3, done=True, change=103) and performer.back(result) == 103
    with pytest.raises(TypeError, match="hold the rows in one field"):
        holds(HOLD)(lambda self, n, limit=2, offset=0: 0)  # `done` is neither a param nor set: two fields left


def test_a_page_of_converted_rows_comes_back_as_the_facades_rows() -> None:
    def rows(self: Any, n: int = 0, limit: int = 2, offset: int = 0) -> list[int]:
        return list(range(offset, min(offset + limit, 3)))

    pages(SAID_PAGE, row=Said)(rows)
    (performer,) = getattr(rows, PERFORMS)
    page = performer.answer(lambda **values: rows(None, **values), SayArgs(limit=2))
    assert page == SaidPage(rows=[Said(text="0"), Said(text="1")], next_offset=2)
    assert performer.back(page) == [0, 1]
    with pytest.raises(TypeError, match="has no `of` and `back`"):
        pages(SAID_PAGE, row=Page)(rows)  # type: ignore[arg-type]


def test_fixed_arguments_are_the_bindings_whatever_the_params_say() -> None:
    bound = {p.operation.name: p for p in getattr(LessonService.set_lesson_status, PERFORMS)}
    assert bound["lesson.approve"].fixed == {"status": "approved", "actor": "user"}
    assert bound["lesson.revoke"].fixed == {"status": "revoked", "actor": "user"}
    assert bound["lesson.approve"].fields == ("lesson_id",)


def test_every_binding_is_served_from_it_once_and_to_a_declared_operation() -> None:
    bound: list[Performer] = [p for kind in PARTS.values() for p in performers(kind)]
    names = [p.operation.name for p in bound]
    assert len(names) == len(set(names)) == len(list(PERFORMED)) >= 40
    for performer in bound:
        assert DECLARED[performer.operation.name] is performer.operation
        assert REGISTRY[performer.operation.name].operation is performer.operation
    assert REGISTRY["memory.recall"].operation is desk.RECALL and REGISTRY["memory.fact.list"].decode is not None
    assert {p.shape for p in bound} == {"performs", "prepares", "lists", "pages"}
    assert maintenance.FACT_LIST.name in names


def test_a_remote_call_needs_a_method_performing_one_operation() -> None:
    assert performed(DeskService.memory_recall).performer.operation is desk.RECALL
    with pytest.raises(TypeError, match="performs no one operation"):
        performed(LessonService.set_lesson_status)  # two: the remote chooses by the status it is given
    with pytest.raises(TypeError, match="performs no one operation"):
        performed(DeskService.prepare_interaction)  # a grouped write's preparation is the socket's


def test_every_remote_call_names_a_facade_method_that_performs_one_operation() -> None:
    """The remote memory names the facade's classes without importing them (`Deferred`): each name resolves, to a
    method bound to one operation, the one the remote call sends."""
    import importlib
    import pkgutil

    from service import remote
    from service.remote.calls import Performed

    modules = [importlib.import_module(f"{remote.__name__}.{m.name}") for m in pkgutil.iter_modules(remote.__path__)]
    calls = [
        (cls.__name__, name, value)
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type) and cls.__module__ == module.__name__
        for name, value in vars(cls).items()
        if isinstance(value, Performed)
    ]
    assert len(calls) >= 20
    for owner, name, call in calls:
        assert DECLARED[call.performer.operation.name] is call.performer.operation, (owner, name)
        assert next(iter(call.signature.parameters)) == "self", (owner, name)  # the facade's method, unbound

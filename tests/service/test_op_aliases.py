"""Names that say one thing (issue 38 §3): beside a wire name that stays for compatibility, the consistent name,
served the same in every way: found in the registry as the same method, answered the same over the dispatcher
(params, result, errors, the person's authority), shown by `jiyi schema` and in docs/protocol.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.cli.main import main
from service.memory.memory import Memory
from service.ops import ALIASES, DECLARED, declared, desk, interchange, maintenance
from service.ops.declare import NoArgs, Operation
from service.rpc.dispatch import Dispatcher
from service.rpc.methods import REGISTRY
from service.rpc.registry import MethodTable, Registry
from tests.service.test_limits import answer

ADDED = {
    "learning.record.list": "learning.records.list",
    "memory.fact.import": "facts.import",
    "memory.interaction.remember": "interaction.remember",
    "memory.transition.assess": "transition.assess",
    "memory.context.prepare": "context.prepare",
    "memory.task.complete": "task.complete",
    "memory.task.list": "task.list",
    "memory.consolidation.record": "consolidation.record",
    "memory.bundle.list": "bundle.list",
    "memory.bundle.get": "bundle.get",
    "memory.bundle.document.put": "bundle.document.put",
    "memory.bundle.directory": "bundle.directory",
}


@pytest.fixture
def dispatcher(memory: Memory) -> Dispatcher:
    return Dispatcher(memory)


def test_the_aliases_are_the_consistent_names_added() -> None:
    assert ALIASES == ADDED
    assert not set(ALIASES) & set(DECLARED)


def test_every_desk_operation_has_a_memory_name_and_no_list_a_plural_noun() -> None:
    for op in (*desk.OPERATIONS, *maintenance.OPERATIONS, interchange.FACTS_IMPORT):
        assert any(name.startswith("memory.") for name in (op.name, *op.aliases)), op.name
    # A noun the name acts on (any segment but the last, the verb) is singular where the wire has it so:
    # `learning.records.list` beside `learning.record.revoke`, `facts.import` beside `memory.fact.list`.
    segments = {segment for op in DECLARED.values() for name in (op.name, *op.aliases) for segment in name.split(".")}

    def singular(name: str) -> bool:
        return not any(noun.endswith("s") and noun[:-1] in segments for noun in name.split(".")[:-1])

    for op in DECLARED.values():
        assert any(singular(name) for name in (op.name, *op.aliases)), f"{op.name} has no name with a singular noun"


def test_an_alias_is_the_same_method_and_the_registry_iterates_names_only() -> None:
    for alias, name in ALIASES.items():
        assert alias in REGISTRY and REGISTRY[alias] is REGISTRY[name]
        assert declared(alias) is declared(name) is DECLARED[name]
    assert set(REGISTRY) == set(DECLARED)
    assert declared("learning.recordz.list") is None


def test_a_write_through_an_alias_is_read_through_the_other_name(dispatcher: Dispatcher) -> None:
    turn = {"interaction_id": "alias-1", "user_text": "检查 UFO 的进度", "assistant_text": "好的"}
    remembered = answer(dispatcher, "memory.interaction.remember", turn)
    assert remembered["ok"], remembered
    again = answer(dispatcher, "interaction.remember", turn)["result"]  # idempotent: the same turn, not created again
    assert (again["created"], remembered["result"]["created"]) == (False, True)
    assert {**again, "created": True} == remembered["result"]
    card = {"task_id": "t-alias", "title": "UFO 检查", "status": "succeeded", "result": "通过"}
    assert answer(dispatcher, "memory.task.complete", card)["ok"]
    old, new = answer(dispatcher, "task.list", {}), answer(dispatcher, "memory.task.list", {})
    assert old["ok"] and old["result"] == new["result"]
    assert [task["task_id"] for task in new["result"]["tasks"]] == ["t-alias"]
    for name in ("learning.records.list", "learning.record.list"):
        assert answer(dispatcher, name, {})["ok"]
    assert answer(dispatcher, "learning.record.list", {}) == answer(dispatcher, "learning.records.list", {})


def test_an_alias_refuses_bad_params_as_its_name_does(dispatcher: Dispatcher) -> None:
    for alias in ("memory.task.list", "memory.bundle.get", "learning.record.list", "memory.transition.assess"):
        mine, theirs = answer(dispatcher, alias, {"nonsense": 1}), answer(dispatcher, ALIASES[alias], {"nonsense": 1})
        assert mine["ok"] is False and mine["error"]["code"] == "invalid_params", mine
        assert mine == theirs


def test_an_alias_of_the_persons_operation_is_the_persons(dispatcher: Dispatcher, tmp_path: Path) -> None:
    params = {"system": "mem0", "file": str(tmp_path / "absent.json")}
    for name in ("memory.fact.import", "facts.import"):
        refused = answer(dispatcher, name, params)
        assert refused["ok"] is False and refused["error"]["code"] == "forbidden", refused
        served = answer(dispatcher, name, params, person=True)  # the person's: it gets as far as the missing file
        assert served["ok"] is False and served["error"]["code"] == "not_found", served
        assert "absent.json" in served["error"]["message"]


def test_jiyi_schema_shows_the_aliases_and_finds_a_method_by_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "learning.record.list"]) == 0
    one: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert (one["name"], one["aliases"]) == ("learning.records.list", ["learning.record.list"])
    assert main(["schema"]) == 0
    every: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert every["task.list"]["aliases"] == ["memory.task.list"]
    assert "aliases" not in every["memory.topic.list"]  # an operation without keeps the schema it had
    assert set(every) == set(DECLARED)


def test_docs_show_each_alias_beside_its_name() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text("utf-8")
    for alias, name in ALIASES.items():
        assert f"| `{name}` (alias `{alias}`) |" in doc


def test_an_alias_naming_its_operation_or_another_method_is_refused() -> None:
    with pytest.raises(ValueError, match="among its aliases"):
        Operation("a.b", NoArgs, dict, kind="read", idempotent=True, description="x", aliases=("a.b",))
    table = MethodTable("t")
    table.op(Operation("a.b", NoArgs, dict, kind="read", idempotent=True, description="x", aliases=("c.d",)))(
        lambda _memory, _args, _context: {}
    )
    table.op(Operation("c.d", NoArgs, dict, kind="read", idempotent=True, description="y"))(
        lambda _memory, _args, _context: {}
    )
    with pytest.raises(ValueError, match=r"'c\.d' is both a method and another method's alias"):
        Registry(table)

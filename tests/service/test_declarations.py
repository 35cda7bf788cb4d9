"""Each declared operation is served once, from its declaration: the params check, the handler table,
the remote memory, the JSON Schema and the protocol docs' method table all come from it."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest

from service.memory.memory import Memory
from service.ops import DECLARED
from service.ops.declare import Args, NoArgs, Operation
from service.ops.docs import BEGIN, END, method_table
from service.ops.fields import Choice, Integer, Text
from service.rpc.context import CallContext
from service.rpc.decode import decoder
from service.rpc.dispatch import Dispatcher
from service.rpc.methods import REGISTRY
from service.rpc.protocol import Request
from service.rpc.registry import MethodTable, Registry
from store.core.errors import InvalidInput

REPO = Path(__file__).resolve().parents[2]


def test_every_declared_operation_is_served_from_its_declaration_and_only_once() -> None:
    served = {name: method for name, method in REGISTRY.items() if method.operation is not None}
    assert set(served) == set(DECLARED) == set(REGISTRY) and len(DECLARED) == 79
    for name, method in served.items():
        operation = DECLARED[name]
        assert method.operation is operation and method.decode is not None
        assert method.writes == (operation.kind == "write"), name


def test_the_protocol_docs_method_table_is_the_declarations() -> None:
    doc = (REPO / "docs" / "protocol.md").read_text("utf-8")
    table = doc[doc.index(BEGIN) : doc.index(END) + len(END)]
    assert table == method_table(list(DECLARED.values())), "run `jiyi schema --docs docs/protocol.md`"


def test_the_docs_table_changes_when_a_declaration_does() -> None:
    operations = list(DECLARED.values())
    changed = [Operation(op.name, op.params, op.result, "write", False, op.description) for op in operations[:1]]
    assert method_table(changed + operations[1:]) != method_table(operations)


def test_every_schema_is_json_with_closed_params_and_the_caps_of_the_checks() -> None:
    for name, operation in DECLARED.items():
        schema = json.loads(json.dumps(operation.schema()))
        params = schema["$defs"][schema["params"]["$ref"].rsplit("/", 1)[1]]
        assert params["additionalProperties"] is False, name
        result = schema["result"]  # a declared row, or a JSON object (the store's shape: `episode.get`)
        assert result.get("type") == "object" or result["$ref"].rsplit("/", 1)[1] in schema["$defs"], name
        assert schema["description"] and schema["kind"] in ("read", "write"), name
    resolve = DECLARED["app.resolve"].schema()["$defs"]["ResolveArgs"]
    assert resolve["properties"]["name"] == {"type": "string", "maxLength": 256}
    assert resolve["required"] == ["name"]
    listed = DECLARED["app.alias.list"].schema()["$defs"]["ListArgs"]["properties"]
    assert listed["limit"]["minimum"] == 1 and listed["limit"]["maximum"] == 5000
    assert listed["kind"]["anyOf"][0]["enum"] == ["device", "alias", "learned", "user"]


class Sample(Args, frozen=True):
    name: Annotated[str, Text(8)]
    count: Annotated[int, Integer(1, 3)] = 1
    mode: Annotated[str, Choice(("a", "b"))] = "a"
    note: Annotated[str | None, Text(4)] = None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "params.name is required"),
        ({"name": 3}, "params.name must be a string, not int"),
        ({"name": "x" * 9}, "params.name is longer than 8 characters"),
        ({"name": "x", "count": 4}, "params.count must be between 1 and 3"),
        ({"name": "x", "count": True}, "params.count must be an integer"),
        ({"name": "x", "mode": "c"}, "params.mode must be one of a, b"),
        ({"name": "x", "note": "12345"}, "params.note is longer than 4 characters"),
        ({"name": "x", "nmae": "y"}, "unknown parameter 'nmae'"),
        ({"name": "x", "count": 1e400}, "params.count is not a finite number"),
    ],
)
def test_the_check_derived_from_a_declaration_names_the_field(params: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message.replace(".", r"\.").replace("(", r"\(")):
        decoder(Sample)(params)


def test_a_derived_check_answers_the_struct_with_its_defaults() -> None:
    assert decoder(Sample)({"name": "x", "note": None}) == Sample(name="x")
    assert decoder(Sample)({"name": "x", "count": 3, "mode": "b"}) == Sample(name="x", count=3, mode="b")


def test_a_params_field_without_a_check_is_refused_when_declared() -> None:
    class Unchecked(Args, frozen=True):
        name: str

    with pytest.raises(TypeError, match=r"Unchecked\.name declares no check"):
        decoder(Unchecked)


def test_a_declaration_naming_an_unknown_error_or_a_non_idempotent_read_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown error codes"):
        Operation("x", NoArgs, NoArgs, "read", True, "x", errors=("oops",))
    with pytest.raises(ValueError, match="a read is idempotent"):
        Operation("x", NoArgs, NoArgs, "read", False, "x")


class Echoed(msgspec.Struct, frozen=True):
    name: str
    connection: int | None
    uptime_s: float


ECHO = Operation("test.echo", Sample, Echoed, "read", True, "echo")


def test_a_declared_handler_gets_its_struct_and_the_context_and_its_result_goes_out_as_json(memory: Memory) -> None:
    table = MethodTable("test")

    @table.op(ECHO)
    def echo(_memory: Memory, args: Sample, context: CallContext) -> Echoed:
        return Echoed(args.name, context.connection, context.uptime)

    dispatcher = Dispatcher(memory, Registry(table))
    reply = json.loads(dispatcher.handle_line(b'{"id": 1, "method": "test.echo", "params": {"name": "hi"}}'))
    assert reply["ok"] and reply["result"]["name"] == "hi" and reply["result"]["connection"] is None
    assert reply["result"]["uptime_s"] >= 0
    request = dispatcher.prepare(b'{"id": 2, "method": "test.echo", "params": {"name": "x"}}')
    assert isinstance(request, Request)
    on_seven = dispatcher.run(request, dispatcher.context(7))
    assert on_seven["result"].connection == 7
    bad = json.loads(dispatcher.handle_line(b'{"id": 3, "method": "test.echo", "params": {"name": 1}}'))
    assert bad["error"] == {"code": "invalid_params", "message": "params.name must be a string, not int"}


def test_hello_and_subscribe_act_through_the_call_context(memory: Memory) -> None:
    dispatcher = Dispatcher(memory)
    subscribed: list[int] = []
    context = dispatcher.context(5, lambda: subscribed.append(5))
    dispatcher.presence.opened(5)
    hello = dispatcher.prepare(b'{"id": 1, "method": "client.hello", "params": {"kind": "worker"}}')
    assert isinstance(hello, Request) and dispatcher.run(hello, context)["ok"]
    assert context.peer_kind == "worker" and dispatcher.presence.snapshot()["by_kind"]["worker"] == 1
    subscribe = dispatcher.prepare(b'{"id": 2, "method": "changes.subscribe"}')
    assert isinstance(subscribe, Request)
    result = dispatcher.run(subscribe, context)["result"]
    assert subscribed == [5] and context.peer_kind == "console" and result.generation == memory.generation


def _client_calls() -> dict[str, str]:
    """Every method `service/client.py` names, with how it sends it: `read` (retried) or `write`."""
    tree = ast.parse((REPO / "service" / "client.py").read_text("utf-8"))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        first = node.args[0]
        if node.func.attr in ("call", "_write") and isinstance(first, ast.Constant) and isinstance(first.value, str):
            read = any(k.arg == "read" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords)
            found[first.value] = "read" if read else "write"
    return found


def test_the_agent_clients_methods_are_declared_and_sent_as_what_they_are() -> None:
    calls = _client_calls()
    assert {"health", "app.resolve", "app.alias.learn", "run.start", "memory.recall"} <= set(calls)
    for name, how in calls.items():
        assert name in REGISTRY, name
        operation = DECLARED[name]
        # A read is sent again after a lost connection: only an idempotent operation may be.
        assert how == operation.kind and (how == "write" or operation.idempotent), name

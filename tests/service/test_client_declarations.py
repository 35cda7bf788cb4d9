"""The stdlib client (`service/client.py`, which imports nothing of Jiyi) against the declarations: each
method it calls is declared, called as the read or write it is, with parameters the operation takes and
the defaults it declares; what it answers when the service is away has the declared result's lists."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import msgspec

from service import client
from service.ops import DECLARED
from service.wire.recall import DeskRecall

SOURCE = Path(client.__file__).read_text("utf-8")


def _calls() -> list[tuple[str, str, ast.Call, ast.FunctionDef]]:
    """Each `self.call(...)`/`self._write(...)` of a `JiyiClient` method: (how, method, call, the method)."""
    tree = ast.parse(SOURCE)
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "JiyiClient"]
    found = []
    for function in (node for node in cls.body if isinstance(node, ast.FunctionDef)):
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("call", "_write")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.append((node.func.attr, node.args[0].value, node, function))
    return found


def _keys(call: ast.Call, function: ast.FunctionDef) -> set[str]:
    """The params' names the call sends where they are written out: its dict, or the `params` dict built before."""

    def literal(node: ast.AST) -> set[str]:
        if not isinstance(node, ast.Dict):
            return set()
        return {key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}

    if len(call.args) < 2:
        return set()
    sent = call.args[1]
    if not isinstance(sent, ast.Name):
        return literal(sent)
    keys: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(target, ast.Name) and target.id == sent.id for target in targets) and node.value:
                for value in ast.walk(node.value):
                    keys |= literal(value)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.value, ast.Name)
            and node.value.id == sent.id
        ):
            keys.add(str(node.slice.value))
    return keys


def test_every_method_the_client_calls_is_declared_and_called_as_its_kind() -> None:
    calls = _calls()
    assert len(calls) >= 12
    for how, method, call, function in calls:
        assert method in DECLARED, f"JiyiClient.{function.name} calls {method}, which is not declared"
        operation = DECLARED[method]
        reads = any(k.arg == "read" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
        assert operation.writes == (how == "_write") and (reads or operation.writes), function.name
        fields = {field.encode_name for field in msgspec.structs.fields(operation.params)}
        assert _keys(call, function) <= fields, (function.name, _keys(call, function) - fields)


def test_the_client_sends_the_params_with_the_names_and_defaults_declared() -> None:
    for _how, method, _call, function in _calls():
        declared = {f.encode_name: f.default for f in msgspec.structs.fields(DECLARED[method].params)}
        parameters = inspect.signature(getattr(client.JiyiClient, function.name)).parameters
        for name, parameter in parameters.items():
            if name in declared and parameter.default is not inspect.Parameter.empty:
                assert parameter.default == declared[name], f"JiyiClient.{function.name}({name}=...)"


def test_a_recall_the_service_could_not_answer_has_the_declared_lists() -> None:
    lists = {f.encode_name for f in msgspec.structs.fields(DeskRecall) if f.type.__class__.__name__ != "str"}
    assert set(client.RECALL_LISTS) <= lists
    declared = {
        f.encode_name for f in msgspec.structs.fields(DeskRecall) if getattr(f.type, "__origin__", None) is list
    }
    assert set(client.RECALL_LISTS) == declared

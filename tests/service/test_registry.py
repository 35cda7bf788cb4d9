"""The method registry: domain tables joined once, no name twice, and no import cycle in the socket package."""

from __future__ import annotations

import importlib
import pkgutil

import grimp
import pytest

from service.memory.memory import Memory
from service.rpc import methods
from service.rpc.context import CallContext
from service.rpc.methods import PERFORMED, REGISTRY
from service.rpc.registry import MethodTable, Registry
from tests.service.declared import NoArgs, declared


def nothing(_memory: Memory, _args: NoArgs, _context: CallContext) -> None:
    return None


def test_a_name_declared_twice_in_one_table_is_refused() -> None:
    table = MethodTable("a")
    table.op(declared("x.y"))(nothing)
    with pytest.raises(ValueError, match=r"'x\.y' is declared twice in the a table"):
        table.op(declared("x.y"))(nothing)


def test_a_name_two_tables_declare_is_refused_naming_both() -> None:
    first, second = MethodTable("first"), MethodTable("second")
    first.op(declared("x.y"))(nothing)
    second.op(declared("x.y", writes=True))(nothing)
    with pytest.raises(ValueError, match=r"'x\.y' is declared by both first and second"):
        Registry(first, second)


def test_the_registry_holds_every_domain_table_and_nothing_else() -> None:
    tables = [importlib.import_module(f"{methods.__name__}.{m.name}") for m in pkgutil.iter_modules(methods.__path__)]
    declared = [method.name for module in tables for method in module.TABLE] + [m.name for m in PERFORMED]
    assert len(declared) == len(set(declared)) == len(REGISTRY)
    assert set(declared) == set(REGISTRY)
    assert REGISTRY["health"].instant is not None and not REGISTRY["health"].writes
    assert REGISTRY["app.alias.learn"].writes and REGISTRY["bundle.document.put"].writes
    assert {m.name for m in PERFORMED} >= {"memory.recall", "interaction.remember", "task.complete"}
    assert REGISTRY["interaction.remember"].grouped and REGISTRY["job.status"].instant is not None


def _cycles_through(graph: grimp.ImportGraph, package: str) -> list[tuple[str, str]]:
    """Pairs (a, b): `a` in `package` imports `b` directly and `b` leads back to `a`."""
    found = []
    for module in sorted(m for m in graph.modules if m == package or m.startswith(package + ".")):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported != module and graph.chain_exists(importer=imported, imported=module):
                found.append((module, imported))
    return found


def test_no_module_of_the_socket_package_imports_itself_back() -> None:
    graph = grimp.build_graph("service", "recall", "store")
    assert "service.rpc.methods.status" in graph.modules
    assert _cycles_through(graph, "service.rpc") == []


def test_the_cycle_check_sees_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")
    assert ("p.a", "p.b") in _cycles_through(graph, "p")

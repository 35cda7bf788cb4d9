"""The project's import graph: each top-level name is this project's own, and no module imports itself back."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path

import grimp

from tests.conftest import REPO

TOP_LEVEL = ("gui", "recall", "resources", "service", "store")


def test_each_top_level_name_is_this_projects_folder() -> None:
    """Generic names like `store` or `service` must not resolve to some other installed package."""
    for name in TOP_LEVEL:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        assert Path(spec.origin).resolve() == REPO / name / "__init__.py"
        # A single regular package, not a namespace merged from several folders on the path.
        assert [Path(p).resolve() for p in spec.submodule_search_locations or []] == [REPO / name]


def test_the_installed_names_resolve_to_this_project_outside_the_repository(tmp_path: Path) -> None:
    """Run from elsewhere, so the names resolve through the installation, not the working directory."""
    probe = (
        "import importlib.util, json; "
        f"print(json.dumps({{n: importlib.util.find_spec(n).origin for n in {list(TOP_LEVEL)!r}}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    origins = json.loads(done.stdout)
    assert {name: Path(origin).resolve() for name, origin in origins.items()} == {
        name: REPO / name / "__init__.py" for name in TOP_LEVEL
    }


def _import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    imports = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in imports:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            module, position = work.pop()
            if position == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            targets = imports[module]
            if position < len(targets):
                work.append((module, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return sorted(components)


def _describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    """One concrete cycle through the component, each import with its line."""
    start = component[0]
    first = next(m for m in sorted(graph.find_modules_directly_imported_by(start)) if m in component)
    chain = [start, *(graph.find_shortest_chain(importer=first, imported=start) or ())]
    steps = []
    for importer, imported in itertools.pairwise(chain):
        lines = sorted(d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported))
        steps.append(f"{importer} -> {imported} (line {', '.join(map(str, lines))})")
    return "; ".join(steps)


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.e", "p.e")):
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="import")
    assert _import_cycles(graph) == [["p.a", "p.b", "p.c"]]
    assert _describe(graph, ["p.a", "p.b", "p.c"]) == "p.a -> p.b (line 1); p.b -> p.c (line 1); p.c -> p.a (line 1)"


def test_no_module_imports_itself_back_through_a_cycle() -> None:
    """Every import counts, in a function or under TYPE_CHECKING too: the layering holds for readers as well."""
    graph = grimp.build_graph(*TOP_LEVEL, cache_dir=None)
    cycles = [_describe(graph, component) for component in _import_cycles(graph)]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)

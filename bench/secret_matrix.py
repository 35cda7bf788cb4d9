"""How many formats × placements reach a file: the secret corpus, counted pair by pair.

`tests/service/test_secret_corpus.py` proves that no secret of any format
reaches a home through any write; this counts, where some do, which. Each
placement of the corpus (a field of a socket method or of an MCP tool) runs
in a home of its own: its harmless request, then one request per format, then
the views and the vectors rebuilt. The imports (`import desk`, `import
mcp-memory`, `import mem0`) are three placements more, every format in one
file. Then every file of the home (the database and its WAL, `bundles/`,
`vectors/`) is searched for each format's secret; a secret an episode keeps
verbatim counts where it reaches anything but the episode records. A pair
(format, placement) whose secret is found counts once.

Run: `python -P bench/secret_matrix.py [--only METHOD] [--json]` (minutes: a home per placement). To count
another filter (main's, say), run it in a checkout of that code with this corpus copied in (this script,
`tests/secret_formats.py`, `tests/secret_sources.py`, `tests/service/test_secret_corpus.py`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.config import load_config
from service.memory.memory import Memory
from tests.secret_formats import FORMATS
from tests.secret_sources import desk_export, mcp_memory, mem0
from tests.service.learning_setup import write_grant
from tests.service.test_secret_corpus import (
    EPISODE,
    FILED,
    PLACEMENTS,
    Client,
    Placement,
    Setup,
    _database_rows,
    _files,
)


def _home(folder: Path) -> Memory:
    home = folder / "home"
    write_grant(home, max_extractions="10000", max_pending="1000", admissions="10000", max_records="10000")
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))


def _reached(memory: Memory, family: int) -> set[str]:
    """The formats whose secret of `family` reaches a file of the home (an episode's: outside its records)."""
    home = Path(memory.store.home)
    files = list(_files(home))
    if family == EPISODE:
        outside, _inside = _database_rows(memory)
        files = [(p, d) for p, d in files if not p.name.startswith("jiyi.sqlite3")] + [(home, outside)]
    reached = set()
    for fmt in FORMATS:
        needles = [n.lower() for n in fmt.make(family).needles]
        if any(n in data for _, data in files for n in needles):
            reached.add(fmt.name)
    return reached


def _placement(folder: Path, placement: Placement) -> set[str]:
    with _home(folder) as memory:
        client, setup = Client(memory), Setup(memory)
        client.call(placement.method, placement.build(setup, placement.value(None, setup)), placement.tool)
        for fmt in FORMATS if placement.takes_value else ():
            value = placement.value(fmt.make(placement.family), setup)
            if value is not None:
                client.call(placement.method, placement.build(setup, value), placement.tool)
        for run_id in setup.runs:
            memory.runs.run_finish(run_id)
        for method in ("rebuild", "vectors.rebuild"):
            client.call(method, {})
        return _reached(memory, placement.family)


def _import(folder: Path, method: str, params: Callable[[Path, list[str]], dict[str, str]]) -> set[str]:
    texts = [fmt.make(FILED).text for fmt in FORMATS]
    with _home(folder) as memory:
        client = Client(memory)
        client.call(method, params(folder, texts))
        client.call("vectors.rebuild", {})
        return _reached(memory, FILED)


IMPORTS: dict[str, tuple[str, Callable[[Path, list[str]], dict[str, str]]]] = {
    "import desk": ("desk.import", lambda f, t: {"directory": str(desk_export(f / "desk", t))}),
    "import mcp-memory": (
        "facts.import",
        lambda f, t: {"system": "mcp-memory", "file": str(mcp_memory(f / "memory.jsonl", t))},
    ),
    "import mem0": ("facts.import", lambda f, t: {"system": "mem0", "file": str(mem0(f / "mem0.json", t))}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the placements of this method (or an import's name)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    started = time.monotonic()
    reached: dict[str, set[str]] = {}
    pairs = 0
    for placement in PLACEMENTS:
        if args.only and placement.method != args.only:
            continue
        with tempfile.TemporaryDirectory() as folder:
            found = _placement(Path(folder), placement)
        pairs += len(FORMATS) if placement.takes_value else 0
        if found:
            reached[f"{placement.method} {placement.field}"] = found
    for name, (method, params) in IMPORTS.items():
        if args.only and name != args.only:
            continue
        with tempfile.TemporaryDirectory() as folder:
            found = _import(Path(folder), method, params)
        pairs += len(FORMATS)
        if found:
            reached[name] = found
    count = sum(len(found) for found in reached.values())
    formats = sorted({name for found in reached.values() for name in found})
    if args.json:
        print(
            json.dumps({"pairs": pairs, "reached": count, "by_placement": {k: sorted(v) for k, v in reached.items()}})
        )
        return
    took = time.monotonic() - started
    print(f"{count} of {pairs} formats × placements reach a file ({len(FORMATS)} formats; {took:.0f} s)")
    print(f"{len(reached)} placements let a secret through; {len(formats)} formats reach a file: {', '.join(formats)}")
    for placement, found in sorted(reached.items()):
        print(f"  {placement}: {len(found)} ({', '.join(sorted(found))})")


if __name__ == "__main__":
    main()

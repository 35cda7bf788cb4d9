"""Big or malformed input to an import is refused fast and clearly (issue 36 §6), on a real store (both back
ends): a line longer than its cap names its file and line and is never read whole; JSON nested past what any
format needs is a clear error in every import, never a traceback; a mem0 memory refused leaves nothing of
itself, not even its source turn; mem0's memories are numbered from 1 and a user's memories are profile facts.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.cli.main import main
from service.config import Config, load_config
from service.memory.memory import Memory
from store.core.errors import InvalidInput
from store.interchange import desk_format
from tests.taskwizard_memory import entry

DATA = Path(__file__).resolve().parents[2] / "data"
MiB = 1024 * 1024
DEEP = "[" * 100_000 + "]" * 100_000  # far past Python's recursion limit


@pytest.fixture
def hashed(config: Config) -> Config:
    return load_config(home=config.home_path, env={"JIYI_EMBED_MODEL": "hash"})


def turn(n: int, text: str = "") -> dict[str, Any]:
    return {
        "interaction_id": f"turn-{n}",
        "ts": f"2026-03-0{n}T09:00:00+00:00",
        "epoch": 1772355600.0 + 86400 * (n - 1),
        "workday": f"2026-03-0{n}",
        "source": "desktop",
        "user_text": text or f"第{n}个问题",
        "assistant_text": f"第{n}个回答",
        "task_id": None,
    }


def export_of(root: Path, interactions: list[dict[str, Any]]) -> Path:
    """A desk export holding `interactions` and nothing else, its manifest right."""
    kinds: dict[str, Any] = {kind: [] for kind in desk_format.KINDS}
    kinds["interactions"] = interactions
    desk_format.write_export(root, kinds, "2026-03-09T00:00:00+00:00", "test")
    return root


def replace_line(root: Path, name: str, number: int, line: str) -> None:
    """Put `line` in place of line `number` of an export's file, its checksum and count right (a crafted export)."""
    path = root / name
    lines = path.read_text("utf-8").splitlines()
    lines[number - 1] = line
    text = "".join(f"{each}\n" for each in lines)
    path.write_text(text, "utf-8")
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    manifest["files"][name].update(sha256=hashlib.sha256(text.encode()).hexdigest(), count=len(lines))
    (root / "manifest.json").write_text(json.dumps(manifest), "utf-8")


def events(memory: Memory) -> int:
    return int(memory.store.db.execute_sql("SELECT COUNT(*) FROM event").fetchone()[0])


def staged(config: Config) -> list[Path]:
    return sorted((config.home_path / "imports").glob("*")) if (config.home_path / "imports").exists() else []


def test_an_over_long_line_of_a_desk_export_is_refused_naming_its_file_and_line(hashed: Config, tmp_path: Path) -> None:
    root = export_of(tmp_path / "export", [turn(1), turn(2), turn(3)])
    replace_line(root, "interactions.jsonl", 2, json.dumps(turn(2, "长" * (MiB // 2)), ensure_ascii=False))
    with Memory.open(hashed) as memory:
        logged = events(memory)
        with pytest.raises(InvalidInput, match=r"interactions\.jsonl line 2 is 1,\d{3},\d{3} bytes, longer than 1 MiB"):
            memory.interchange.import_desk(root)
        assert events(memory) == logged
    assert staged(hashed) == []


def test_over_long_lines_and_memories_of_other_systems_are_refused_naming_them(hashed: Config, tmp_path: Path) -> None:
    mcp = tmp_path / "memory.jsonl"
    first = {"type": "entity", "name": "a", "entityType": "b", "observations": ["c"]}
    big = {"type": "entity", "name": "d", "entityType": "e", "observations": ["f" * 1000] * (17 * 1024)}
    mcp.write_text(json.dumps(first) + "\n" + json.dumps(big) + "\n", "utf-8")
    mem0 = tmp_path / "mem0.json"
    mem0.write_text(json.dumps([{"id": "1", "memory": "ok"}, {"id": "2", "memory": "x" * (MiB + 10)}]), "utf-8")
    with Memory.open(hashed) as memory:
        logged = events(memory)
        with pytest.raises(InvalidInput, match=r"memory\.jsonl line 2 is 17,\d{3},\d{3} bytes, longer than 16 MiB"):
            memory.interchange.import_foreign("mcp-memory", mcp)
        with pytest.raises(InvalidInput, match=r"mem0\.json memory 2: longer than 1 MiB"):
            memory.interchange.import_foreign("mem0", mem0)
        assert events(memory) == logged


def test_an_over_long_line_of_a_taskwizard_log_is_skipped_and_said(hashed: Config, tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "app_kb"
    folder.mkdir(parents=True)
    lines = [
        {"op": "upsert", "entry": entry("微信", "com.tencent.mm", "device", "device:s1"), "ts": "2026-11-01T08:00:00"},
        {"op": "upsert", "entry": entry("x" * (2 * MiB), "com.example.app", "learned"), "ts": "2026-11-01T08:01:00"},
        {
            "op": "upsert",
            "entry": entry("淘宝", "com.taobao.taobao", "device", "device:s1"),
            "ts": "2026-11-01T08:02:00",
        },
    ]
    (folder / "events.jsonl").write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), "utf-8")
    with Memory.open(hashed) as memory:
        report = memory.import_taskwizard(tmp_path / "memory")["app_kb"]
        assert (report.imported, report.skipped) == (2, 1)
        [problem] = report.problems
        assert re.fullmatch(r"line 2: 4,\d{3},\d{3} bytes, longer than 1 MiB \(not read\)", problem), problem


def _desk(root: Path) -> None:
    export_of(root, [turn(1), turn(2)])
    replace_line(root, "interactions.jsonl", 2, DEEP)


def _manifest(root: Path) -> None:
    export_of(root, [turn(1)])
    (root / "manifest.json").write_text(DEEP, "utf-8")


Make = Callable[[Path], None]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_desk, r"interactions\.jsonl line 2: nested deeper than 64 levels"),
        (_manifest, r"manifest\.json is not JSON \(nested deeper than 64 levels\)"),
    ],
)
def test_deeply_nested_json_in_a_desk_export_is_a_clear_error(
    hashed: Config, tmp_path: Path, make: Make, says: str
) -> None:
    make(tmp_path / "export")
    with Memory.open(hashed) as memory:
        logged = events(memory)
        with pytest.raises(InvalidInput, match=says):
            memory.interchange.import_desk(tmp_path / "export")
        assert events(memory) == logged


@pytest.mark.parametrize(
    ("system", "content", "says"),
    [
        ("mcp-memory", '{"type":"entity","name":"a","entityType":"b","observations":["c"]}\n' + DEEP, "line 2"),
        ("mem0", '[{"id": "1", "memory": "ok"}, {"id": "2", "memory": "x", "metadata": ' + DEEP + "}]", "memory 2"),
        ("mem0", DEEP, "memory 1"),
    ],
)
def test_deeply_nested_json_from_other_systems_is_a_clear_error(
    hashed: Config, tmp_path: Path, system: str, content: str, says: str
) -> None:
    path = tmp_path / "memory.file"
    path.write_text(content, "utf-8")
    with Memory.open(hashed) as memory:
        logged = events(memory)
        with pytest.raises(InvalidInput, match=f"{says}: nested deeper than 64 levels"):
            memory.interchange.import_foreign(system, path)
        assert events(memory) == logged


def test_deeply_nested_json_in_a_taskwizard_directory_is_skipped_or_refused_clearly(
    hashed: Config, tmp_path: Path
) -> None:
    folder = tmp_path / "memory" / "app_kb"
    folder.mkdir(parents=True)
    device = {"op": "upsert", "entry": entry("微信", "com.tencent.mm", "device", "device:s1"), "ts": "2026-11-01"}
    (folder / "events.jsonl").write_text(json.dumps(device, ensure_ascii=False) + "\n" + DEEP + "\n", "utf-8")
    view_only = tmp_path / "view" / "app_kb"
    view_only.mkdir(parents=True)
    (view_only / "kb.json").write_text(DEEP, "utf-8")
    with Memory.open(hashed) as memory:
        report = memory.import_taskwizard(tmp_path / "memory")["app_kb"]
        assert (report.imported, report.skipped) == (1, 1)
        assert report.problems == ["line 2: nested deeper than 64 levels"]
        logged = events(memory)
        with pytest.raises(InvalidInput, match="nested deeper than 64 levels"):
            memory.import_taskwizard(tmp_path / "view")
        assert events(memory) == logged


def test_a_refused_mem0_memory_leaves_no_source_turn_behind(hashed: Config, tmp_path: Path) -> None:
    nested: Any = "deep"
    for _ in range(25):  # within what a file may hold, past what a fact's origin may (20 levels)
        nested = {"n": nested}
    memories = [
        {"id": "1", "memory": "Likes green tea"},
        {"id": "2", "memory": "Keeps a cat", "metadata": nested},
        {"id": "3", "memory": "Runs on Sundays"},
    ]
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(memories), "utf-8")
    with Memory.open(hashed) as memory:
        report = memory.interchange.import_foreign("mem0", path)
        assert (report.added, report.refused) == (2, 1)
        assert report.reasons[0].startswith("mem0.json memory 2: ")
        turns = memory.store.db.execute_sql("SELECT user_text FROM desk_interaction ORDER BY user_text").fetchall()
        assert [t[0] for t in turns] == ["Likes green tea", "Runs on Sundays"]  # no "Keeps a cat"
        assert sorted(f.content for f in memory.facts.list_facts()) == ["Likes green tea", "Runs on Sundays"]


def test_a_users_mem0_memories_are_profile_facts_and_an_agents_are_its_projects(hashed: Config) -> None:
    with Memory.open(hashed) as memory:
        report = memory.interchange.import_foreign("mem0", DATA / "mem0_export.json")
        assert (report.added, report.refused) == (3, 0)
        facts = {f.content: f for f in memory.facts.list_facts()}
    lunch = facts["Prefers vegetarian food when ordering lunch"]  # alex's own (no agent): who alex is
    assert (lunch.scope, lunch.profile_kind, lunch.project, lunch.status) == ("profile", "identity", None, "active")
    laptop = facts["用户的笔记本电脑运行 Ubuntu 24.04"]
    assert (laptop.scope, laptop.profile_kind) == ("profile", "identity")
    report_due = facts["The team's weekly report is due every Friday at 17:00"]  # the desk assistant's, a project's
    assert (report_due.scope, report_due.profile_kind, report_due.project) == ("project", None, "weekly-report")


def test_scope_profile_makes_every_memory_a_profile_fact_of_the_kind_its_categories_say(
    hashed: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(hashed.home_path)
    assert main(["import", "mem0", str(DATA / "mem0_export.json"), "--scope", "profile", "--home", home]) == 0
    assert "facts: added 3" in capsys.readouterr().out
    with Memory.open(hashed) as memory:
        facts = {f.content: (f.scope, f.profile_kind, f.project) for f in memory.facts.list_facts()}
    assert facts["The team's weekly report is due every Friday at 17:00"] == ("profile", "work_style", None)
    assert facts["Prefers vegetarian food when ordering lunch"] == ("profile", "identity", None)

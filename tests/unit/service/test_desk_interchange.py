"""The desk memory out and in (`jiyi export desk` / `jiyi import desk`) and the memory of the MCP memory server
and mem0 in, on a real store (both back ends) with the hash embedder (these tests are not about the model)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest

from service.config import Config, load_config, save_settings
from service.demo.desk import fill_desk
from service.demo.learning import fill_learning
from service.memory.memory import Memory
from store.core.errors import InvalidInput, NotFound
from store.desk.rows import TaskCard
from store.interchange import desk_export, desk_format
from store.learning.grant import example_section, parse_grant
from tests.postgres_server import PostgresServer

DATA = Path(__file__).resolve().parents[2] / "data"
QUERIES = ("周报", "打印机", "Ubuntu", "新闻 科技", "磁盘已满", "weekly report", "回答简短", "嵌入式开发")
SECRET_KEY = "sk-proj-Q7x9Lm2Rt5Vb8Nc3Kd6Wf1Hg4Js0Pa"
SECRET_PHONE = "+86 138 0013 8000"


@pytest.fixture
def homes(tmp_path: Path, config: Config, request: pytest.FixtureRequest) -> Iterator[Callable[[str], Config]]:
    """Configs of further fresh homes beside the test's own (on PostgreSQL each its own database)."""
    made: list[tuple[PostgresServer, str]] = []

    def make(name: str) -> Config:
        path = tmp_path / name
        if config.database_url:
            server: PostgresServer = request.getfixturevalue("postgres")
            database = f"jiyi_test_{os.getpid()}_{name}_{len(made)}"
            url = server.create_database(database)
            made.append((server, database))
            path.mkdir(mode=0o700)
            save_settings(path, {"database_url": url, "database_password_file": str(server.password_file)})
        return hashed(load_config(home=path, env={}))

    yield make
    for server, database in made:
        server.drop_database(database)


def hashed(config: Config) -> Config:
    """`config` with the hash embedder and the demo's learning grant."""
    values = dict(config.values)
    values["embed_model"] = "hash"
    return Config(values, config.sources, parse_grant(tomllib.loads(example_section())["learning"]))


def answers(memory: Memory) -> dict[str, Any]:
    """What `memory.recall` answers for each query, without its timing."""
    memory.desk.index.drain()
    out = {}
    for query in QUERIES:
        result = msgspec.to_builtins(memory.desk.memory_recall(query, limit=8))
        result.pop("latency_ms")
        out[query] = result
    return out


def counts(memory: Memory) -> dict[str, int]:
    db = memory.store.db
    tables = [
        *("desk_interaction", "desk_task_card", "desk_topic", "desk_topic_interaction", "desk_topic_segment"),
        *("desk_fact", "desk_fact_evidence", "desk_skill", "desk_bundle", "desk_bundle_document", "learning_record"),
    ]
    return {table: db.execute_sql(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables}


def events(memory: Memory) -> int:
    return int(memory.store.db.execute_sql("SELECT COUNT(*) FROM event").fetchone()[0])


@pytest.fixture
def demo(config: Config, tmp_path: Path) -> tuple[Config, Path]:
    """A demo desk home (a week of turns, topics, facts, skills, bundles, learned records), exported once."""
    source = hashed(config)
    with Memory.open(source) as memory:
        fill_desk(memory)
        fill_learning(memory)
        memory.interchange.export_desk(tmp_path / "export")
    return source, tmp_path / "export"


def rewrite(root: Path, name: str, change: Callable[[list[str]], list[str]]) -> None:
    """Change a file of an export and put its new checksum and count in the manifest (a well-formed edit)."""
    path = root / name
    lines = change(path.read_text("utf-8").splitlines())
    text = "".join(f"{line}\n" for line in lines)
    path.write_text(text, "utf-8")
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    manifest["files"][name].update(sha256=hashlib.sha256(text.encode()).hexdigest(), count=len(lines))
    (root / "manifest.json").write_text(json.dumps(manifest), "utf-8")


def test_a_demo_home_exported_and_imported_answers_the_same(
    demo: tuple[Config, Path], homes: Callable[[str], Config]
) -> None:
    source, export = demo
    with Memory.open(source) as memory:
        before, counted = answers(memory), counts(memory)
    manifest = json.loads((export / "manifest.json").read_text("utf-8"))
    assert manifest["format"] == "jiyi-desk" and manifest["schema_version"] == 1
    for kind in desk_format.KINDS:
        path = export / f"{kind}.jsonl"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert manifest["files"][path.name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert manifest["files"][path.name]["count"] == len(path.read_text("utf-8").splitlines())
    assert all(manifest["files"][f"{kind}.jsonl"]["count"] > 0 for kind in desk_format.KINDS)

    target = homes("target")
    heard: list[tuple[int, int]] = []
    with Memory.open(target) as memory:
        reports = memory.interchange.import_desk(export, lambda done, total: heard.append((done, total)))
        assert all(r.refused == 0 and r.skipped == 0 for r in reports.values()), reports
        assert {k: r.added for k, r in reports.items()} == {k: v["count"] for k, v in _files(manifest).items()}
        assert heard[-1][0] == heard[-1][1] == sum(v["count"] for v in manifest["files"].values())
        assert counts(memory) == counted
        assert answers(memory) == before
        logged = events(memory)
        again = memory.interchange.import_desk(export)
        assert all(r.added == 0 and r.refused == 0 for r in again.values())
        assert {k: r.skipped for k, r in again.items()} == {k: v["count"] for k, v in _files(manifest).items()}
        assert events(memory) == logged  # importing twice changes nothing
        assert {e.actor for e in memory.store.events("desk")} == {"import"}
        # The log is the truth: the views rebuilt from it are the same memory.
        memory.rebuild()
        assert counts(memory) == counted
        assert answers(memory) == before
        memory.interchange.export_desk(export.parent / "again")
    for kind in desk_format.KINDS:  # what was exported comes back out byte for byte (who wrote or decided too)
        assert (export.parent / "again" / f"{kind}.jsonl").read_bytes() == (export / f"{kind}.jsonl").read_bytes()


def _files(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["kind"]: entry for entry in manifest["files"].values()}


def test_importing_into_the_home_it_came_from_skips_everything_and_refuses_what_differs(
    demo: tuple[Config, Path],
) -> None:
    source, export = demo

    def other_text(lines: list[str]) -> list[str]:
        first = json.loads(lines[0])
        first["user_text"] = "another question"
        return [json.dumps(first, ensure_ascii=False), *lines[1:]]

    rewrite(export, "interactions.jsonl", other_text)
    with Memory.open(source) as memory:
        logged = events(memory)
        reports = memory.interchange.import_desk(export)
        assert events(memory) == logged
    assert sum(r.added for r in reports.values()) == 0
    assert reports["interactions"].refused == 1
    assert "interactions.jsonl line 1" in reports["interactions"].reasons[0]
    assert "other text" in reports["interactions"].reasons[0]
    assert all(r.refused == 0 for kind, r in reports.items() if kind != "interactions")
    assert reports["facts"].skipped > 0 and reports["bundles"].skipped > 0


def _bad_checksum(root: Path) -> None:
    with (root / "facts.jsonl").open("a", encoding="utf-8") as stream:
        stream.write("\n")
        stream.write(json.dumps({"fact_id": "x"}) + "\n")


def _newer_schema(root: Path) -> None:
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    manifest["schema_version"] = 2
    (root / "manifest.json").write_text(json.dumps(manifest), "utf-8")


def _malformed_line(root: Path) -> None:
    rewrite(root, "skills.jsonl", lambda lines: [*lines[:1], '{"skill_id": "s", "name": ', *lines[1:]])


def _missing_field(root: Path) -> None:
    def drop(lines: list[str]) -> list[str]:
        record = json.loads(lines[1])
        del record["workday"]
        return [lines[0], json.dumps(record), *lines[2:]]

    rewrite(root, "task_cards.jsonl", drop)


def _epoch_out_of_range(root: Path) -> None:
    def far(lines: list[str]) -> list[str]:
        record = json.loads(lines[1])
        record["epoch"] = 10**400  # a number, but none a float holds
        return [lines[0], json.dumps(record), *lines[2:]]

    rewrite(root, "task_cards.jsonl", far)


def _symlinked(root: Path) -> None:
    (root / "topics.jsonl").rename(root / "elsewhere.jsonl")
    (root / "topics.jsonl").symlink_to(root / "elsewhere.jsonl")


def _missing_file(root: Path) -> None:
    (root / "bundles.jsonl").unlink()


def _broken_manifest(root: Path) -> None:
    (root / "manifest.json").write_text('{"format": "jiyi-desk", ', "utf-8")


@pytest.mark.parametrize(
    ("damage", "error", "says"),
    [
        (_bad_checksum, InvalidInput, "facts.jsonl does not match its SHA-256"),
        (_newer_schema, InvalidInput, "schema version 2; this Jiyi reads version 1"),
        (_malformed_line, InvalidInput, "skills.jsonl line 2: not JSON"),
        (_missing_field, InvalidInput, "task_cards.jsonl line 2: the field 'workday' is missing"),
        (_epoch_out_of_range, InvalidInput, "task_cards.jsonl line 2: Number out of range"),
        (_symlinked, InvalidInput, "topics.jsonl is a symlink"),
        (_missing_file, NotFound, "bundles.jsonl is missing"),
        (_broken_manifest, InvalidInput, "manifest.json is not JSON"),
    ],
)
def test_a_damaged_export_is_refused_whole_naming_the_problem(
    demo: tuple[Config, Path],
    homes: Callable[[str], Config],
    damage: Callable[[Path], None],
    error: type[Exception],
    says: str,
) -> None:
    _source, export = demo
    damage(export)
    with Memory.open(homes("target")) as memory:
        logged = events(memory)
        with pytest.raises(error, match=says.replace("(", r"\(").replace(".", r"\.")):
            memory.interchange.import_desk(export)
        assert events(memory) == logged  # nothing written
        assert not any(counts(memory).values())


def test_export_refuses_a_folder_that_holds_anything_but_an_earlier_export(
    demo: tuple[Config, Path], tmp_path: Path
) -> None:
    source, export = demo
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", "utf-8")
    with Memory.open(source) as memory:
        with pytest.raises(InvalidInput, match=r"is not empty \(notes\.txt\) and holds no earlier desk export"):
            memory.interchange.export_desk(busy)
        assert (busy / "notes.txt").read_text("utf-8") == "mine" and len(list(busy.iterdir())) == 1
        counted = memory.interchange.export_desk(export)  # an earlier export is replaced
    assert counted["interactions"] == len((export / "interactions.jsonl").read_text("utf-8").splitlines())


def test_secrets_in_an_imported_export_are_redacted(demo: tuple[Config, Path], homes: Callable[[str], Config]) -> None:
    _source, export = demo

    def leak(lines: list[str]) -> list[str]:
        first = json.loads(lines[0])
        first["assistant_text"] += f" 密钥 {SECRET_KEY}，电话 {SECRET_PHONE}"
        return [json.dumps(first, ensure_ascii=False), *lines[1:]]

    rewrite(export, "interactions.jsonl", leak)
    target = homes("target")
    with Memory.open(target) as memory:
        memory.interchange.import_desk(export)
        stored = memory.store.db.execute_sql("SELECT assistant_text FROM desk_interaction").fetchall()
        logged = [e.payload for e in memory.store.events("desk", types=["interaction_remembered"])]
    text = json.dumps([stored, logged], ensure_ascii=False)
    assert "密钥" in text and SECRET_KEY not in text and "0013 8000" not in text


def test_the_mcp_memory_example_imports_as_documented(config: Config, tmp_path: Path) -> None:
    with Memory.open(hashed(config)) as memory:
        report = memory.interchange.import_foreign("mcp-memory", DATA / "mcp_memory.jsonl")
        assert (report.added, report.skipped, report.refused) == (8, 0, 0)  # 6 observations, 2 relations
        facts = {f.content: f for f in memory.facts.list_facts()}
        assert set(facts) >= {"default_user: Prefers short answers in Chinese", "张伟: 负责审核每周的周报"}
        assert "default_user works_on Jiyi" in facts and "张伟 reviews_reports_of default_user" in facts
        for fact in facts.values():
            assert fact.status == "active" and fact.scope == "project"
            assert fact.status_reason == "imported from mcp-memory"
            (evidence,) = fact.evidence
            source = memory.desk.get_interaction(evidence.source_id)
            assert evidence.quote in source["user_text"] and source["source"] == "mcp-memory"
        observation = facts["default_user: Works on the Jiyi project on weekdays"].evidence[0]
        assert observation.quote == "Works on the Jiyi project on weekdays"  # the observation, verbatim
        logged = events(memory)
        again = memory.interchange.import_foreign("mcp-memory", DATA / "mcp_memory.jsonl")
        assert (again.added, again.skipped) == (0, 8) and events(memory) == logged
        found = memory.desk.memory_recall("printer living room")
        assert any("HP M227" in f.content for f in found.related_facts)
        memory.interchange.export_desk(tmp_path / "out")
    exported = [json.loads(line) for line in (tmp_path / "out" / "facts.jsonl").read_text("utf-8").splitlines()]
    origins = {r["content"]: r["origin"] for r in exported}
    assert origins["张伟: 负责审核每周的周报"] == {
        "system": "mcp-memory",
        "file": str(DATA / "mcp_memory.jsonl"),
        "entity": "张伟",
        "entityType": "person",
    }


def test_an_environment_scope_makes_candidates_as_a_fact_learned_here(config: Config) -> None:
    with Memory.open(hashed(config)) as memory:
        memory.interchange.import_foreign("mcp-memory", DATA / "mcp_memory.jsonl", scope="environment")
        statuses = {f.status for f in memory.facts.list_facts()}
    assert statuses == {"candidate"}  # evidence on one workday: awaiting a second


def test_the_mem0_example_imports_with_its_metadata(config: Config, tmp_path: Path) -> None:
    with Memory.open(hashed(config)) as memory:
        report = memory.interchange.import_foreign("mem0", DATA / "mem0_export.json")
        assert (report.added, report.refused) == (3, 0)
        facts = {f.content: f for f in memory.facts.list_facts()}
        lunch = facts["Prefers vegetarian food when ordering lunch"]
        source = memory.desk.get_interaction(lunch.evidence[0].source_id)
        assert source["ts"].startswith("2025-03-01T18:00:00")  # its created_at, in UTC
        assert facts["用户的笔记本电脑运行 Ubuntu 24.04"].status == "active"
        memory.interchange.export_desk(tmp_path / "out")
    exported = {
        r["content"]: r for r in map(json.loads, (tmp_path / "out" / "facts.jsonl").read_text("utf-8").splitlines())
    }
    origin = exported["The team's weekly report is due every Friday at 17:00"]["origin"]
    assert origin["metadata"] == {"project": "weekly-report"} and origin["agent_id"] == "desk-assistant"
    assert origin["categories"] == ["work"] and origin["id"] == "7f1d2a9e-55c1-4d2e-9a3b-1b2c3d4e5f60"


def test_secrets_in_foreign_memory_are_redacted(config: Config, tmp_path: Path) -> None:
    mcp = tmp_path / "memory.jsonl"
    mcp.write_text(
        json.dumps({"type": "entity", "name": "ops", "entityType": "service", "observations": [f"key {SECRET_KEY}"]})
        + "\n",
        "utf-8",
    )
    mem0 = tmp_path / "mem0.json"
    mem0.write_text(json.dumps([{"id": "m1", "memory": f"call me at {SECRET_PHONE}", "metadata": {"k": SECRET_KEY}}]))
    with Memory.open(hashed(config)) as memory:
        assert memory.interchange.import_foreign("mcp-memory", mcp).added == 1
        assert memory.interchange.import_foreign("mem0", mem0).added == 1
        everything = json.dumps([e.payload for e in memory.store.events()], ensure_ascii=False)
    assert SECRET_KEY not in everything and "0013 8000" not in everything
    assert "call me at" in everything and "key " in everything


@pytest.mark.parametrize(
    ("system", "content", "says"),
    [
        (
            "mcp-memory",
            '{"type":"entity","name":"a","entityType":"b","observations":["c"]}\n{"type":"entity"\n',
            "line 2: not JSON",
        ),
        ("mcp-memory", '{"type":"note","text":"x"}\n', "line 1: not an entity or a relation"),
        ("mcp-memory", '{"type":"relation","from":"a","to":"b"}\n', "line 1: a relation needs"),
        ("mem0", '[{"id": "1", "memory": "ok"}, {"memory": "no id"}]', "memory 2: its id is missing"),  # from 1
        ("mem0", '{"memories": []}', 'neither a list of memories nor an object with "results"'),
    ],
)
def test_a_malformed_foreign_file_writes_nothing(
    config: Config, tmp_path: Path, system: str, content: str, says: str
) -> None:
    path = tmp_path / "memory.file"
    path.write_text(content, "utf-8")
    with Memory.open(hashed(config)) as memory:
        logged = events(memory)
        with pytest.raises(InvalidInput, match=says):
            memory.interchange.import_foreign(system, path)
        assert events(memory) == logged


def test_a_memory_too_long_for_a_fact_and_a_sensitive_id_are_refused_with_reasons(
    config: Config, tmp_path: Path
) -> None:
    mem0 = tmp_path / "mem0.json"
    memories = [{"id": "long", "memory": "很长的记忆" * 70}, {"id": "short", "memory": "Likes green tea"}]
    mem0.write_text(json.dumps(memories, ensure_ascii=False), "utf-8")
    with Memory.open(hashed(config)) as memory:
        report = memory.interchange.import_foreign("mem0", mem0)
        assert (report.added, report.refused) == (1, 1)
        assert report.reasons == ["mem0.json memory 1: it is longer than 300 characters; a fact is one short sentence"]
        assert [f.content for f in memory.facts.list_facts()] == ["Likes green tea"]
        memory.interchange.export_desk(tmp_path / "out")

    def phone_as_id(lines: list[str]) -> list[str]:
        record = json.loads(lines[0])
        record["interaction_id"] = "13800138000"
        return [lines[0], json.dumps(record, ensure_ascii=False)]

    rewrite(tmp_path / "out", "interactions.jsonl", phone_as_id)
    with Memory.open(hashed(config)) as memory:
        reports = memory.interchange.import_desk(tmp_path / "out")
        assert reports["interactions"].refused == 1 and reports["interactions"].skipped == 1
        assert "interactions.jsonl line 2: interaction_id looks sensitive" in reports["interactions"].reasons[0]
        assert memory.store.db.execute_sql(
            "SELECT COUNT(*) FROM desk_interaction WHERE interaction_id = '13800138000'"
        ).fetchone() == (0,)


def _copy_of_first(changes: list[dict[str, Any]]) -> Callable[[list[str]], list[str]]:
    """An edit appending, for each of `changes`, a copy of the file's first record with those fields."""

    def edit(lines: list[str]) -> list[str]:
        first = json.loads(lines[0])
        return [*lines, *(json.dumps({**first, **change}, ensure_ascii=False) for change in changes)]

    return edit


def test_records_breaking_the_rules_of_their_kind_are_refused_and_never_stored(
    demo: tuple[Config, Path], homes: Callable[[str], Config]
) -> None:
    _source, export = demo
    too_long = "很长的事实" * 61  # 305 characters
    rewrite(
        export,
        "facts.jsonl",
        _copy_of_first(
            [
                {"fact_id": "f_kind", "scope": "profile", "profile_kind": SECRET_KEY, "project": None},
                {
                    "fact_id": "f_long",
                    "scope": "environment",
                    "profile_kind": None,
                    "project": None,
                    "content": too_long,
                },
                {"fact_id": "f_misplaced", "scope": "environment", "profile_kind": "preference", "project": None},
                {
                    "fact_id": "f_unfounded",
                    "scope": "environment",
                    "profile_kind": None,
                    "project": None,
                    "evidence": [],
                },
            ]
        ),
    )
    rewrite(
        export,
        "skills.jsonl",
        _copy_of_first([{"skill_id": "s_phone", "status": "active", "decided_by": "13800138000"}]),
    )
    rewrite(
        export,
        "learned.jsonl",
        _copy_of_first(
            [
                {"record_id": "r_grant", "grant_id": SECRET_KEY},
                {"record_id": "r_kind", "kind": "password"},
                {"record_id": "r_state", "state": "forever"},
                {"record_id": "r_target", "target": "elsewhere:x"},
            ]
        ),
    )

    def twice_and_sensitive(lines: list[str]) -> list[str]:
        first = json.loads(lines[0])
        first["interactions"] = [first["interactions"][0], first["interactions"][0]]
        other = {
            **first,
            "topic_id": "t_phone",
            "interactions": [{**first["interactions"][0], "interaction_id": "13800138000"}],
        }
        return [json.dumps(first, ensure_ascii=False), *lines[1:], json.dumps(other, ensure_ascii=False)]

    rewrite(export, "topics.jsonl", twice_and_sensitive)
    with Memory.open(homes("target")) as memory:
        reports = memory.interchange.import_desk(export)
        stored = json.dumps([e.payload for e in memory.store.events()], ensure_ascii=False)
        facts = {row[0] for row in memory.store.db.execute_sql("SELECT fact_id FROM desk_fact").fetchall()}
        skills = {row[0] for row in memory.store.db.execute_sql("SELECT skill_id FROM desk_skill").fetchall()}
        learned = {row[0] for row in memory.store.db.execute_sql("SELECT record_id FROM learning_record").fetchall()}
    reasons = {kind: " | ".join(r.reasons) for kind, r in reports.items()}
    assert reports["facts"].refused == 4, reasons["facts"]
    assert "profile_kind must be one of" in reasons["facts"] and "longer than 300 characters" in reasons["facts"]
    assert "profile_kind belongs to profile facts only" in reasons["facts"]
    assert "at least one evidence" in reasons["facts"]
    assert not facts & {"f_kind", "f_long", "f_misplaced", "f_unfounded"}
    assert reports["skills"].refused == 1 and "decided_by looks sensitive" in reasons["skills"]
    assert "s_phone" not in skills
    assert reports["learned"].refused == 4, reasons["learned"]
    assert "grant_id looks sensitive" in reasons["learned"] and "kind must be one of" in reasons["learned"]
    assert "state must be one of" in reasons["learned"] and "target must be" in reasons["learned"]
    assert not learned & {"r_grant", "r_kind", "r_state", "r_target"}
    assert reports["topics"].refused == 2, reasons["topics"]
    assert "topics.jsonl line 1: the topic lists interaction" in reasons["topics"] and "twice" in reasons["topics"]
    assert "interaction_id looks sensitive" in reasons["topics"]
    assert SECRET_KEY not in stored and "13800138000" not in stored


def test_an_export_whose_revisions_start_above_one_imports_twice_without_refusals(
    demo: tuple[Config, Path], homes: Callable[[str], Config]
) -> None:
    _source, export = demo

    def later(lines: list[str]) -> list[str]:  # as if the first revisions had been pruned where it came from
        out = []
        for line in lines:
            record = json.loads(line)
            for document in record["documents"]:
                for revision in document["revisions"]:
                    revision["revision"] += 4
            out.append(json.dumps(record, ensure_ascii=False))
        return out

    rewrite(export, "bundles.jsonl", later)
    with Memory.open(homes("target")) as memory:
        first = memory.interchange.import_desk(export)["bundles"]
        again = memory.interchange.import_desk(export)["bundles"]
    assert first.refused == 0 and first.added > 0, first
    assert (again.added, again.refused, again.reasons) == (0, 0, [])
    assert again.skipped == first.added


def test_a_file_past_the_size_cap_is_refused_naming_it(
    demo: tuple[Config, Path], homes: Callable[[str], Config], monkeypatch: pytest.MonkeyPatch
) -> None:
    _source, export = demo
    monkeypatch.setattr(desk_format, "MAX_FILE_BYTES", 1024 * 1024)
    with (export / "interactions.jsonl").open("a", encoding="utf-8") as stream:
        stream.write("\n" * (1024 * 1024 + 1))
    with Memory.open(homes("target")) as memory:
        with pytest.raises(InvalidInput, match=r"interactions\.jsonl is larger than 1 MiB"):
            memory.interchange.import_desk(export)
        assert not any(counts(memory).values())


@pytest.mark.postgresql_only  # SQLite's transaction reads one snapshot already; on a server it must ask for one
def test_an_export_on_a_server_reads_one_snapshot_while_others_commit(
    config: Config, database_url: str, postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = desk_export.task_cards

    def another_host_commits_first(store: Any) -> list[TaskCard]:
        with psycopg.connect(database_url, password=postgres.password, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO desk_task_card (task_id, title, status, result, source, ts, epoch, workday) "
                "VALUES ('t_late', '晚到的任务', 'succeeded', '', 'test', '2026-03-02T09:00:00+00:00', 1772442000, "
                "'2026-03-02')"
            )
        return original(store)

    monkeypatch.setattr(desk_export, "task_cards", another_host_commits_first)
    with Memory.open(hashed(config)) as memory:
        fill_desk(memory)
        counted = memory.interchange.export_desk(tmp_path / "out")
        assert memory.store.db.execute_sql(
            "SELECT COUNT(*) FROM desk_task_card WHERE task_id = 't_late'"
        ).fetchone() == (1,)
    cards = [
        json.loads(line)["task_id"] for line in (tmp_path / "out" / "task_cards.jsonl").read_text("utf-8").splitlines()
    ]
    assert "t_late" not in cards and len(cards) == counted["task_cards"]  # committed after the export's first read


def test_an_import_embeds_what_it_imported_and_leaves_an_older_backlog_to_the_indexer(config: Config) -> None:
    # Before, an import embedded the whole queue before it answered: behind a backlog (or an agent's steady
    # writes, which keep the queue from emptying) it did not answer until the index had caught up with all of it.
    with Memory.open(hashed(config)) as memory:
        for n in range(150):
            memory.desk.remember_interaction(f"old-{n}", user_text=f"积压的第{n}句")
        heard: list[tuple[int, int]] = []
        report = memory.interchange.import_foreign(
            "mem0", DATA / "mem0_export.json", indexing=lambda done, total: heard.append((done, total))
        )
        assert report.added == 3
        assert heard[-1] == (6, 6)  # its three turns and three facts, not the backlog's 150 turns
        index = memory.desk.index.open()
        assert len(index.keys("fact")) == 3 and len(index.keys("interaction")) == 3
        assert memory.desk.index.lag() == 150  # the backlog waits for the index's thread, as before the import
        assert memory.desk.index.drain() == 150
        assert memory.desk.index.lag() == 0

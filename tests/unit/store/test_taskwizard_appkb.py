"""Import and export of the reference App-KB directory: lossless, corrupt lines skipped and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.appkb import kb as appkb
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.interchange.taskwizard_appkb import export_appkb, import_appkb
from store.projections import all_projections


def entry(term: str, package: str, kind: str, scope: str = "global", **extra: object) -> dict[str, object]:
    confidence = {"learned": 0.9}.get(kind, 1.0)
    base = {
        "term": term,
        "label": term,
        "package": package,
        "kind": kind,
        "scope": scope,
        "confidence": confidence,
        "success_count": 0,
        "first_seen": "2026-01-01T00:00:00+00:00",
        "last_seen": "2026-01-01T00:00:00+00:00",
        "stale": False,
    }
    base.update(extra)
    return base


def line(event: dict[str, object]) -> str:
    return json.dumps(event, ensure_ascii=False, sort_keys=True)


# A log in the reference's format, covering every op, as the reference writes it.
GOOD: list[dict[str, object]] = [
    {
        "op": "upsert",
        "entry": entry("微信", "com.tencent.mm", "device", "device:s1"),
        "ts": "2026-01-01T00:00:01+00:00",
    },
    {
        "op": "upsert",
        "entry": entry("淘宝", "com.taobao.taobao", "device", "device:s1"),
        "ts": "2026-01-01T00:00:02+00:00",
    },
    {
        "op": "upsert",
        "entry": entry("小红薯", "com.xingin.xhs", "learned", success_count=1),
        "evidence_note": "implicit: run<r1>",
        "ts": "2026-01-01T00:00:03+00:00",
    },
    {
        "op": "mark_stale",
        "entry": entry("淘宝", "com.taobao.taobao", "device", "device:s1", stale=True),
        "ts": "2026-01-01T00:00:04+00:00",
    },
    {
        "op": "tool_observed",
        "run_id": "r1",
        "step": 3,
        "tool": "launch_app",
        "success": True,
        "term": "小红薯",
        "package": "com.xingin.xhs",
        "ts": "2026-01-01T00:00:05+00:00",
    },
    {
        "op": "alias_overwritten",
        "entry": entry("抖音", "com.ss.android.ugc.aweme", "learned", success_count=1),
        "old_package": "com.ss.android.ugc.aweme.lite",
        "old_packages": ["com.ss.android.ugc.aweme.lite"],
        "new_package": "com.ss.android.ugc.aweme",
        "evidence_run_id": "r2",
        "signature_fingerprint": "ab" * 32,
        "ts": "2026-01-01T00:00:06+00:00",
    },
    {
        "op": "alias_user_set",
        "entry": entry("绿泡泡", "com.tencent.mm", "user"),
        "changed": True,
        "replaced": [],
        "ts": "2026-01-01T00:00:07+00:00",
    },
    {"op": "upsert", "entry": entry("老别名", "com.old.app", "learned"), "ts": "2026-01-01T00:00:08+00:00"},
    {
        "op": "alias_forgotten",
        "term": "老别名",
        "removed": [{"kind": "learned", "package": "com.old.app"}],
        "ts": "2026-01-01T00:00:09+00:00",
    },
    {"op": "upsert", "entry": entry("删我", "com.del.app", "learned"), "ts": "2026-01-01T00:00:10+00:00"},
    {"op": "delete", "entry": entry("删我", "com.del.app", "learned"), "ts": "2026-01-01T00:00:11+00:00"},
]
CORRUPT = [
    "{not json",
    "[1, 2]",
    '{"entry": {}}',
    line({"op": "upsert", "entry": {"term": "", "package": "com.a.b"}}),
    line({"op": "upsert", "entry": entry("x", "com.a.b", "robot")}),
    line({"op": "alias_forgotten", "removed": []}),
]


def write_memory_dir(root: Path, lines: list[str]) -> Path:
    folder = root / "memory" / "app_kb"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "memory"


def summary(store: Store) -> set[tuple[str, str, str, str, bool]]:
    return {(e.term, e.package, e.kind, e.scope, e.stale) for e in appkb.list_entries(store)}


EXPECTED = {
    ("微信", "com.tencent.mm", "device", "device:s1", False),
    ("淘宝", "com.taobao.taobao", "device", "device:s1", True),
    ("小红薯", "com.xingin.xhs", "learned", "global", False),
    ("抖音", "com.ss.android.ugc.aweme", "learned", "global", False),
    ("绿泡泡", "com.tencent.mm", "user", "global", False),
}


def test_import_replays_like_the_reference_and_counts_corrupt_lines(store: Store, tmp_path: Path) -> None:
    lines = [line(e) for e in GOOD]
    memory_dir = write_memory_dir(tmp_path, lines[:5] + CORRUPT + lines[5:])
    report = import_appkb(store, memory_dir)
    assert (report.imported, report.skipped) == (len(GOOD), len(CORRUPT))
    assert any("line 6" in p and "not JSON" in p for p in report.problems)
    assert summary(store) == EXPECTED


def test_export_writes_back_the_same_lines(store: Store, tmp_path: Path) -> None:
    lines = [line(e) for e in GOOD]
    import_appkb(store, write_memory_dir(tmp_path, lines + CORRUPT))
    out = tmp_path / "out"
    counts = export_appkb(store, out)
    assert counts == {"events": len(GOOD), "entries": len(EXPECTED)}
    assert (out / "app_kb" / "events.jsonl").read_text(encoding="utf-8").splitlines() == lines
    view = json.loads((out / "app_kb" / "kb.json").read_text(encoding="utf-8"))
    assert {(e["term"], e["package"], e["kind"], e["scope"], e["stale"]) for e in view} == EXPECTED
    assert [e["scope"] for e in view] == sorted(e["scope"] for e in view)


def test_round_trip_into_a_fresh_home_is_lossless(store: Store, tmp_path: Path) -> None:
    import_appkb(store, write_memory_dir(tmp_path, [line(e) for e in GOOD]))
    export_appkb(store, tmp_path / "out")
    fresh = Store.open(tmp_path / "home2", all_projections())
    try:
        import_appkb(fresh, tmp_path / "out")
        assert appkb.list_entries(fresh) == appkb.list_entries(store)
        export_appkb(fresh, tmp_path / "out2")
        for name in ("events.jsonl", "kb.json"):
            assert (tmp_path / "out2" / "app_kb" / name).read_bytes() == (
                tmp_path / "out" / "app_kb" / name
            ).read_bytes()
    finally:
        fresh.close()


def test_importing_the_same_file_twice_does_nothing_the_second_time(store: Store, tmp_path: Path) -> None:
    memory_dir = write_memory_dir(tmp_path, [line(e) for e in GOOD])
    import_appkb(store, memory_dir)
    count = store.count_events()
    again = import_appkb(store, memory_dir)
    assert again.already_imported and store.count_events() == count


def test_kb_json_is_imported_when_the_log_is_missing(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "app_kb"
    folder.mkdir()
    view = [entry("微信", "com.tencent.mm", "device", "device:s1"), {"term": "bad"}]
    (folder / "kb.json").write_text(json.dumps(view, ensure_ascii=False), encoding="utf-8")
    report = import_appkb(store, folder)
    assert (report.imported, report.skipped) == (1, 1)
    assert summary(store) == {("微信", "com.tencent.mm", "device", "device:s1", False)}


def test_corrupt_kb_json_imports_nothing(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "app_kb"
    folder.mkdir()
    (folder / "kb.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not JSON"):
        import_appkb(store, folder)
    assert store.count_events() == 0


def test_missing_directory_and_symlinks_are_refused(store: Store, tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        import_appkb(store, tmp_path / "nowhere")
    folder = tmp_path / "linked" / "app_kb"
    folder.mkdir(parents=True)
    (tmp_path / "real.jsonl").write_text(line(GOOD[0]) + "\n", encoding="utf-8")
    (folder / "events.jsonl").symlink_to(tmp_path / "real.jsonl")
    with pytest.raises(InvalidInput, match="symlink"):
        import_appkb(store, tmp_path / "linked")


def _home_bytes(store: Store) -> str:
    return "".join(p.read_bytes().decode("latin-1") for p in Path(store.home).rglob("*") if p.is_file())


def test_imported_entries_pass_the_redaction_filter(store: Store, tmp_path: Path) -> None:
    """Issue 25: App-KB entries arrived verbatim (alias terms, labels, notes); now they are filtered like every
    other way in: a sensitive term is skipped and counted, a sensitive label becomes the package name."""
    sensitive: list[dict[str, object]] = [
        {"op": "upsert", "entry": entry("13812345678", "com.a.phone", "user"), "ts": "2026-01-01T00:00:01+00:00"},
        {"op": "upsert", "entry": entry("sk-leakTermAbcdEfgh12345678", "com.a.key", "learned")},
        {"op": "alias_forgotten", "term": "ghp_R8kT2vQ9xL4mN7pW1zY6bC3dF5gH0jKsAeU", "removed": []},
        {
            "op": "upsert",
            "entry": {**entry("记账本", "com.a.book", "device", "device:s1"), "label": "password=Lb1Leak9Zq"},
            "evidence_note": "token: NoteLeak77Xy",
        },
    ]
    report = import_appkb(store, write_memory_dir(tmp_path, [line(e) for e in sensitive]))
    assert (report.imported, report.skipped) == (1, 3)
    assert all("sensitive" in problem for problem in report.problems)
    assert summary(store) == {("记账本", "com.a.book", "device", "device:s1", False)}
    assert [e.label for e in appkb.list_entries(store)] == ["com.a.book"]
    stored = _home_bytes(store)
    for needle in ("13812345678", "leakTermAbcdEfgh", "R8kT2vQ9xL4mN7pW1z", "Lb1Leak9Zq", "NoteLeak77Xy"):
        assert needle not in stored, needle


def test_a_kb_json_entry_with_a_sensitive_term_is_skipped(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "app_kb"
    folder.mkdir(parents=True)
    kb = [entry("微信", "com.tencent.mm", "user"), entry("AKIAQX7R2M0TZ5WK9PBL", "com.a.aws", "user")]
    (folder / "kb.json").write_text(json.dumps(kb), encoding="utf-8")
    report = import_appkb(store, tmp_path / "memory")
    assert (report.imported, report.skipped) == (1, 1)
    assert "AKIAQX7R2M0TZ5WK9PBL" not in _home_bytes(store)

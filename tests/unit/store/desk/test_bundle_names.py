"""Names and paths that become files: refused at input when the file system could not hold them,
and a stored one that the file system refuses never breaks reading or rebuilding the rest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.memory.memory import Memory
from store.core.errors import InvalidInput
from store.desk import bundles
from store.desk.bundle_files import BundleFiles
from store.desk.common import NAME_BYTES, check_id
from store.desk.models import TaskCard
from store.desk.projection import DOMAIN

LONG = "运" * 90  # 90 characters (within the 128 an id may have), 270 bytes: more than a file name holds


def test_a_run_or_schedule_too_long_for_a_file_name_is_refused_before_anything_is_stored(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match=f"at most {NAME_BYTES} bytes"):
        memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id=LONG)
    with pytest.raises(InvalidInput, match=f"at most {NAME_BYTES} bytes"):
        memory.desk.complete_task("t2", title="周报", status="succeeded", schedule_id=LONG, run_id="r1")
    assert TaskCard.select().count() == 0
    assert memory.bundles.list_bundles() == []
    # Within the limit in bytes, CJK names work.
    fits = "运" * (NAME_BYTES // 3)
    done = memory.desk.complete_task("t3", title="周报", status="succeeded", schedule_id="weekly", run_id=fits)
    assert f"runs/{fits}/summary.md" in done["bundle_paths"]
    assert (Path(memory.bundles.bundle_directory("schedule/weekly")) / "runs" / fits / "summary.md").is_file()


@pytest.mark.parametrize(
    ("bundle_id", "path"),
    [
        (f"project/{LONG}", "notes.md"),
        ("project/p", f"runs/{LONG}/summary.md"),
        ("project/p", "文" * 80 + ".md"),  # 243 bytes: no room left for a kept outside edit's suffix
    ],
)
def test_a_document_name_too_long_for_the_file_system_is_refused(memory: Memory, bundle_id: str, path: str) -> None:
    with pytest.raises(InvalidInput, match="bytes"):
        memory.bundles.put_bundle_document(bundle_id, path, "x", expected_revision=0)
    assert memory.bundles.list_bundles() == []


def _file_legacy_run(memory: Memory, bundle_id: str, run_id: str) -> None:
    """Store a run summary under a name an older Jiyi accepted but no file system holds."""
    with memory.store.atomic():
        memory.store.append(
            DOMAIN,
            "bundle_document_put",
            {"bundle_id": bundle_id, "path": f"runs/{run_id}/summary.md", "revision": 1, "content": "旧的"},
            actor="system",
        )


def test_a_stored_name_the_file_system_refuses_breaks_neither_reads_nor_the_rebuild(memory: Memory) -> None:
    memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
    memory.desk.complete_task("t2", title="日报", status="succeeded", schedule_id="daily", run_id="r1")
    _file_legacy_run(memory, "schedule/weekly", LONG)

    bundle = memory.bundles.get_bundle("schedule/weekly")
    files = {d.path: d.file for d in bundle.documents}
    assert files[f"runs/{LONG}/summary.md"] == "unwritable" and files["lessons.md"] == "same"
    pack = memory.context.prepare_context("周报", schedule_id="weekly")
    assert pack["counts"]["bundle"] == 4  # requirements, preferences, lessons, state

    weekly = Path(memory.bundles.bundle_directory("schedule/weekly"))
    daily = Path(memory.bundles.bundle_directory("schedule/daily"))
    (weekly / "lessons.md").unlink()
    (daily / "runs" / "r1" / "summary.md").unlink()
    counts = memory.rebuild()
    assert counts["bundle_files_restored"] == 2 and counts["bundle_files_failed"] == 1
    assert (weekly / "lessons.md").is_file() and (daily / "runs" / "r1" / "summary.md").is_file()


@pytest.mark.parametrize(
    "path",
    [
        "a.md\n",
        "state.json\n",
        "runs/r1/summary.md\n",
        "runs/..\\..\\x/summary.md",
        "runs/a\\b/summary.md",
        "runs/a\x7fb/summary.md",
        "runs/a\x85b/summary.md",
        "runs/a\u2028b/summary.md",
        "runs/a\nb/summary.md",
        "runs/../summary.md",
        "runs/ r1/summary.md",
        "a\\b.md",
    ],
)
def test_document_paths_are_matched_whole_and_refuse_backslashes_and_control_characters(
    memory: Memory, path: str
) -> None:
    with pytest.raises(InvalidInput, match="not a bundle document path"):
        memory.bundles.put_bundle_document("project/p", path, "x", expected_revision=0)
    root = memory.bundles.bundle_files.root
    assert not root.exists() or [p for p in root.rglob("*") if "\\" in p.name or "\n" in p.name] == []


@pytest.mark.parametrize(
    "value",
    ["r1\n", "a\\b", "a/b", "a\x00b", "a\x7fb", "a\x9fb", "a\u2029b", "\ud800", ".", "..", " r1", "x" * 129],
)
def test_ids_are_matched_whole_and_refuse_separators_and_control_characters(value: str) -> None:
    with pytest.raises(InvalidInput):
        check_id(value, "run_id")


def test_mirroring_a_name_the_file_system_refuses_is_reported_not_raised(memory: Memory, tmp_path: Path) -> None:
    files = BundleFiles(tmp_path / "bundles")
    assert files.state("schedule/weekly", f"runs/{LONG}/summary.md", "x") == "unwritable"
    report = bundles.mirror(files, "schedule/weekly", {f"runs/{LONG}/summary.md": ("x", None), "a.md": ("y", None)})
    assert report.failed == 1 and report.written == 1
    assert (tmp_path / "bundles" / "schedule" / "weekly" / "a.md").read_text("utf-8") == "y"
    assert os.listdir(tmp_path / "bundles" / "schedule" / "weekly") == ["a.md"]

"""Reading TaskWizard's append-only experience log again: where the last import stopped, a line being
written, a last line without its newline, a shorter (rewritten) file."""

from __future__ import annotations

import json
from pathlib import Path

from store.core.database import Store
from store.interchange.taskwizard_experience import import_experience


def event(run: int, step: int) -> str:
    record = {
        "type": "experience_event",
        "schema_v": 1,
        "run_id": f"r{run}",
        "step": step,
        "ts": 100.0 + step,
        "tool": "tap",
        "result_class": "ok",
        "app_package": None,
        "device_scope": "device:s1",
        "intent": None,
        "note": None,
    }
    return json.dumps(record, ensure_ascii=False)


def log(tmp_path: Path) -> Path:
    folder = tmp_path / "memory" / "experience"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "events.jsonl"


def test_a_line_being_written_waits_for_the_next_import(store: Store, tmp_path: Path) -> None:
    path = log(tmp_path)
    whole = event(1, 3)
    path.write_text(event(1, 1) + "\n" + event(1, 2) + "\n" + whole[:40], "utf-8")
    first = import_experience(store, tmp_path / "memory")
    assert (first.imported, first.skipped) == (2, 0)
    path.write_text(event(1, 1) + "\n" + event(1, 2) + "\n" + whole + "\n", "utf-8")
    second = import_experience(store, tmp_path / "memory")
    assert (second.imported, second.skipped, second.rewritten) == (1, 0, False)
    assert store.count_events("experience") == 3


def test_a_whole_last_line_without_its_newline_is_imported_once(store: Store, tmp_path: Path) -> None:
    path = log(tmp_path)
    path.write_text(event(2, 1) + "\n" + event(2, 2), "utf-8")
    assert import_experience(store, tmp_path / "memory").imported == 2
    # TaskWizard's writer adds the missing newline before its next line.
    path.write_text(event(2, 1) + "\n" + event(2, 2) + "\n" + event(2, 3) + "\n", "utf-8")
    again = import_experience(store, tmp_path / "memory")
    assert (again.imported, again.rewritten) == (1, False)
    assert import_experience(store, tmp_path / "memory").already_imported
    assert store.count_events("experience") == 3


def test_a_shorter_file_is_a_rewrite_and_adds_nothing_it_already_has(store: Store, tmp_path: Path) -> None:
    path = log(tmp_path)
    lines = [event(3, step) for step in range(1, 6)]
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    import_experience(store, tmp_path / "memory")
    path.write_text("".join(line + "\n" for line in lines[2:]), "utf-8")
    report = import_experience(store, tmp_path / "memory")
    assert (report.rewritten, report.imported, report.known) == (True, 0, 3)
    assert store.count_events("experience") == 5


def test_two_copies_of_a_directory_imported_in_turn_add_each_appended_line_once(store: Store, tmp_path: Path) -> None:
    original = log(tmp_path / "a")
    original.write_text(event(1, 1) + "\n", "utf-8")
    assert import_experience(store, tmp_path / "a" / "memory").imported == 1
    # TaskWizard appends; a copy of the directory (a backup, a synced mount) is imported first, then the original.
    original.write_text(event(1, 1) + "\n" + event(1, 2) + "\n", "utf-8")
    copy = log(tmp_path / "b")
    copy.write_bytes(original.read_bytes())
    from_copy = import_experience(store, tmp_path / "b" / "memory")
    assert (from_copy.imported, from_copy.moved_from) == (1, str(original))
    again = import_experience(store, tmp_path / "a" / "memory")
    assert (again.imported, again.known) == (0, 1)
    assert store.count_events("experience") == 2

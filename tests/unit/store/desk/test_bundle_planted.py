"""Files planted in a real home where a bundle document's file belongs, as a local process could plant them:
a FIFO, a huge sparse file, a hard link to a file outside the home; and a file a crash left behind its
document. None may hang a write, cost memory of its size, change a file outside the home, or make a false
"edited outside" copy.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from service.memory.memory import Memory
from store.desk.projection import DOMAIN

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("plants a FIFO, which Windows has not (Unix only)", allow_module_level=True)

BUNDLE = "project/p"


def _file(memory: Memory, path: str = "notes.md") -> Path:
    return Path(memory.bundles.bundle_directory(BUNDLE)) / path


def _put(memory: Memory, content: str, revision: int, path: str = "notes.md") -> dict[str, object]:
    return dict(memory.bundles.put_bundle_document(BUNDLE, path, content, expected_revision=revision))


def test_a_fifo_at_a_documents_path_neither_hangs_the_put_nor_is_replaced(memory: Memory) -> None:
    _put(memory, "第一版", 0)
    fifo = _file(memory)
    fifo.unlink()
    os.mkfifo(fifo, 0o600)
    answers: list[dict[str, object]] = []
    writer = threading.Thread(target=lambda: answers.append(_put(memory, "第二版", 1)), daemon=True)
    writer.start()
    writer.join(timeout=30)  # a deadline for a loaded machine; the put does not wait for anything
    if writer.is_alive():
        with open(fifo, "wb"):  # let the hung open go on, so that the test can end
            pass
        writer.join(timeout=30)
        pytest.fail("a put hung on a FIFO planted at its document's path")
    [answer] = answers
    assert answer["revision"] == 2 and answer["changed"] is True  # the database has it
    assert "FIFO" in str(answer["mirror_problem"]) and "not a regular file" in str(answer["mirror_problem"])
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # left where it is: Jiyi replaces only regular files
    assert [d.file for d in memory.bundles.get_bundle(BUNDLE).documents] == ["unsafe"]
    check = next(c for c in memory.doctor() if c.name == "bundle files")
    assert not check.ok and "1 unsafe" in check.detail and f"{BUNDLE}/notes.md" in check.detail
    # Other documents are still written, and once the FIFO is gone the document's file is written again.
    assert _put(memory, "别的", 0, "other.md")["mirror_problem"] is None
    fifo.unlink()
    assert _put(memory, "第三版", 2)["mirror_problem"] is None
    assert fifo.read_text("utf-8") == "第三版"


def test_a_huge_sparse_file_at_a_documents_path_is_kept_aside_without_being_read(memory: Memory) -> None:
    _put(memory, "第一版", 0)
    sparse = _file(memory)
    with open(sparse, "r+b") as handle:
        handle.truncate(64 << 20)  # 64 MiB of nothing on disk: far larger than any document may be
    tracemalloc.start()
    try:
        answer = _put(memory, "第二版", 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"the put held {peak >> 20} MiB: it read the planted file"
    assert answer["mirror_problem"] is None and sparse.read_text("utf-8") == "第二版"
    [kept] = sparse.parent.glob("notes.md.outside-*")
    assert answer["outside_edit_kept"] == kept.name and kept.stat().st_size == 64 << 20  # kept, not lost


def test_a_hard_link_to_an_outside_file_keeps_that_files_mode(memory: Memory, tmp_path: Path) -> None:
    _put(memory, "第一版", 0)
    outside = tmp_path / "outside.txt"
    outside.write_text("别人的文件", "utf-8")
    outside.chmod(0o644)
    planted = _file(memory)
    planted.unlink()
    os.link(outside, planted)
    answer = _put(memory, "第二版", 1)
    assert answer["outside_edit_kept"] is not None and planted.read_text("utf-8") == "第二版"
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644 and outside.read_text("utf-8") == "别人的文件"
    # Nor does making the mirror private (`jiyi rebuild`) change a hard-linked file's mode.
    os.link(outside, planted.parent / "another.txt")
    memory.rebuild()
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644
    assert stat.S_IMODE(planted.stat().st_mode) == 0o600  # Jiyi's own file is private


def _commit_without_mirroring(memory: Memory, content: str, revision: int) -> None:
    """What a `kill -9` between a put's commit and its file leaves: the put in the database, the file older."""
    with memory.parts.writes, memory.store.atomic():
        memory.store.append(
            DOMAIN,
            "bundle_document_put",
            {"bundle_id": BUNDLE, "path": "notes.md", "revision": revision, "content": content},
            actor="agent",
        )


def test_a_file_a_crash_left_at_an_older_revision_is_caught_up_at_start(memory: Memory) -> None:
    _put(memory, "第一版", 0)
    _commit_without_mirroring(memory, "第二版", 2)
    assert _file(memory).read_text("utf-8") == "第一版"
    config = memory.config
    memory.close()
    with Memory.open(config) as restarted:
        assert _file(restarted).read_text("utf-8") == "第二版"  # before any put judges the file
        answer = _put(restarted, "第三版", 2)
        assert answer["outside_edit_kept"] is None and _file(restarted).read_text("utf-8") == "第三版"
        assert list(_file(restarted).parent.glob("*.outside-*")) == []


def test_a_put_after_a_file_left_behind_makes_no_false_outside_copy(memory: Memory) -> None:
    _put(memory, "第一版", 0)
    _commit_without_mirroring(memory, "第二版", 2)
    answer = _put(memory, "第三版", 2)  # the file holds revision 1: stale, not edited outside
    assert answer["outside_edit_kept"] is None and _file(memory).read_text("utf-8") == "第三版"
    assert list(_file(memory).parent.glob("*.outside-*")) == []
    # A real outside edit is still kept.
    _file(memory).write_text("有人在外面改了", "utf-8")
    kept = _put(memory, "第四版", 3)["outside_edit_kept"]
    assert kept is not None and (_file(memory).parent / str(kept)).read_text("utf-8") == "有人在外面改了"

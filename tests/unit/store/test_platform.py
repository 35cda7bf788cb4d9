"""The store's half of the platform seam (`store/core/home/platform.py`): what runs on Linux, and the fallbacks Windows
takes (a link refused without `O_NOFOLLOW`, folders walked by path without `dir_fd`), run here on real files."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

import pytest

from store.core.home import HomeLock, platform
from store.desk.bundle_files import BundleFiles

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip(
        "checks the Unix branches and runs the Windows fallbacks on Unix files (Unix only)", allow_module_level=True
    )


def test_open_file_refuses_a_link_with_o_nofollow_and_without_it(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(OSError) as flag:
        platform.open_file(link, os.O_RDONLY)
    assert flag.value.errno in (errno.ELOOP, errno.EMLINK)
    with pytest.raises(OSError) as looked:  # what Windows does, having no O_NOFOLLOW
        platform.refuse_link(link)
    assert looked.value.errno == errno.ELOOP and "does not follow" in str(looked.value)
    platform.refuse_link(target)  # a plain file, and a missing one, pass
    platform.refuse_link(tmp_path / "missing")
    fd = platform.open_file(tmp_path / "new", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        assert os.get_inheritable(fd) is False  # closed on exec
    finally:
        os.close(fd)


def test_a_folder_walked_by_path_refuses_links_and_files_as_the_descriptor_walk_does(tmp_path: Path) -> None:
    (tmp_path / "root" / "sub").mkdir(parents=True)
    (tmp_path / "root" / "file").write_text("x")
    (tmp_path / "root" / "link").symlink_to(tmp_path / "root" / "sub", target_is_directory=True)
    for by_descriptor in (True, False):
        root = platform.Folder.open(tmp_path / "root", by_descriptor=by_descriptor)
        try:
            assert (root.fd is not None) is by_descriptor
            with pytest.raises(OSError) as link:
                root.below("link")
            assert link.value.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)
            with pytest.raises(OSError) as file:
                root.below("file")
            assert file.value.errno == errno.ENOTDIR
            with pytest.raises(OSError) as planted:
                root.open_file("link", os.O_RDONLY)
            assert planted.value.errno in (errno.ELOOP, errno.EMLINK)
            with pytest.raises(FileNotFoundError):
                root.below("missing")
        finally:
            root.close()
    with pytest.raises(OSError) as top:
        platform.Folder.open(tmp_path / "root" / "link", by_descriptor=False)
    assert top.value.errno == errno.ELOOP


def test_a_folder_walked_by_path_makes_writes_renames_and_removes_below_it(tmp_path: Path) -> None:
    root = platform.Folder.open(tmp_path, by_descriptor=False)
    root.make("made", 0o755)
    made = root.below("made")
    made.set_mode(0o700)
    assert stat.S_IMODE((tmp_path / "made").stat().st_mode) == 0o700
    fd = made.open_file("a", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, "一".encode())
    os.close(fd)
    made.replace("a", "b")
    assert (tmp_path / "made" / "b").read_text("utf-8") == "一" and stat.S_ISREG(made.lstat("b").st_mode)
    made.unlink("b")
    assert not list((tmp_path / "made").iterdir())
    with pytest.raises(FileExistsError):
        root.make("made")
    made.close()
    root.close()


def test_the_bundle_mirror_walked_by_path_writes_reads_and_keeps_an_outside_edit(tmp_path: Path) -> None:
    files = BundleFiles(tmp_path / "bundles", by_descriptor=False)
    assert files.write("project/p", "notes/a.md", "第一版", None) is None
    on_disk = tmp_path / "bundles" / "project" / "p" / "notes" / "a.md"
    assert on_disk.read_text("utf-8") == "第一版" and stat.S_IMODE(on_disk.stat().st_mode) == 0o600
    assert stat.S_IMODE(on_disk.parent.stat().st_mode) == 0o700
    assert files.read("project/p", "notes/a.md") == "第一版"
    on_disk.write_text("别人改的", "utf-8")
    on_disk.chmod(0o644)
    kept = files.write("project/p", "notes/a.md", "第二版", "第一版")
    assert kept is not None and kept.startswith("notes/a.md.outside-")
    copy = tmp_path / "bundles" / "project" / "p" / kept
    assert copy.read_text("utf-8") == "别人改的" and stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert files.read("project/p", "notes/a.md") == "第二版"


def test_the_homes_lock_is_taken_once_and_given_back(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(path, os.O_RDWR)
    try:
        assert platform.try_lock(first) is True
        assert platform.try_lock(second) is False  # another open file: another holder
        platform.unlock(first)
        assert platform.try_lock(second) is True
    finally:
        os.close(first)
        os.close(second)
    (tmp_path / "home").mkdir(mode=0o700)
    lock = HomeLock(tmp_path / "home")
    lock.acquire()
    try:
        with pytest.raises(Exception, match="pid"):
            HomeLock(tmp_path / "home").acquire()
    finally:
        lock.release()


def test_positioned_reads_and_writes_leave_the_rest_of_the_file(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "mark", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"0123456789")
        assert platform.write_at(fd, b"ab", 3) == 2
        assert platform.read_at(fd, 4, 2) == b"2ab5"
    finally:
        os.close(fd)


def test_private_file_checks_see_the_mode_bits_and_the_owner(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    path.chmod(0o640)
    assert platform.open_to_others(path.stat()) == 0o040
    path.chmod(0o600)
    assert platform.open_to_others(path.stat()) == 0
    assert platform.not_yours(path.stat()) is None
    assert platform.PRIVATE_CHECKED_BY_MODE
    someone = os.stat_result((0o100600, 1, 1, 1, os.geteuid() + 1, 0, 0, 0, 0, 0))
    assert platform.not_yours(someone) == f"owned by uid {os.geteuid() + 1}, not by you (uid {os.geteuid()})"
    assert platform.current_user() == f"uid {os.geteuid()}"
    assert platform.group_name(os.getegid()) != "" and platform.group_name(2**31 - 7) == str(2**31 - 7)


def test_the_file_system_is_asked_whether_it_is_read_only_or_full(tmp_path: Path) -> None:
    assert platform.read_only_file_system(tmp_path) is False
    assert platform.out_of_space(tmp_path) is False
    with pytest.raises(OSError):
        platform.read_only_file_system(tmp_path / "missing")

"""Write files so that a reader sees the old content or the new, never half; and keep what Jiyi makes private."""

from __future__ import annotations

import logging
import os
import stat
import tempfile
from pathlib import Path

log = logging.getLogger("jiyi.store.files")

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def make_private_dirs(path: Path) -> None:
    """Create `path` and any missing parent, each 0700 (`Path.mkdir(parents=True)` makes parents 0777 & ~umask).

    Existing folders are left as they are.
    """
    missing: list[Path] = []
    here = path
    while not here.exists() and not here.is_symlink():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue  # made meanwhile by another writer
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode passes through the umask, which may take bits away


def make_private(root: Path) -> int:
    """Take group and other permissions off everything under `root` (itself included); returns how many changed.

    Folders become 0700 and files 0600; links are not followed, and a file with
    more than one hard link is left as it is (its mode is the inode's, shared
    with a name that may be outside the home). For files that another library
    created with the umask's modes (Chroma's).
    """
    changed = _privatize(str(root))
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            changed += _privatize(os.path.join(folder, name))
    return changed


def _privatize(path: str) -> int:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return 0  # removed meanwhile
    if stat.S_ISLNK(info.st_mode) or not info.st_mode & 0o077:
        return 0
    if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
        log.warning("%s has %d hard links; its mode is left as it is (it is shared with them)", path, info.st_nlink)
        return 0
    try:
        os.chmod(path, PRIVATE_DIR if stat.S_ISDIR(info.st_mode) else PRIVATE_FILE)
    except OSError as exc:  # not ours (another user put it there): say so, and go on with the rest
        log.warning("cannot make %s private: %s", path, exc.strerror)
        return 0
    return 1


def write_text(path: Path, text: str, mode: int = PRIVATE_FILE) -> None:
    """Atomically replace `path` with `text` (UTF-8), fsynced, with `mode`; missing folders are made 0700."""
    make_private_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""The mirror of the bundles on disk: one folder per bundle, one file per document.

Every file operation is confined to the bundles folder by construction: the
folder is opened once (`O_NOFOLLOW`), and each folder below it is opened
relative to the one above (`dir_fd`, `O_NOFOLLOW | O_DIRECTORY`), so a link
planted anywhere on the way, or swapped in between a check and a write, is
refused rather than followed. (Where folders cannot be opened so, on Windows,
each part is looked at before it is used: a planted link is refused, one
swapped in between is not; `store.core.home.platform.Folder`.) A name that is empty, `.` or `..`, or that
holds a NUL or a backslash, is refused before anything is opened
(`UnsafePath`): no bundle id or path from the log can climb out.

Only regular files are read or replaced. A FIFO, socket, device or folder
at a document's path is refused (`UnsafePath`, file state `unsafe`) without
opening it for writing; files are opened `O_NONBLOCK` (a FIFO planted
between the check and the open cannot hang a write) and read only up to
`MAX_DOCUMENT_BYTES` (a larger file is no stored revision: it is an outside
edit, kept without being read). A kept file is made 0600 only when it has
no other link: the mode belongs to the inode, which a hard link shares with
a file outside the home.

Writing never overwrites a file edited outside Jiyi: that version is kept
beside it (`<name>.outside-<time>`) and the write says so. A name longer than
the file system holds is refused before anything is written.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

from store.core.errors import UnsafePath
from store.core.home import platform
from store.core.home.atomic_file import make_private, make_private_dirs
from store.desk.bundle_names import MAX_DOCUMENT_BYTES

log = logging.getLogger("jiyi.store.desk")

NAME_MAX = 255  # bytes in one file or folder name (ext4, APFS, NTFS in UTF-16 units)
UNREADABLE = "\x00unreadable"  # what `read` answers for a file it cannot read or decode: never a stored content
TOO_BIG = "\x00too big"  # a file larger than any document: never a stored content either

_READ = os.O_RDONLY | platform.NONBLOCK
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder")):
        if test(mode):
            return name
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "link" if stat.S_ISLNK(mode) else "special file"


def _is_link(name: str, folder: platform.Folder) -> bool:
    try:
        return platform.is_link(folder.lstat(name))
    except OSError:
        return False


class BundleFiles:
    """The mirror of the bundles under one directory (default `<home>/bundles`)."""

    def __init__(self, root: Path, *, by_descriptor: bool = platform.BY_DESCRIPTOR) -> None:
        self.root = root
        self.by_descriptor = by_descriptor
        """Folders opened as descriptors (Unix), or walked by path with a look at each part (Windows)."""

    def parts_of(self, bundle_id: str, path: str = "") -> list[str]:
        """The names from the bundles folder down to a document's file (or the bundle's folder), checked.

        Raises `UnsafePath` for a part that is empty, `.` or `..` or holds a NUL or a backslash (an
        absolute path starts with an empty part), `OSError` (ENAMETOOLONG) for a name the file system
        cannot hold, `ValueError` for one it cannot encode.
        """
        parts = bundle_id.split("/") + (path.split("/") if path else [])
        for part in parts:
            if part in ("", ".", "..") or "\x00" in part or "\\" in part:
                where = f"{bundle_id}/{path}" if path else bundle_id
                raise UnsafePath(f"{where[:120]!r} is not a path inside the bundles folder; Jiyi writes only below it")
            if len(os.fsencode(part)) > NAME_MAX:
                raise OSError(errno.ENAMETOOLONG, f"the name {part[:40]!r}… is longer than {NAME_MAX} bytes")
        return parts

    def path_of(self, bundle_id: str, path: str = "") -> Path:
        """The file (or the bundle's folder) of a document, checked: inside the folder, no link on the way.

        For showing and probing only; reads and writes open each folder relative to the one above.
        Raises as `parts_of`, and `UnsafePath` for a link.
        """
        parts = self.parts_of(bundle_id, path)
        here = self.root
        if here.is_symlink():
            raise UnsafePath(f"the bundles directory {here} is a symlink; Jiyi does not write through links")
        for part in parts:
            here = here / part
            if here.is_symlink():
                raise UnsafePath(f"{here} is a symlink; Jiyi does not write bundle files through links")
        return here

    def make_private(self) -> None:
        """Take group and other permissions off the mirror (folders made by an older Jiyi were 0755)."""
        if self.root.is_dir() and not self.root.is_symlink():
            make_private(self.root)

    @contextmanager
    def _folder(self, parts: list[str], *, create: bool) -> Iterator[platform.Folder | None]:
        """The folder holding `parts[-1]`, opened part by part without following links.

        None when a folder on the way is missing and `create` is false; with `create`, missing
        folders are made 0700.
        """
        if create and not self.root.exists() and not self.root.is_symlink():
            make_private_dirs(self.root)
        folder: platform.Folder | None
        try:
            folder = platform.Folder.open(self.root, by_descriptor=self.by_descriptor)
        except FileNotFoundError:
            folder = None
        except OSError as exc:
            raise self._refused(exc, self.root, "the bundles directory", self.root.is_symlink()) from None
        try:
            here = self.root
            for part in parts[:-1]:
                if folder is None:
                    break
                here = here / part
                made = False
                if create:
                    try:
                        folder.make(part, 0o700)
                        made = True
                    except FileExistsError:
                        pass
                try:
                    below: platform.Folder | None = folder.below(part)
                except FileNotFoundError:
                    if create:
                        raise
                    below = None
                except OSError as exc:
                    raise self._refused(exc, here, "a bundle folder", _is_link(part, folder)) from None
                folder.close()
                folder = below
                if made and folder is not None:
                    folder.set_mode(0o700)  # mkdir's mode passes through the umask
            yield folder
        finally:
            if folder is not None:
                folder.close()

    @staticmethod
    def _refused(exc: OSError, where: Path, what: str, link: bool) -> OSError | UnsafePath:
        # O_NOFOLLOW on a link answers ELOOP (EMLINK on FreeBSD); with O_DIRECTORY, Linux may answer ENOTDIR.
        if link or exc.errno in (errno.ELOOP, errno.EMLINK):
            return UnsafePath(f"{what} {where} is a symlink; Jiyi does not write bundle files through links")
        if exc.errno == errno.ENOTDIR:
            return UnsafePath(f"{where} is not a folder; Jiyi does not replace what it did not make")
        return exc

    def _read_at(self, folder: platform.Folder, name: str, where: str, limit: int = MAX_DOCUMENT_BYTES) -> str | None:
        """The text of `name` in `folder`: None if missing, `TOO_BIG` (past `limit` bytes) or `UNREADABLE`;
        `UnsafePath` for anything but a regular file (it is not opened, so a FIFO or a device cannot block)."""
        try:
            info = folder.lstat(name)
        except FileNotFoundError:
            return None
        except OSError:
            return UNREADABLE
        if platform.is_link(info) or not stat.S_ISREG(info.st_mode):
            raise UnsafePath(
                f"{where} is a {_kind_of(info.st_mode)}, not a regular file; Jiyi reads and replaces only regular files"
            )
        if info.st_size > limit:
            return TOO_BIG
        try:
            handle = folder.open_file(name, _READ)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                raise UnsafePath(f"{where} was replaced by a link or a special file while being read") from None
            return UNREADABLE
        try:
            opened = os.fstat(handle)
            if not stat.S_ISREG(opened.st_mode):  # swapped between the stat and the open
                raise UnsafePath(f"{where} is a {_kind_of(opened.st_mode)}, not a regular file")
            chunks: list[bytes] = []
            size = 0
            while size <= limit:
                chunk = os.read(handle, min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            return UNREADABLE
        finally:
            os.close(handle)
        if size > limit:
            return TOO_BIG  # it grew after the stat
        try:
            return b"".join(chunks).decode("utf-8")
        except UnicodeDecodeError:
            return UNREADABLE

    def read(self, bundle_id: str, path: str) -> str | None:
        """A document's file as text: None if missing, `UNREADABLE` or `TOO_BIG`; `UnsafePath` for a link on
        the way or anything but a regular file."""
        return self.read_file(self.parts_of(bundle_id, path))

    def read_file(self, parts: list[str], limit: int = MAX_DOCUMENT_BYTES) -> str | None:
        """`read` for a file named by its parts below the bundles folder (the mirror's mark, a document)."""
        with self._folder(parts, create=False) as folder:
            if folder is None:
                return None
            return self._read_at(folder, parts[-1], "/".join(parts), limit)

    def write_file(self, parts: list[str], text: str, *, durable: bool = True) -> None:
        """Atomically replace a file below the bundles folder (0600; fsynced when `durable`); refuses what
        `read` refuses."""
        with self._folder(parts, create=True) as folder:
            assert folder is not None
            self._read_at(folder, parts[-1], "/".join(parts), 0)  # only a regular file (or nothing) is replaced
            self._write_at(folder, parts[-1], text, durable)

    @staticmethod
    def _write_at(folder: platform.Folder, name: str, text: str, durable: bool = True) -> None:
        temporary = f".{name}.{secrets.token_hex(4)}"
        handle = folder.open_file(temporary, _CREATE, 0o600)
        try:
            try:
                platform.set_mode(handle, 0o600)  # the umask may have taken bits from the mode
                data = text.encode("utf-8")
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view) :]
                if durable:
                    os.fsync(handle)
            finally:
                os.close(handle)
            folder.replace(temporary, name)
        except BaseException:
            with suppress(FileNotFoundError):
                folder.unlink(temporary)
            raise

    def write(
        self,
        bundle_id: str,
        path: str,
        content: str,
        previous: str | None,
        stored_before: Callable[[str], bool] | None = None,
    ) -> str | None:
        """Mirror one document; returns where an outside edit was kept, if the file had one.

        `stored_before(text)` tells whether `text` was once a stored revision: a file may lag
        behind the database (another host wrote on a shared store; a crash or a full disk came
        between a commit and its file), and an older revision on disk is a stale mirror, not an
        outside edit. A file that already holds `content` is left as it is.
        """
        parts = self.parts_of(bundle_id, path)
        with self._folder(parts, create=True) as folder:
            assert folder is not None
            name = parts[-1]
            on_disk = self._read_at(folder, name, f"{bundle_id}/{path}")
            if on_disk == content:
                return None
            kept = None
            edited = on_disk is not None and on_disk not in (previous, content)
            # Only then is the log asked (it reads the document's puts): is the file a stale mirror?
            if on_disk is not None and edited and not (stored_before is not None and stored_before(on_disk)):
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
                keep = f"{name}.outside-{stamp}"
                folder.replace(name, keep)
                self._make_kept_private(folder, keep, f"{bundle_id}/{path}")
                kept = "/".join([*parts[2:-1], keep])
                log.warning("%s/%s was edited outside Jiyi; kept that version as %s", bundle_id, path, kept)
            self._write_at(folder, name, content)
        return kept

    @staticmethod
    def _make_kept_private(folder: platform.Folder, name: str, where: str) -> None:
        """An editor may have saved the kept file readable by others: it becomes 0600, unless it has
        another link (the mode is the inode's, shared with that file, which may be outside the home)."""
        try:
            handle = folder.open_file(name, _READ)
        except OSError as exc:
            log.warning("cannot make the kept outside edit of %s private: %s", where, exc.strerror)
            return
        try:
            info = os.fstat(handle)
            if info.st_nlink > 1:
                log.warning(
                    "the outside edit of %s kept as %s has %d links; its mode is left as it is",
                    where,
                    name,
                    info.st_nlink,
                )
            elif platform.open_to_others(info):
                platform.set_mode(handle, 0o600)
        finally:
            os.close(handle)

    def state(self, bundle_id: str, path: str, content: str) -> str:
        """How the file compares with the stored document: same, missing, edited_outside, unsafe or unwritable."""
        try:
            on_disk = self.read(bundle_id, path)
        except UnsafePath:
            return "unsafe"
        except (OSError, ValueError):
            return "unwritable"  # a name the file system refuses (stored by an older Jiyi), or an unreadable folder
        if on_disk is None:
            return "missing"
        return "same" if on_disk == content else "edited_outside"

"""What the store does differently on Linux, macOS and Windows. Everything else in `store` is portable and asks
this module; the service's half of the seam (the socket's name and transport, the user service) is
`service/platform/`, and docs/install.md ("What differs by platform, and what is verified") lists both.

- **The home's lock**: `flock` on Unix; on Windows `msvcrt.locking` of one byte far past the end of the lock
  file, so the owner's note in the file stays readable to whoever comes second.
- **Private files**: Unix checks the owner (`st_uid`) and the mode bits (nothing for group or others). Windows
  reports neither through `os.stat` (no owner; the mode says only read-only), so there the check is weaker, and
  documented as such: a link (symlink or junction), a non-regular file and a second hard link are still refused,
  and privacy rests on the home being inside the user's profile, whose ACL admits the user alone.
- **Open flags**: `O_NOFOLLOW`, `O_DIRECTORY`, `O_CLOEXEC` and `O_NONBLOCK` where the system has them. Where it has
  no `O_NOFOLLOW` (Windows), `open_file` looks at the path with `lstat` first and refuses a link as the flag
  would (`ELOOP`); a link swapped in between that look and the open is not caught there.
- **Folders opened relative to one another** (`dir_fd`, the bundle files): where `os.open` cannot open a folder
  or take `dir_fd` (Windows), `Folder` works by path, looking at each part with `lstat` before using it.
- **Positioned reads and writes**: `pread`/`pwrite`, else a seek and a read or write under the caller's lock.
- **The file system**: read-only (`statvfs`; Windows: not known before the first write, which then says so) and
  out of space (`statvfs`, else `shutil.disk_usage`).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
from pathlib import Path

NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
BINARY: int = getattr(os, "O_BINARY", 0)  # Windows: no newline translation on os.read and os.write
PRIVATE_CHECKED_BY_MODE = sys.platform != "win32"
"""Whether a file's owner and mode bits are checked (Unix), or only its kind, links and link count (Windows)."""

BY_DESCRIPTOR = {os.open, os.mkdir, os.stat, os.rename, os.unlink} <= os.supports_dir_fd and bool(DIRECTORY)
"""Whether folders are opened as descriptors and the names below them resolved relative to those (`dir_fd`)."""

WINDOWS_LOCK_OFFSET = 0x7FFFFFFF
"""The byte of the lock file `msvcrt.locking` locks: far past its end, so reading the owner's note is never blocked."""

_REPARSE_POINT = 0x400  # FILE_ATTRIBUTE_REPARSE_POINT: a symlink or a junction on Windows


# -- links and opening ---------------------------------------------------------------------------------------------


def is_link(info: os.stat_result) -> bool:
    """Whether `lstat`'s answer is a link: a symlink, or on Windows any reparse point (a junction too)."""
    return stat.S_ISLNK(info.st_mode) or bool(getattr(info, "st_file_attributes", 0) & _REPARSE_POINT)


def refuse_link(path: str | Path, dir_fd: int | None = None) -> None:
    """`OSError(ELOOP)` when `path` is a link, as `O_NOFOLLOW` answers; nothing when it is missing or not one."""
    try:
        info = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if is_link(info):
        raise OSError(errno.ELOOP, "is a link, which Jiyi does not follow", str(path))


def open_file(path: str | Path, flags: int, mode: int = 0o600, *, dir_fd: int | None = None) -> int:
    """`os.open` that never follows a link at `path` (`OSError` ELOOP, or EMLINK on FreeBSD), closed on exec.

    `O_NOFOLLOW` where the system has it; elsewhere (Windows) the path is looked at with `lstat` first.
    """
    if not NOFOLLOW:
        refuse_link(path, dir_fd)
    return os.open(path, flags | NOFOLLOW | CLOEXEC | BINARY, mode, dir_fd=dir_fd)


# -- private files -------------------------------------------------------------------------------------------------


def not_yours(info: os.stat_result) -> str | None:
    """ "owned by uid N, not by you (uid M)" for a file or folder of another user's; None for one of yours, and
    always on Windows (`os.stat` reports no owner there)."""
    if sys.platform == "win32":
        return None
    me = os.geteuid()
    return None if info.st_uid == me else f"owned by uid {info.st_uid}, not by you (uid {me})"


def open_to_others(info: os.stat_result) -> int:
    """The permission bits that let anyone but the owner in (`mode & 0o077`); 0 on Windows, where the mode bits
    say only whether a file is read-only and privacy is the user profile's ACL."""
    if sys.platform == "win32":
        return 0
    return stat.S_IMODE(info.st_mode) & 0o077


def set_mode(fd: int, mode: int) -> None:
    """Give the open file `fd` the permission bits `mode` (the umask may have taken some); nothing on Windows."""
    if sys.platform != "win32":
        os.fchmod(fd, mode)


def current_user() -> str:
    """Who runs this process, for messages when the user has no name: "uid 1000", or Windows's user name."""
    if sys.platform == "win32":
        return os.environ.get("USERNAME", "this user")
    return f"uid {os.geteuid()}"


def private_group(gid: int) -> bool:
    """Whether `gid` is the current user's private group: their primary group, named as they are, no one else in it.
    Never on Windows (no groups in `os.stat`)."""
    if sys.platform == "win32":
        return False
    import grp
    import pwd

    try:
        user = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    return gid == user.pw_gid and group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}


def group_name(gid: int) -> str:
    """The group's name, or its number when it has none."""
    if sys.platform != "win32":
        import grp

        try:
            return grp.getgrgid(gid).gr_name
        except KeyError:
            pass
    return str(gid)


# -- the home's lock -----------------------------------------------------------------------------------------------


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on the open file `fd` without waiting: False when another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        here = os.lseek(fd, 0, os.SEEK_CUR)
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EDEADLK):
                return False
            raise
        finally:
            os.lseek(fd, here, os.SEEK_SET)
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def unlock(fd: int) -> None:
    """Let go of the lock `try_lock` took on `fd`."""
    if sys.platform == "win32":
        import msvcrt

        here = os.lseek(fd, 0, os.SEEK_CUR)
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        finally:
            os.lseek(fd, here, os.SEEK_SET)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


# -- positioned reads and writes -----------------------------------------------------------------------------------


def read_at(fd: int, size: int, offset: int) -> bytes:
    """Up to `size` bytes of `fd` from `offset` (the caller serializes its reads and writes of `fd`)."""
    if sys.platform == "win32":
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, size)
    return os.pread(fd, size, offset)


def write_at(fd: int, data: bytes, offset: int) -> int:
    """Write `data` into `fd` at `offset` (the caller serializes its reads and writes of `fd`); bytes written."""
    if sys.platform == "win32":
        os.lseek(fd, offset, os.SEEK_SET)
        return os.write(fd, data)
    return os.pwrite(fd, data, offset)


# -- the file system -----------------------------------------------------------------------------------------------


def read_only_file_system(path: str | Path) -> bool:
    """Whether `path` is on a file system mounted read-only (`OSError` when it cannot be asked). Windows cannot be
    asked through the standard library: False there, and the first write says what is wrong."""
    if sys.platform == "win32":
        return False
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def out_of_space(path: str | Path) -> bool:
    """Whether the file system holding `path` has no block free for this user (`OSError` when it cannot be asked)."""
    if sys.platform == "win32":
        return shutil.disk_usage(path).free == 0
    return os.statvfs(path).f_bavail == 0


# -- folders opened relative to one another ------------------------------------------------------------------------


class Folder:
    """A folder names inside it are resolved against, without following a link at any of them.

    By descriptor (`BY_DESCRIPTOR`): the folder is open, and every name is resolved relative to it (`dir_fd`), so
    a link swapped in above cannot redirect anything. By path (Windows): each name is looked at with `lstat` before
    it is used, which refuses the links planted before, not one swapped in between the look and the use.
    """

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def open(cls, path: Path, *, by_descriptor: bool = BY_DESCRIPTOR) -> Folder:
        """The folder at `path` (`FileNotFoundError` when missing, `OSError` ELOOP for a link, ENOTDIR for a file)."""
        if by_descriptor:
            return cls(path, os.open(path, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC))
        _expect_folder(os.lstat(path), path)
        return cls(path, None)

    def below(self, name: str) -> Folder:
        """The folder `name` inside this one, opened as `open` does."""
        if self.fd is not None:
            return Folder(self.path / name, os.open(name, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=self.fd))
        _expect_folder(os.lstat(self.path / name), self.path / name)
        return Folder(self.path / name, None)

    def make(self, name: str, mode: int = 0o700) -> None:
        """Create the folder `name` inside this one (`FileExistsError` when something is there)."""
        if self.fd is not None:
            os.mkdir(name, mode, dir_fd=self.fd)
        else:
            os.mkdir(self.path / name, mode)

    def set_mode(self, mode: int) -> None:
        """Give this folder the permission bits `mode` (nothing on Windows)."""
        if self.fd is not None:
            set_mode(self.fd, mode)
        elif sys.platform != "win32":
            os.chmod(self.path, mode, follow_symlinks=False)

    def lstat(self, name: str) -> os.stat_result:
        """What `name` inside this folder is, not following a link."""
        if self.fd is not None:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        return os.lstat(self.path / name)

    def open_file(self, name: str, flags: int, mode: int = 0o600) -> int:
        """`name` inside this folder opened as `open_file` does (a link refused)."""
        if self.fd is not None:
            return open_file(name, flags, mode, dir_fd=self.fd)
        refuse_link(self.path / name)
        return os.open(self.path / name, flags | NOFOLLOW | CLOEXEC | BINARY, mode)

    def replace(self, source: str, target: str) -> None:
        """Rename `source` to `target` inside this folder, replacing what `target` names."""
        if self.fd is not None:
            os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self.path / source, self.path / target)

    def unlink(self, name: str) -> None:
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _expect_folder(info: os.stat_result, path: Path) -> None:
    """Raise as `open(O_DIRECTORY | O_NOFOLLOW)` would for what is not a plain folder."""
    if is_link(info):
        raise OSError(errno.ELOOP, "is a link, which Jiyi does not follow", str(path))
    if not stat.S_ISDIR(info.st_mode):
        raise OSError(errno.ENOTDIR, "is not a folder", str(path))

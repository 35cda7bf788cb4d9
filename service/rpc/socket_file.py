"""The socket's file: its private folder, who listens on it, and whether a new server may take it.

On Windows the service listens on a named pipe, which is no file: there is no folder to prepare and no stale
file to remove, only a live server to find (`service/platform/address.py`)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from service.client import open_channel
from service.config import Config
from service.platform.address import is_pipe, may_be_listening
from service.remote.attach import configured_socket
from store.core.errors import EnvironmentProblem, UnsafePath
from store.core.home import platform


def prepare_socket_dir(path: Path) -> None:
    """Create the socket's folder private (0700) or check that it is private and ours."""
    if is_pipe(path):
        return  # a named pipe has no folder
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True)
    info = folder.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"socket folder {folder} is not a plain directory")
    owner = platform.not_yours(info)
    if owner is not None:
        raise UnsafePath(f"socket folder {folder} is {owner}")
    if platform.open_to_others(info) & 0o022:
        raise UnsafePath(f"socket folder {folder} is writable by others; run: chmod 700 {folder}")


def probe(path: Path, timeout: float = 1.0) -> dict[str, object] | None:
    """Ask whoever listens on `path` for its health; None when nobody does."""
    try:
        sock = open_channel(path, timeout)
    except OSError:
        return None
    try:
        sock.sendall(b'{"id":"probe","method":"health"}\n')
        data = b""
        while b"\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        response = json.loads(data.partition(b"\n")[0] or b"{}")
        result = response.get("result") if isinstance(response, dict) else None
        return result if isinstance(result, dict) else {}
    except (OSError, ValueError):
        return {}
    finally:
        sock.close()


def socket_path_for(config: Config, flag: Path | None = None) -> Path:
    """--socket, else JIYI_SOCKET / config, else the home's own socket."""
    return configured_socket(config, flag)


def check_socket_free(path: Path) -> bool:
    """Refuse a path that a live server or another kind of file holds; True when a stale socket is there."""
    prepare_socket_dir(path)
    if is_pipe(path):
        owner = probe(path) if may_be_listening(path) else None
        if owner is not None:
            raise EnvironmentProblem(
                f"pipe {path} is already served by pid {owner.get('pid', '?')} "
                f"for home {owner.get('home', '?')}; stop it or set JIYI_SOCKET"
            )
        return False
    if not (path.exists() or path.is_symlink()):
        return False
    if path.is_symlink() or not stat.S_ISSOCK(path.lstat().st_mode):
        raise UnsafePath(f"{path} exists and is not a socket; remove it or set JIYI_SOCKET")
    owner = probe(path)
    if owner is not None:
        raise EnvironmentProblem(
            f"socket {path} is already served by pid {owner.get('pid', '?')} "
            f"for home {owner.get('home', '?')}; stop it or set JIYI_SOCKET"
        )
    return True

"""A client for agents: standard library only, synchronous, with timeouts and connection reuse.

    from service.client import JiyiClient
    with JiyiClient() as jiyi:
        answer = jiyi.resolve_app("微信", device="phone1")
        if answer["state"] == "resolved": launch(answer["package"])

Which service: each home has its own (docs/protocol.md, Transport). `JiyiClient()` reaches the socket
`JIYI_SOCKET` names, else the one of the home `JIYI_HOME` names, else the default home's;
`JiyiClient(home=...)` names the home, `JiyiClient(path)` the socket.

When the service is down the client degrades instead of raising: `resolve_app`
answers `unknown` with `degraded: true`, writes answer `stored: false`. Pass
`strict=True` to get exceptions instead. This file may be copied into an agent
as it is. On Windows it speaks to the service's named pipe with plain file I/O.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import itertools
import json
import ntpath
import os
import random
import re
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NotRequired, Protocol, TypeAlias, TypedDict, cast

# The protocol major this client speaks, sent as `v` on every request: a service
# of another major refuses the request (`unsupported_version`) instead of misreading it.
PROTOCOL_MAJOR = 1
# A listener whose queue of pending connections is full answers EAGAIN (Linux, for local sockets): the
# service is there, only busy. Such a connect is tried again after a short, growing, jittered pause, for
# at most CONNECT_PATIENCE seconds (and never past the client's timeout). ECONNREFUSED (a socket file
# nobody listens on: a service restarting) gets CONNECT_REFUSED_TRIES quick tries only, so a client of a
# stopped service still degrades at once.
CONNECT_PATIENCE = 2.0
CONNECT_PAUSE = 0.01
CONNECT_MAX_PAUSE = 0.2
CONNECT_REFUSED_TRIES = 3

# What a JSON document holds, as `json.loads` gives it back: a result's shape is its method's (docs/protocol.md).
Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"
JsonObject: TypeAlias = "dict[str, Json]"
Params: TypeAlias = "Mapping[str, object]"  # anything `json.dumps` writes as a JSON object


class ReplyError(TypedDict):
    """Why a request failed: a stable `code`, a `message` for people, and `data` when it helps recover."""

    code: str
    message: str
    data: NotRequired[Json]


class Reply(TypedDict):
    """One response as the service sent it (`request`): `result` (a write's also `changes`), or `error`.

    A service out of reach answers `ok: false` with `degraded: true` and the error code `unavailable`."""

    id: int | str | None
    ok: bool
    result: NotRequired[Json]
    changes: NotRequired[list[str]]
    error: NotRequired[ReplyError]
    degraded: NotRequired[bool]


class Resolution(TypedDict):
    """What `resolve_app` answers: `state` is `resolved`, `ambiguous` or `unknown` (`package` only when resolved).

    A degraded answer (the service out of reach) holds the first five keys, `degraded` and `error`."""

    query: str
    state: str
    package: str | None
    reason: str
    candidates: list[JsonObject]
    normalized: NotRequired[str]
    device: NotRequired[str | None]
    not_installed: NotRequired[list[JsonObject]]
    elapsed_ms: NotRequired[float]
    degraded: NotRequired[bool]
    error: NotRequired[JsonObject]


# -- where the service listens ----------------------------------------------------------
# The same derivation as `service/platform/address.py` (this file imports nothing of Jiyi);
# tests/unit/service/test_platform_address.py keeps the two equal.

SOCKET_PATH_LIMIT = 103  # bytes of a Unix socket's path every system takes (macOS 104, Linux 108, with the NUL)
PIPE_PREFIX = "\\\\.\\pipe\\"  # where Windows keeps named pipes
LEGACY_NAME = "jiyi.sock"  # the one socket every home shared before sockets were per home
PIPE_BUSY = 231  # ERROR_PIPE_BUSY: every instance of the pipe is taken (Windows)


def default_home(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """`JIYI_HOME`, else where Jiyi keeps its memory by default: platformdirs' user data folder for "jiyi"
    (Linux `$XDG_DATA_HOME/jiyi` or `~/.local/share/jiyi`; macOS `~/Library/Application Support/jiyi`;
    Windows `%LOCALAPPDATA%\\jiyi`)."""
    env = os.environ if environ is None else environ
    named = env.get("JIYI_HOME", "").strip()
    if named:
        return Path(os.path.abspath(os.path.expanduser(named)))
    if platform == "win32":
        return Path(env.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local"), "jiyi")
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg.startswith("/"):
        return Path(xdg, "jiyi")
    folder = "~/Library/Application Support" if platform == "darwin" else "~/.local/share"
    return Path(os.path.expanduser(folder), "jiyi")


def default_socket_path(home: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """`JIYI_SOCKET`, else the socket of `home` (by default `JIYI_HOME`'s, else the default home's)."""
    env = os.environ if environ is None else environ
    explicit = env.get("JIYI_SOCKET", "").strip()
    if explicit:
        return socket_address(explicit)
    return home_socket_path(default_home(env) if home is None else home, env)


def home_socket_path(
    home: str | os.PathLike[str], environ: Mapping[str, str] | None = None, platform: str = sys.platform
) -> Path:
    """The socket (Unix) or named pipe (Windows) where the service of `home` listens unless told otherwise:
    `<runtime folder>/<name>-<digest>.sock`, or `\\\\.\\pipe\\jiyi-<user>-<name>-<digest>`, the digest taken
    of the home's real path (docs/protocol.md, Transport)."""
    real = os.path.realpath(os.path.expanduser(os.fspath(home)))
    return socket_for(real, os.environ if environ is None else environ, platform)


def socket_for(real: str, environ: Mapping[str, str], platform: str = sys.platform) -> Path:
    """The socket or pipe of the home whose real path is `real` (`home_socket_path` without looking at the disk)."""
    if platform == "win32":
        real = ntpath.normcase(real)  # Windows paths ignore case
        user = _label(environ.get("USERNAME", "")) or "user"
        name = _label(ntpath.basename(real.rstrip("\\"))) or "home"
        return Path(f"{PIPE_PREFIX}jiyi-{user}-{name}-{_digest(real)}")
    name = _label(os.path.basename(real.rstrip("/"))) or "home"
    digest = _digest(real)
    for folder in runtime_folders(environ):
        room = SOCKET_PATH_LIMIT - len(os.fsencode(str(folder))) - len(f"/-{digest}.sock")
        if room >= 1:
            return folder / f"{name[:room]}-{digest}.sock"
        if room >= -1:
            return folder / f"{digest}.sock"
    raise AssertionError("unreachable: /tmp/jiyi-<uid>/<digest>.sock always fits")  # pragma: no cover


def runtime_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The user's private folders for sockets, in the order they are tried (Unix)."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    mine = f"jiyi-{_uid()}"
    folders = [Path(runtime) / "jiyi"] if runtime else []
    return [*folders, Path(tempfile.gettempdir()) / mine, Path("/tmp") / mine]


def socket_address(text: str, platform: str = sys.platform) -> Path:
    """A socket named by a person (`JIYI_SOCKET`): a path; on Windows a pipe, its prefix added to a bare name."""
    if platform == "win32" and not text.replace("/", "\\").lower().startswith(PIPE_PREFIX):
        return Path(PIPE_PREFIX + text)
    return Path(text).expanduser()


DIGEST_CHARS = 12  # hex digits of the SHA-256 of the home's real path in its socket's name
NAME_CHARS = 24  # characters of the home folder's own name kept in its socket's name


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "", text)[:NAME_CHARS]


def _digest(text: str) -> str:
    return hashlib.sha256(os.fsencode(text)).hexdigest()[:DIGEST_CHARS]


def _uid() -> int:
    if sys.platform == "win32":
        return 0  # no uids; Windows uses pipes, never these folders
    return os.getuid()


def _moved_hint(path: str) -> str:
    """For a client set up with the one socket every home used to share: where the default home's service is
    now (empty for any other path)."""
    if sys.platform == "win32" or Path(path) != runtime_folders()[0] / LEGACY_NAME:
        return ""
    home = default_home()
    return (
        f"; {path} was the socket of every home before each home had its own: the service of {home} now "
        f"listens on {home_socket_path(home)} (leave JIYI_SOCKET unset, or set JIYI_HOME, to follow it)"
    )


# -- the connection ----------------------------------------------------------------------


class Channel(Protocol):
    """What the client needs of a connection: a Unix socket, or a named pipe opened as a file (`PipeChannel`)."""

    def sendall(self, data: bytes, /) -> None: ...
    def recv(self, size: int, /) -> bytes: ...
    def settimeout(self, timeout: float | None, /) -> None: ...
    def setblocking(self, flag: bool, /) -> None: ...
    def shutdown(self, how: int, /) -> None: ...
    def close(self) -> None: ...


class PipeChannel:
    """A Windows named pipe opened as a file (`open(r"\\\\.\\pipe\\NAME", "r+b", buffering=0)`), answering as a
    socket does. Plain file I/O has no timeouts: the client's `timeout` bounds connecting (a busy pipe) but
    not the wait for a reply, and a non-blocking read is refused (`OSError`)."""

    def __init__(self, stream: io.RawIOBase) -> None:
        self._stream = stream

    def sendall(self, data: bytes, /) -> None:
        view = memoryview(data)
        while view:
            written = self._stream.write(view)
            if not written:
                raise BrokenPipeError(errno.EPIPE, "the pipe took nothing")
            view = view[written:]

    def recv(self, size: int, /) -> bytes:
        try:
            return self._stream.read(size) or b""
        except BrokenPipeError:
            return b""  # the server closed its end: end-of-file, as a socket says it

    def settimeout(self, timeout: float | None, /) -> None:
        """Plain file I/O waits as long as it takes: nothing to set."""

    def setblocking(self, flag: bool, /) -> None:
        if not flag:
            raise OSError(errno.EOPNOTSUPP, "a pipe opened as a file reads only blocking")

    def shutdown(self, how: int, /) -> None:
        self._stream.close()  # a pipe has no half-close: the whole connection ends

    def close(self) -> None:
        self._stream.close()


def open_channel(path: str | os.PathLike[str], timeout: float) -> Channel:
    """A connection to whoever listens at `path`: a Unix socket (timeouts on every wait), or on Windows the named
    pipe, opened as a file. Raises `OSError` as connecting does (a busy pipe: `winerror` 231)."""
    if sys.platform == "win32":
        return PipeChannel(cast(io.RawIOBase, open(os.fspath(path), "r+b", buffering=0)))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.fspath(path))
    except BaseException:
        sock.close()
        raise
    return sock


def _busy(exc: OSError) -> bool:
    """A listener whose queue of pending connections is full (Unix: EAGAIN), or a pipe whose instances are all
    taken (Windows): the service is there, only busy."""
    return exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK) or getattr(exc, "winerror", None) == PIPE_BUSY


class ServiceError(Exception):
    """A request that failed (strict mode). `degraded` means the service could not be reached."""

    def __init__(self, code: str, message: str, degraded: bool = False, data: Json = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.degraded, self.data = code, message, degraded, data


class JiyiClient:
    """One connection to the Jiyi service, opened on first use and reused."""

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        timeout: float = 5.0,
        strict: bool = False,
        hello: str | None = None,
        home: str | os.PathLike[str] | None = None,
        hello_params: Callable[[], Params] | None = None,
    ):
        """`socket_path` names the service's socket; without it, `home` names the home whose service to reach
        (else `JIYI_SOCKET`, `JIYI_HOME` or the default home: `default_socket_path`). `hello` names what this
        client is ("agent", "console", "command", "worker") to the service, once per connection
        (`client.hello`, sent with the first request: no extra round trip); `hello_params()`, asked on each
        new connection, gives further params of that hello (the console's side adds its own there)."""
        if socket_path:
            self.socket_path = str(socket_path)
        elif home is not None:
            self.socket_path = str(home_socket_path(home))
        else:
            self.socket_path = str(default_socket_path())
        self.timeout = timeout
        self.strict = strict
        self.hello = hello
        self._hello_params = hello_params
        self._sock: Channel | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        # A request under way is ended from another thread by shutting its connection down, never by closing
        # it: a descriptor closed under a thread that is about to wait on it can be reused by a connection
        # opened meanwhile, and that thread would then wait on someone else's connection.
        self._state = threading.Lock()
        self._in_request: int | None = None  # the thread sending a request and waiting for its answer
        self._cut = False  # closed for good: no request opens a connection again

    def __enter__(self) -> JiyiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (the next request opens a new one). From another thread, a request
        waiting for its answer gives up at once: its connection is shut down, and that request closes it."""
        with self._state:
            sock = self._sock
            if sock is None:
                return
            elsewhere = self._in_request is not None and self._in_request != threading.get_ident()
            if not elsewhere:
                self._sock, self._buffer = None, b""
        with contextlib.suppress(OSError):  # not connected, or the service closed it already
            sock.shutdown(socket.SHUT_RDWR)  # close() alone would not wake a recv() under way
        if not elsewhere:
            sock.close()

    def cut(self) -> None:
        """Close for good, from any thread: a request under way gives up at once, and no later one connects."""
        with self._state:
            self._cut = True
        self.close()

    # -- the wire ----------------------------------------------------------------------

    def request(self, method: str, params: Params | None = None, *, retry_after_send: bool = False) -> Reply:
        """Send one request and return the response object; never raises for I/O.

        A failure to reach the service comes back as
        `{"ok": false, "degraded": true, "error": {"code": "unavailable", ...}}`.
        A request is sent again on a fresh connection only when a reused one
        turned out dead before it was sent (or, for reads, `retry_after_send`).
        """
        request = {"id": next(self._ids), "v": PROTOCOL_MAJOR, "method": method, "params": params or {}}
        line = json.dumps(request, ensure_ascii=False)
        payload = line.encode("utf-8") + b"\n"
        with self._state:
            self._in_request = threading.get_ident()
        try:
            return self._exchange(payload, retry_after_send)
        finally:
            with self._state:
                self._in_request = None
                cut = self._cut
            if cut:
                self.close()  # shut down from another thread meanwhile: closed here, by the thread that used it

    def _exchange(self, payload: bytes, retry_after_send: bool) -> Reply:
        for attempt in (1, 2):
            reused = self._sock is not None
            try:
                sock = self._connect()
            except OSError as exc:
                hint = _moved_hint(self.socket_path) if not _busy(exc) else ""
                return _unavailable(f"cannot reach the Jiyi service at {self.socket_path}: {exc.strerror or exc}{hint}")
            hello = b"" if reused or self.hello is None else self._hello_line()
            try:
                sock.sendall(hello + payload)
            except OSError as exc:
                refused = self._refusal(sock)  # a request it would not take: it said why before closing
                self.close()
                if refused is not None:
                    return refused
                if reused and attempt == 1:
                    continue
                return _unavailable(f"the Jiyi service closed the connection: {exc.strerror or exc}")
            try:
                if hello:
                    self._read_response()  # its answer says nothing we need (an older service: method_not_found)
                return self._read_response()
            except (OSError, ValueError) as exc:
                self.close()
                if reused and attempt == 1 and retry_after_send:
                    continue
                reason = f"none within {self.timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
                # Sent whole: the service may have carried it out (a write sent again is stored once when
                # it carries its id: interaction.remember, task.complete).
                return _unavailable(
                    f"no answer from the Jiyi service ({reason or type(exc).__name__}); the request was sent, "
                    "so it may have been carried out"
                )
        return _unavailable("no answer from the Jiyi service")

    def _refusal(self, sock: Channel) -> Reply | None:
        """After a send failed: the error line the service sent before it closed the connection (a request
        line over its limit), when one is already there; never waits for one."""
        data = self._buffer
        with contextlib.suppress(OSError):
            sock.setblocking(False)
            while b"\n" not in data and len(data) < 65536:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        for line in data.split(b"\n")[:-1]:
            with contextlib.suppress(ValueError):
                reply = json.loads(line.decode("utf-8"))
                if isinstance(reply, dict) and reply.get("ok") is False and reply.get("id") is None:
                    return cast(Reply, reply)
        return None

    def _hello_line(self) -> bytes:
        hello = {"id": f"hello-{next(self._ids)}", "v": PROTOCOL_MAJOR, "method": "client.hello"}
        params = {**(self._hello_params() if self._hello_params is not None else {}), "kind": self.hello}
        return json.dumps({**hello, "params": params}).encode("utf-8") + b"\n"

    def _connect(self) -> Channel:
        if self._sock is not None:
            return self._sock
        if self._cut:
            raise ConnectionRefusedError(f"this client was closed ({self.socket_path})")
        sock = self._connect_patiently()
        with self._state:
            if self._cut:  # cut while connecting: this connection would outlive the cut
                sock.close()
                raise ConnectionRefusedError(f"this client was closed ({self.socket_path})")
            self._sock, self._buffer = sock, b""
        return sock

    def _connect_patiently(self) -> Channel:
        """A connection; a busy listener (EAGAIN, a busy pipe) or a restarting one (ECONNREFUSED) is tried again
        with a short bounded backoff (see `CONNECT_PATIENCE`) before the error is raised."""
        give_up = time.monotonic() + min(CONNECT_PATIENCE, self.timeout)
        pause, refused = CONNECT_PAUSE, 0
        while True:
            try:
                return open_channel(self.socket_path, self.timeout)
            except OSError as exc:
                refused += exc.errno == errno.ECONNREFUSED
                busy = _busy(exc) or (exc.errno == errno.ECONNREFUSED and refused < CONNECT_REFUSED_TRIES)
                wait = pause * (0.5 + random.random())  # clients refused together do not return together
                if not busy or self._cut or time.monotonic() + wait > give_up:
                    raise
            time.sleep(wait)
            pause = min(CONNECT_MAX_PAUSE, pause * 2)

    def _read_response(self) -> Reply:
        sock = self._sock  # `close` from another thread shuts it down meanwhile: recv then answers nothing
        if sock is None:
            raise ConnectionError("the connection was closed")
        while b"\n" not in self._buffer:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the service closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        response = json.loads(line.decode("utf-8"))
        if not isinstance(response, dict) or "ok" not in response:
            raise ValueError("a malformed response")
        return cast(Reply, response)

    def call(self, method: str, params: Params | None = None, *, read: bool = False) -> JsonObject:
        """The result of a method; on failure, strict mode raises `ServiceError`, else
        returns `{"ok": false, "degraded": …, "error": {…}}`."""
        response = self.request(method, params, retry_after_send=read)
        if response.get("ok"):
            result = response.get("result")
            return result if isinstance(result, dict) else {"value": result}
        # the error as the service sent it (a JSON object, whatever else it holds)
        error = cast(JsonObject, response.get("error") or {})
        degraded = bool(response.get("degraded"))
        if self.strict:
            raise ServiceError(
                str(error.get("code", "internal")), str(error.get("message", "")), degraded, error.get("data")
            )
        return {"ok": False, "degraded": degraded, "error": error}

    # -- methods -----------------------------------------------------------------------

    def health(self) -> JsonObject:
        return self.call("health", read=True)

    def resolve_app(self, name: str, device: str | None = None) -> Resolution:
        """Which package `name` means; `unknown` (with `degraded`) whenever there is no good answer."""
        params = {"name": name} if device is None else {"name": name, "device": device}
        result = self.call("app.resolve", params, read=True)
        if result.get("ok") is False:
            error = _object(result["error"])
            return {
                "query": name,
                "state": "unknown",
                "package": None,
                "reason": str(error.get("code", "unavailable")),
                "candidates": [],
                "degraded": bool(result["degraded"]),
                "error": error,
            }
        return cast(Resolution, result)

    def _write(self, method: str, params: Params) -> JsonObject:
        result = self.call(method, params)
        if result.get("ok") is False:
            return {"stored": False, "degraded": result["degraded"], "error": result["error"]}
        return {"stored": True, **result}

    def learn_alias(self, name: str, package: str) -> JsonObject:
        return self._write("app.alias.learn", {"name": name, "package": package})

    def forget_alias(self, name: str) -> JsonObject:
        return self._write("app.alias.forget", {"name": name})

    def list_aliases(self, **filters: object) -> JsonObject:
        result = self.call("app.alias.list", filters, read=True)
        return {"entries": [], **result} if result.get("ok") is False else result

    def sync_inventory(self, device: str, apps: list[dict[str, str]]) -> JsonObject:
        return self._write("app.inventory.sync", {"device": device, "apps": apps})

    def run_start(self, run_id: str, device: str, installed: list[dict[str, str]] | None = None) -> JsonObject:
        params: dict[str, object] = {"run_id": run_id, "device": device}
        if installed is not None:
            params["installed"] = installed
        return self._write("run.start", params)

    def run_event(self, event: Params, **extra: object) -> JsonObject:
        return self._write("run.event", {"event": event, **extra})

    def run_finish(self, run_id: str) -> JsonObject:
        return self._write("run.finish", {"run_id": run_id})

    # -- desktop-assistant memory (docs/protocol.md) -----------------------------------

    def remember_interaction(
        self, interaction_id: str, user_text: str, assistant_text: str, **extra: object
    ) -> JsonObject:
        """Sync one completed turn (idempotent: safe to send again after a reconnect)."""
        params = {"interaction_id": interaction_id, "user_text": user_text, "assistant_text": assistant_text, **extra}
        return self._write("interaction.remember", params)

    def memory_recall(self, query: str, limit: int = 8) -> JsonObject:
        """What memory holds about `query`; empty lists marked `degraded` when the service is away."""
        result = self.call("memory.recall", {"query": query, "limit": limit}, read=True)
        if result.get("ok") is False:
            empty: JsonObject = {key: [] for key in RECALL_LISTS}
            return {**empty, "query": query, "degraded": result["degraded"], "error": result["error"]}
        return result

    def complete_task(self, task_id: str, title: str, status: str, **extra: object) -> JsonObject:
        return self._write("task.complete", {"task_id": task_id, "title": title, "status": status, **extra})

    def put_document(self, bundle_id: str, path: str, content: str, expected_revision: int) -> JsonObject:
        """Write a bundle document; a `conflict` error carries the current revision and content in `error.data`."""
        params = {"bundle_id": bundle_id, "path": path, "content": content, "expected_revision": expected_revision}
        return self._write("bundle.document.put", params)


RECALL_LISTS = (
    "task_cards",
    "interactions",
    "bundles",
    "recent_workdays",
    "related_topics",
    "core_facts",
    "related_facts",
    "relevant_skills",
)


def _object(value: Json) -> JsonObject:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _unavailable(message: str) -> Reply:
    return {"id": None, "ok": False, "degraded": True, "error": {"code": "unavailable", "message": message}}

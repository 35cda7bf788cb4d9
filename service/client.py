"""A client for agents: standard library only, synchronous, with timeouts and connection reuse.

    from service.client import JiyiClient
    with JiyiClient() as jiyi:
        answer = jiyi.resolve_app("微信", device="phone1")
        if answer["state"] == "resolved": launch(answer["package"])

When the service is down the client degrades instead of raising: `resolve_app`
answers `unknown` with `degraded: true`, writes answer `stored: false`. Pass
`strict=True` to get exceptions instead. This file may be copied into an agent
as it is.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import random
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NotRequired, TypeAlias, TypedDict, cast

SOCKET_NAME = "jiyi.sock"
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


def default_socket_path() -> Path:
    """`JIYI_SOCKET`, else `jiyi/jiyi.sock` in the user's runtime directory (or a private temp folder)."""
    explicit = os.environ.get("JIYI_SOCKET", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    base = Path(runtime) / "jiyi" if runtime else Path(tempfile.gettempdir()) / f"jiyi-{os.getuid()}"
    return base / SOCKET_NAME


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
        hello_params: Callable[[], Params] | None = None,
    ):
        """`hello` names what this client is ("agent", "console", "command", "worker") to the service,
        once per connection (`client.hello`, sent with the first request: no extra round trip);
        `hello_params()`, asked on each new connection, gives further params of that hello (the console's
        side adds its own there)."""
        self.socket_path = str(socket_path or default_socket_path())
        self.timeout = timeout
        self.strict = strict
        self.hello = hello
        self._hello_params = hello_params
        self._sock: socket.socket | None = None
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
                return _unavailable(f"cannot reach the Jiyi service at {self.socket_path}: {exc.strerror or exc}")
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

    def _refusal(self, sock: socket.socket) -> Reply | None:
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

    def _connect(self) -> socket.socket:
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

    def _connect_patiently(self) -> socket.socket:
        """A connected socket; a busy listener (EAGAIN) or a restarting one (ECONNREFUSED) is tried again
        with a short bounded backoff (see `CONNECT_PATIENCE`) before the error is raised."""
        give_up = time.monotonic() + min(CONNECT_PATIENCE, self.timeout)
        pause, refused = CONNECT_PAUSE, 0
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.socket_path)
                return sock
            except OSError as exc:
                sock.close()
                refused += exc.errno == errno.ECONNREFUSED
                busy = exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK) or (
                    exc.errno == errno.ECONNREFUSED and refused < CONNECT_REFUSED_TRIES
                )
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

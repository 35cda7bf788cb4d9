"""The console's and the commands' connections to a running service: one per thread, the service's error
codes raised as Jiyi's errors, and the service's jobs followed with progress and cancel."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict, TypeVar, cast

import msgspec

from service.client import JiyiClient, Json, JsonObject, Reply
from service.errors import Cancelled
from service.ops import status, upkeep
from service.ops.declare import Args, Operation
from service.remote import wire
from service.wire.upkeep import JobStatus
from store.core.errors import EnvironmentProblem, JiyiError

A = TypeVar("A", bound=Args)
R = TypeVar("R")
T = TypeVar("T")

TIMEOUT_S = 30.0
FRESH_S = 20.0  # a connection unused this long is opened again (far below the service's idle timeout)
LONG_TIMEOUT_S = 3600.0  # a dream pass of a large archive, an import
POLL_S = 0.2  # how often a job this side follows is asked how far it got
JOBS_SINCE = (1, 2)  # the protocol version that added jobs; an older service runs rebuilds without progress
IMPORT_JOBS_SINCE = (1, 3)  # and the one that runs an import or a dream as a job; before, they had no progress
INTERCHANGE_SINCE = (1, 5)  # the desk export and imports (`service/ops/interchange.py`); before, no such methods
INTERCHANGE_KINDS = ("desk.export", "desk.import", "facts.import")
Progress = Callable[[int, int], None]


class Wire:
    """Calls on the socket, one connection per thread; failures raised as Jiyi's errors."""

    def __init__(
        self, socket_path: Path, hello: str | None = None, person: Callable[[], str | None] | None = None
    ) -> None:
        """`hello`: what this side tells the service it is, on each connection (`client.hello`); `person`: how
        this side finds the person's key to present in that hello (the console and the commands only)."""
        self.socket_path = socket_path
        self.hello = hello
        self._person = person
        self._local = threading.local()
        self._clients: list[JiyiClient] = []
        self._lock = threading.Lock()
        self._closed = False

    def call(
        self, method: str, params: Mapping[str, object] | None = None, *, writes: bool = False, long: bool = False
    ) -> Json:
        """The method's result; raises what a local `Memory` would have raised.

        A read is sent again on a fresh connection when a reused one turns out
        dead after sending; a write never is (it may have been done).
        """
        if self._closed:
            raise EnvironmentProblem(f"the connection to the service on {self.socket_path} was closed")
        params = {k: v for k, v in (params or {}).items() if v is not None}
        if long:
            client = JiyiClient(
                self.socket_path, timeout=LONG_TIMEOUT_S, hello=self.hello, hello_params=self._hello_params
            )
            with self._lock:
                self._clients.append(client)  # `close` cuts it too: a closing console does not wait for it
            try:
                return self._answer(client.request(method, params))
            finally:
                client.close()
                with self._lock:
                    if client in self._clients:
                        self._clients.remove(client)
        client = self._client()
        try:
            return self._answer(client.request(method, params, retry_after_send=not writes))
        finally:
            if self._closed:  # closed while this call ran: its connection, opened again, goes too
                client.close()

    def invoke(self, operation: Operation[A, R], params: A | None = None, *, long: bool = False) -> R:
        """Call a declared operation: its params encoded from their struct, its result decoded into the
        operation's result type (checked: a result of another shape is an error naming the field).
        `long` gives it the long timeout (an export, a dream pass)."""
        return self.invoke_as(operation, params, operation.result, long=long)

    def invoke_as(self, operation: Operation[A, Any], params: A | None, into: type[T], *, long: bool = False) -> T:
        """Call `operation` and decode its result into `into`, a type with the result's field names
        (the facade's own dataclass, where it has them: `Resolution`, `AppKbEntry`)."""
        sent = msgspec.to_builtins(params) if params is not None else None
        result = self.call(operation.name, sent, writes=operation.writes, long=long)
        try:
            return msgspec.convert(result, into)
        except msgspec.ValidationError as exc:
            raise JiyiError(f"the service answered {operation.name} with an unexpected result: {exc}") from exc

    def _hello_params(self) -> dict[str, object]:
        """What this side adds to its hello on a new connection: the person's key, read again each time (the
        service writes a new one each time it starts)."""
        key = self._person() if self._person is not None else None
        return {} if key is None else {"person_key": key}

    def _answer(self, response: Reply) -> Json:
        if response.get("ok"):
            return response.get("result")
        error = cast(JsonObject, response.get("error") or {})  # as the service sent it
        if response.get("degraded"):  # this side's failure to reach it: the service said nothing
            raise wire.Unreachable(str(error.get("message", "")))
        raise wire.error_for(str(error.get("code", "internal")), str(error.get("message", "")), error.get("data"))

    def _client(self) -> JiyiClient:
        client: JiyiClient | None = getattr(self._local, "client", None)
        if client is None:
            client = JiyiClient(self.socket_path, timeout=TIMEOUT_S, hello=self.hello, hello_params=self._hello_params)
            self._local.client = client
            with self._lock:
                if self._closed:
                    raise EnvironmentProblem(f"the connection to the service on {self.socket_path} was closed")
                self._clients.append(client)
        elif time.monotonic() - self._local.used > FRESH_S:
            # The service closes connections idle for its JIYI_IDLE_TIMEOUT; a write sent on one it
            # closed could not be told from a write that failed, so an old connection is not reused.
            client.close()
        self._local.used = time.monotonic()
        return client

    def close(self) -> None:
        with self._lock:
            self._closed = True
            clients, self._clients = self._clients, []
        for client in clients:
            client.cut()  # a call under way on another thread gives up at once and opens no new connection


class JobParams(TypedDict, total=False):
    """What a job of the service is started with, beside its kind (`job.start`, as `JobStartArgs` takes it)."""

    directory: str
    full: bool
    dry_run: bool
    system: str
    file: str
    scope: str
    replaces: str


class JobFollower:
    """Runs long work as a job of the service and follows it to its end, for `progress` and cancel."""

    def __init__(self, wire_: Wire, protocol: tuple[int, int]) -> None:
        self._wire = wire_
        self._protocol = protocol

    def run(
        self,
        kind: str,
        progress: Progress | None,
        params: JobParams | None = None,
        phases: Mapping[str, Progress] | None = None,
    ) -> dict[str, object]:
        """The job's outcome once it is done; its error when it failed; `Cancelled` when it was cancelled.

        `progress(done, total)` is called on every poll once the job knows its total, unless the job is in a
        phase `phases` names: then that phase's callback hears the phase's own count. When one raises
        `Cancelled` (or Ctrl+C interrupts), the job is cancelled and this waits until it stopped. A job
        the service cannot cancel (an import) is left to finish there, and `Cancelled` is raised at once.
        """
        if kind in INTERCHANGE_KINDS and self._protocol < INTERCHANGE_SINCE:
            shown = ".".join(map(str, self._protocol))
            raise EnvironmentProblem(
                f"the running service speaks protocol {shown}, which cannot do {kind}: restart it so that it runs "
                "this version of Jiyi, or stop it and run this command again"
            )
        since = IMPORT_JOBS_SINCE if kind in ("taskwizard.import", "dream") else JOBS_SINCE
        if self._protocol < since:
            method = "dream.run" if kind == "dream" else kind  # the method that does the same work and waits
            waited = self._wire.call(method, params, writes=True, long=True)
            if not isinstance(waited, dict):
                raise JiyiError(f"the service answered {method} with {type(waited).__name__}, not an object")
            answered: dict[str, object] = {**waited}
            return answered
        status = self._wire.invoke(upkeep.JOB_START, upkeep.JobStartArgs(kind=kind, **(params or {})))
        try:
            while status.state == "running":
                _heard(status, progress, phases)
                time.sleep(POLL_S)
                status = self._wire.invoke(upkeep.JOB_STATUS, upkeep.JobArgs(job_id=status.job_id))
        except (Cancelled, KeyboardInterrupt):
            if not status.cancellable:
                raise
            status = self._stop(status.job_id)
            if status.state != "done":
                raise
        if status.state == "done":
            _heard(status, progress, phases)
            return status.outcome or {}
        if status.state == "cancelled":
            raise Cancelled(f"job {status.job_id} ({kind}) was cancelled")
        error = status.error or {}
        raise wire.error_for(error.get("code", "internal"), error.get("message", ""))

    def _stop(self, job_id: str) -> JobStatus:
        """Cancel the job and wait until it stopped (it stops at its next step)."""
        status = self._wire.invoke(upkeep.JOB_CANCEL, upkeep.JobArgs(job_id=job_id))
        while status.state == "running":
            time.sleep(POLL_S)
            status = self._wire.invoke(upkeep.JOB_STATUS, upkeep.JobArgs(job_id=job_id))
        return status


def _heard(status: JobStatus, progress: Progress | None, phases: Mapping[str, Progress] | None) -> None:
    """Tell the callback of the job's phase its count (or `progress` the job's one count)."""
    heard = (phases or {}).get(status.phase or "")
    if heard is not None:
        if status.phase_total:
            heard(status.phase_done, status.phase_total)
    elif progress is not None and status.total:
        progress(status.done, status.total)


class RemoteJobs:
    """The service's jobs: the one running (if any), one by id, cancel one."""

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def running(self) -> JobStatus | None:
        return self._wire.invoke(status.SERVICE_STATUS)["job"]

    def status(self, job_id: str) -> JobStatus:
        return self._wire.invoke(upkeep.JOB_STATUS, upkeep.JobArgs(job_id=job_id))

    def cancel(self, job_id: str) -> JobStatus:
        return self._wire.invoke(upkeep.JOB_CANCEL, upkeep.JobArgs(job_id=job_id))


def protocol_version(text: object) -> tuple[int, int]:
    """ "1.2" as (1, 2); (1, 0) for a service too old to say."""
    try:
        major, minor = str(text).split(".")
        return int(major), int(minor)
    except ValueError:
        return (1, 0)

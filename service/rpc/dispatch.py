"""Parse, validate, dispatch, answer: one request line in, one response line out.

Expected failures map to stable codes with a human message. Anything else is
logged with its traceback and answered `internal` without internals. Nothing
here raises.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, cast

from service.memory.memory import Memory
from service.rpc.context import CallContext
from service.rpc.methods import REGISTRY
from service.rpc.presence import Presence
from service.rpc.protocol import (
    INTERNAL_MESSAGE,
    ProtocolError,
    Request,
    RequestId,
    Response,
    encode,
    failure,
    parse_request,
    success,
)
from service.rpc.registry import Method
from store.core.errors import Forbidden, JiyiError

log = logging.getLogger("jiyi.service.rpc")


class PreparedWrite:
    """A grouped write ready to run, which records the domains it changes (`changes`) each time it runs:
    a group that rolled back runs it again, and only the last run counts."""

    def __init__(self, memory: Memory, write: Callable[[], Any]) -> None:
        self._memory = memory
        self._write = write
        self.changes: frozenset[str] = frozenset()

    def __call__(self) -> Any:
        with self._memory.parts.recording() as changed:
            try:
                return self._write()
            finally:
                self.changes = frozenset(changed)


class Dispatcher:
    """Serves requests against one `Memory`, with the methods of `methods` (every socket method by default).

    A call runs in a context (`CallContext`): a connection's, which acts as the person only when its hello
    presented the person's key, or a detached one: `detached` is an agent's, `person` the person's
    (`dispatcher.run(request, dispatcher.person)` runs a call as the console would)."""

    def __init__(self, memory: Memory, methods: Mapping[str, Method] | None = None) -> None:
        self.memory = memory
        self.methods = REGISTRY if methods is None else methods
        self.started = time.monotonic()
        self.presence = Presence()  # who the socket serves (`service.status`); the host fills it
        self.detached = self.context(None)
        self.person = CallContext(None, self.presence, self.started, as_person=True)

    def context(self, connection: int | None, subscribe: Callable[[], None] | None = None) -> CallContext:
        """The context of the calls on `connection` (None: calls on no connection, as an agent)."""
        if subscribe is None:
            return CallContext(connection, self.presence, self.started)
        return CallContext(connection, self.presence, self.started, subscribe)

    def handle_line(self, line: bytes, context: CallContext | None = None) -> bytes:
        """Answer one request line (without its newline) with one response line (`context`: as whom; an agent's
        detached one by default, `self.person` for the person's)."""
        return encode(self.handle(line, context))

    def handle(self, line: bytes, context: CallContext | None = None) -> Response:
        prepared = self.prepare(line)
        return self.run(prepared, context) if isinstance(prepared, Request) else prepared

    def prepare(self, line: bytes) -> Request | Response:
        """Parse and look up: the request to run, or already the (error) response."""
        try:
            request = parse_request(line)
            if request.method not in self.methods:
                raise ProtocolError("method_not_found", f"no method {request.method[:80]!r}", request.id)
            return request
        except ProtocolError as exc:
            return failure(exc.request_id, exc.code, exc.message)
        except Exception:
            # A bug in reading the line must still answer it: the host sends exactly one reply per request.
            log.exception("a request line could not be read")
            return failure(None, "internal", INTERNAL_MESSAGE)

    def is_instant(self, request: Request) -> bool:
        """Whether the request can be answered at once without touching a file."""
        method = self.methods[request.method]
        return method.instant is not None and method.instant(self.memory)

    def is_grouped(self, request: Request) -> bool:
        """Whether the request is a write that may share a transaction with others (`Method.grouped`)."""
        return self.methods[request.method].grouped

    def is_long(self, request: Request) -> bool:
        """Whether the request is maintenance that may run for minutes (an import, a rebuild)."""
        return self.methods[request.method].long

    def run(self, request: Request, context: CallContext | None = None) -> Response:
        """Run a prepared request; expected errors become codes, anything else `internal`.

        A write's reply carries the domains it changed (`changes`, recorded on this thread while it ran)."""
        try:
            call = self.call_of(request, context)
            if not self.methods[request.method].writes:
                return self.succeeded(request, call())
            with self.memory.parts.recording() as changed:
                result = call()
            return self.succeeded(request, result, changed)
        except Exception as exc:
            return self.failed(request, exc)

    def call_of(self, request: Request, context: CallContext | None = None) -> Callable[[], Any]:
        """The request's handler bound to its params, to be called (and to raise) where the caller chooses.

        A declared method's params are checked here (raising `InvalidInput` naming the field)."""
        method = self.methods[request.method]
        if method.grouped:
            return lambda: self.prepare_write(request, context)()
        return self._bind(method, request, context or self.detached)

    def prepare_write(self, request: Request, context: CallContext | None = None) -> PreparedWrite:
        """A grouped write checked and prepared (raising when it is refused); the call returned does it."""
        method = self.methods[request.method]
        assert method.grouped, f"{request.method} is not a grouped write"
        write = self._bind(method, request, context or self.detached)()
        if not callable(write):
            raise TypeError(f"the grouped method {request.method} did not return its write")
        return PreparedWrite(self.memory, cast(Callable[[], Any], write))

    def _bind(self, method: Method, request: Request, context: CallContext) -> Callable[[], Any]:
        """The handler bound to its checked params, once the call may be made in `context`: every call
        passes here, so this is the one place where the person's operations are kept from agents."""
        args = method.decode(request.params)
        person = method.operation.person
        if person is not None and not context.is_person and person.needed_for(args):
            if method.writes:
                # A home that takes no write (read-only, damaged) says so first, to everyone alike: no key was
                # written in a read-only home, and the person's write would be refused all the same.
                self.memory.store.check_writable()
            raise Forbidden(_refusal(method.name, person.decides, person.describe(), person.instead, context))
        return method.bind_args(self.memory, args, context)

    def succeeded(self, request: Request, result: Any, changes: Collection[str] | None = None) -> Response:
        """The response carrying the result of `request` (and, for a write, the domains it changed)."""
        return success(request.id, result, changes)

    def failed(self, request: Request, exc: BaseException) -> Response:
        """The response to `request` failing with `exc`: its stable code, or `internal` (logged with its traceback)."""
        request_id: RequestId = request.id
        if isinstance(exc, ProtocolError):
            return failure(exc.request_id if exc.request_id is not None else request_id, exc.code, exc.message)
        if isinstance(exc, JiyiError):
            return failure(request_id, exc.code, str(exc), getattr(exc, "details", None))
        if isinstance(exc, RecursionError):
            return failure(request_id, "invalid_params", "the params are nested too deeply")
        log.error("request %r failed", request_id, exc_info=exc)
        return failure(request_id, "internal", INTERNAL_MESSAGE)


def _refusal(name: str, decides: str, when: str, instead: str, context: CallContext) -> str:
    """Why an agent may not make this call, and what it may do instead (the key is never named, only its fate)."""
    who = name if when == "always" else f"{name} {when}"
    message = f"{who}: {decides} is the person's decision, made in the console or with the jiyi command"
    if context.key_refused:
        message += (
            "; this connection presented a person's key that is not this service's (the key is written anew "
            "each time the service starts: read it again)"
        )
    return f"{message}; {instead}" if instead else message

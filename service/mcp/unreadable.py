"""A line on stdin the SDK could not read as a JSON-RPC message gets a JSON-RPC error, and a log line.

The SDK's stdio transport hands such a line to the server as an exception,
which its dispatcher drops at debug level: the client waits forever for the
answer to a request nested too deeply or holding a lone surrogate. Here each
one is answered: a parse error for what is not JSON, an invalid request for
JSON that is not a message Jiyi reads (with the request's id when the line
gives one, else null).
"""

from __future__ import annotations

import json
import logging
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger("jiyi.service.mcp")

MAX_DEPTH = 200
"""Arrays and objects within each other that a message may hold (the SDK's JSON reader stops at about 200)."""


class AnsweringReader:
    """The transport's read stream, with every unreadable line answered on `replies` instead of passed on."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], replies: WriteStream[SessionMessage]) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK's context streams carry it; consumers read it)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._replies.send(SessionMessage(refusal(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


def refusal(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering the line the SDK failed to read with `exc`, logged as a warning (its id
    and reason, not its words: a turn's text stays out of the client's log file)."""
    given = _given(exc)
    request_id, code, message = judge(given) if isinstance(given, str) else judge_document(given)
    log.warning("refused a request on stdin (id %s): %s", json.dumps(request_id), message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def judge(line: str) -> tuple[int | str | None, int, str]:
    """(the request's id when the line gives a usable one, the JSON-RPC error code, why) for a refused line."""
    try:
        document = json.loads(line)
    except RecursionError:
        return None, types.INVALID_REQUEST, _too_deep()
    except ValueError as exc:
        return None, types.PARSE_ERROR, f"the line is not JSON ({exc})"
    return judge_document(document)


def judge_document(document: object) -> tuple[int | str | None, int, str]:
    """`judge` for a line that is JSON, decoded."""
    request_id = _id_of(document)
    if depth(document) > MAX_DEPTH:
        return request_id, types.INVALID_REQUEST, _too_deep()
    if _lone_surrogate(document):
        return (
            request_id,
            types.INVALID_REQUEST,
            (
                "the request holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is not a "
                "character: send the text as UTF-8 or as a valid surrogate pair"
            ),
        )
    return (
        request_id,
        types.INVALID_REQUEST,
        (
            'the line is not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method", or a response '
            'with an "id")'
        ),
    )


def depth(document: object) -> int:
    """How many arrays and objects lie within each other in `document` (iteratively: no recursion limit)."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, level = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _too_deep() -> str:
    return f"the request is nested more than {MAX_DEPTH} levels deep (arrays and objects within each other)"


def _lone_surrogate(document: object) -> bool:
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _id_of(document: object) -> int | str | None:
    """The request's id, when it is one an answer can carry (a whole number, or text that is valid UTF-8)."""
    value = document.get("id") if isinstance(document, dict) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and not _lone_surrogate(value):
        return value
    return None


def _given(exc: Exception) -> object:
    """What the SDK failed to read: the line itself (pydantic's error carries it as the input of a JSON
    error), or for JSON of the wrong shape the decoded document (the input of an error about the message
    as a whole, or of a field missing from it); None when the error does not say."""
    if not isinstance(exc, ValidationError):
        return None
    errors = exc.errors(include_url=False)
    if errors and errors[0]["type"] == "json_invalid" and isinstance(errors[0].get("input"), str):
        return errors[0]["input"]
    for error in errors:
        whole = len(error["loc"]) <= 1 or (error["type"] == "missing" and len(error["loc"]) == 2)
        if whole:
            return error.get("input")
    return None

"""The wire protocol: UTF-8 JSON Lines, versioned "MAJOR.MINOR" (`docs/protocol.md`).

Request  `{"id": …, "method": "…", "params": {…}, "v": …}` (params and v optional).
Response `{"id": …, "ok": true, "result": …}` or
         `{"id": …, "ok": false, "error": {"code": "…", "message": "…", "data"?: …}}`.

A minor version adds methods, parameters or result fields and changes none;
a major version may change anything, so a request that names another major
is refused (`unsupported_version`) rather than misread.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NoReturn, NotRequired, TypedDict

import msgspec

from service.json_types import JsonObject
from store.core.errors import ERROR_CODES as FAILURE_CODES

log = logging.getLogger("jiyi.service.rpc")

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 9
PROTOCOL_VERSION = f"{PROTOCOL_MAJOR}.{PROTOCOL_MINOR}"

# Codes of a request refused before any method ran; the codes of failures
# inside a method are the error classes' own (`store.core.errors.ErrorCode`).
REQUEST_CODES = ("parse_error", "invalid_request", "unsupported_version", "method_not_found")
ERROR_CODES: tuple[str, ...] = (*REQUEST_CODES, *FAILURE_CODES)
DEFAULT_MAX_LINE = 1 << 20
MAX_ID_CHARS = 200
INTERNAL_MESSAGE = "the request failed inside Jiyi; the log has the details"
FIELDS = {"id", "method", "params", "v", "jsonrpc"}
_VERSION = re.compile(r"(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})", re.ASCII)
# UTF-8 cannot carry a surrogate, so a lone one can only arrive as a \uD800-\uDFFF escape.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

RequestId = str | int | None


class ProtocolError(Exception):
    """A request that cannot be served, with its stable code."""

    def __init__(self, code: str, message: str, request_id: RequestId = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: JsonObject


class ErrorBody(TypedDict):
    """A failed request's `error`: its stable code, a message for people, and what helps recover (`data`)."""

    code: str
    message: str
    data: NotRequired[object]


class Response(TypedDict):
    """One reply before it is encoded: `result` (and a write's `changes`) or `error`.

    `result` is the method's own answer as its handler returned it (a declared row, a record,
    plain JSON): `encode` turns it into JSON."""

    id: RequestId
    ok: bool
    result: NotRequired[Any]
    changes: NotRequired[list[str]]
    error: NotRequired[ErrorBody]


class Notice(TypedDict):
    """A line sent unasked to a subscribed connection: the domains changed since the last one."""

    notice: str
    domains: list[str]
    generation: int


def _no_constant(name: str) -> NoReturn:
    # json.loads accepts NaN and Infinity, which are not JSON; echoed back they would make a reply no parser reads.
    raise ProtocolError("parse_error", f"the line is not JSON: {name} is not a JSON number")


def _decode(line: bytes) -> Any:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError("parse_error", f"the line is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ProtocolError("parse_error", f"the line is not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise ProtocolError("parse_error", "the JSON is nested too deeply") from None
    except ValueError:
        # Python refuses to convert an integer of more than 4300 digits (sys.int_info.str_digits_check_threshold).
        raise ProtocolError("parse_error", "the line holds a number with too many digits") from None


def _lone_surrogate(value: Any) -> bool:
    """Whether any string in `value` (keys too) holds a surrogate that is not half of a pair."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _check_text(data: JsonObject, line: bytes, request_id: RequestId) -> None:
    """Refuse text that is not Unicode: a lone surrogate could be neither stored nor answered in UTF-8."""
    if not _SURROGATE_ESCAPE.search(line):
        return
    message = "a lone surrogate escape (\\ud800-\\udfff without its pair) in {}: text must be Unicode"
    if _lone_surrogate(data.get("id")):
        raise ProtocolError("invalid_request", message.format("id"))
    if _lone_surrogate({k: v for k, v in data.items() if k not in ("id", "params")}):
        raise ProtocolError("invalid_request", message.format("the request"), request_id)
    if _lone_surrogate(data.get("params")):
        raise ProtocolError("invalid_params", message.format("params"), request_id)


def check_version(value: object, request_id: RequestId = None) -> None:
    """Accept a request's `v`: left out or null, an integer major, or "MAJOR.MINOR" text.

    Any minor of the supported major is accepted (minors only add); another
    major is `unsupported_version`, a malformed `v` is `invalid_request`.
    """
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        major = value
    elif isinstance(value, str) and (match := _VERSION.fullmatch(value)):
        major = int(match[1])
    else:
        raise ProtocolError(
            "invalid_request",
            'v must be the protocol version as "MAJOR.MINOR" text or a MAJOR integer '
            f'(this service speaks "{PROTOCOL_VERSION}")',
            request_id,
        )
    if major != PROTOCOL_MAJOR:
        shown = json.dumps(value)[:24]
        raise ProtocolError(
            "unsupported_version",
            f"protocol version {shown} is not supported; this service speaks {PROTOCOL_VERSION} "
            f'(send "v": {PROTOCOL_MAJOR}, or leave v out)',
            request_id,
        )


def parse_request(line: bytes) -> Request:
    """Decode and check one request line; raise `ProtocolError` naming what is wrong."""
    data = _decode(line)
    if not isinstance(data, dict):
        raise ProtocolError("invalid_request", "a request must be a JSON object")
    request_id = data.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | type(None)):
        raise ProtocolError("invalid_request", "id must be a string, an integer or null")
    if isinstance(request_id, str) and len(request_id) > MAX_ID_CHARS:
        raise ProtocolError("invalid_request", f"id is longer than {MAX_ID_CHARS} characters")
    _check_text(data, line, request_id)
    check_version(data.get("v"), request_id)
    method = data.get("method")
    if not isinstance(method, str) or not method:
        raise ProtocolError("invalid_request", "method must be a non-empty string", request_id)
    params = data.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError("invalid_request", "params must be an object", request_id)
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise ProtocolError("invalid_request", f"unknown request field {unknown[0][:80]!r}", request_id)
    return Request(request_id, method, params)


def encode(response: Response | Notice) -> bytes:
    """One response as a UTF-8 JSON line; always valid JSON.

    A result that JSON or UTF-8 cannot carry (NaN, infinity, a lone surrogate)
    is a bug inside Jiyi: it is logged and the caller gets `internal` for its
    request instead.
    """
    try:
        text = json.dumps(response, ensure_ascii=False, separators=(",", ":"), default=_plain, allow_nan=False)
        return (text + "\n").encode("utf-8")
    except Exception:
        request_id = response.get("id")
        log.exception("the answer to request %r is not valid JSON", request_id)
        if _lone_surrogate(request_id) or not isinstance(request_id, str | int):
            request_id = None
        fallback = failure(request_id, "internal", INTERNAL_MESSAGE)
        return (json.dumps(fallback, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _plain(value: object) -> object:
    """A declared result (a msgspec struct, a dataclass) as JSON's own types; anything else as its text."""
    if isinstance(value, msgspec.Struct) or dataclasses.is_dataclass(value):
        return msgspec.to_builtins(value)
    return str(value)


def success(request_id: RequestId, result: Any, changes: Collection[str] | None = None) -> Response:
    """A result response; a write's carries `changes`, the domains it changed (sorted; empty: none)."""
    if changes is None:
        return {"id": request_id, "ok": True, "result": result}
    return {"id": request_id, "ok": True, "result": result, "changes": sorted(changes)}


def failure(request_id: RequestId, code: str, message: str, data: object = None) -> Response:
    """An error response; `data` (when given) is what the caller needs to recover, e.g. a conflict's current state."""
    error: ErrorBody = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"id": request_id, "ok": False, "error": error}

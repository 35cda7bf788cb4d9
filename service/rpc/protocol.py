"""The wire protocol: UTF-8 JSON Lines.

Request  `{"id": …, "method": "…", "params": {…}}` (params optional).
Response `{"id": …, "ok": true, "result": …}` or
         `{"id": …, "ok": false, "error": {"code": "…", "message": "…", "data"?: …}}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from store.core.errors import (
    Conflict,
    EnvironmentProblem,
    Forbidden,
    InvalidInput,
    JiyiError,
    NotFound,
    SensitiveContent,
)

ERROR_CODES = (
    "parse_error",
    "invalid_request",
    "method_not_found",
    "invalid_params",
    "not_found",
    "conflict",
    "forbidden",
    "unavailable",
    "internal",
)
DEFAULT_MAX_LINE = 1 << 20
MAX_ID_CHARS = 200

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
    params: dict[str, Any]


def parse_request(line: bytes) -> Request:
    """Decode and check one request line; raise `ProtocolError` naming what is wrong."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError("parse_error", f"the line is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError("parse_error", f"the line is not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise ProtocolError("parse_error", "the JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("invalid_request", "a request must be a JSON object")
    request_id = data.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | type(None)):
        raise ProtocolError("invalid_request", "id must be a string, an integer or null")
    if isinstance(request_id, str) and len(request_id) > MAX_ID_CHARS:
        raise ProtocolError("invalid_request", f"id is longer than {MAX_ID_CHARS} characters")
    method = data.get("method")
    if not isinstance(method, str) or not method:
        raise ProtocolError("invalid_request", "method must be a non-empty string", request_id)
    params = data.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError("invalid_request", "params must be an object", request_id)
    unknown = sorted(set(data) - {"id", "method", "params", "jsonrpc"})
    if unknown:
        raise ProtocolError("invalid_request", f"unknown request field {unknown[0]!r}", request_id)
    return Request(request_id, method, params)


def code_for(error: JiyiError) -> str:
    """The wire code of an expected error."""
    if isinstance(error, SensitiveContent | Forbidden):
        return "forbidden"
    if isinstance(error, InvalidInput):
        return "invalid_params"
    if isinstance(error, NotFound):
        return "not_found"
    if isinstance(error, Conflict):
        return "conflict"
    if isinstance(error, EnvironmentProblem):
        return error.code if error.code in ERROR_CODES else "unavailable"
    return error.code if error.code in ERROR_CODES else "internal"


def encode(response: dict[str, Any]) -> bytes:
    """One response as a UTF-8 JSON line."""
    return (json.dumps(response, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode("utf-8")


def success(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"id": request_id, "ok": True, "result": result}


def failure(request_id: RequestId, code: str, message: str, data: Any = None) -> dict[str, Any]:
    """An error response; `data` (when given) is what the caller needs to recover, e.g. a conflict's current state."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"id": request_id, "ok": False, "error": error}

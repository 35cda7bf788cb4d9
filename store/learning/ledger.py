"""The request ledger: every learning request is idempotent by its `request_id`.

The reply is recorded in the same transaction as the request's effect, so a
client whose reply was lost sends the same request again and gets the same
reply; the same id with other parameters is a conflict, never a second effect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, SensitiveContent
from store.core.redaction.redactor import Redactor
from store.learning.grant import fingerprint
from store.learning.models import LearningRequest
from store.learning.projection import DOMAIN

MAX_REQUEST_ID = 128


def check_request_id(value: object, redactor: Redactor | None = None) -> str:
    """A request id (stored as it is, in the ledger and the events): never sensitive text (with a `redactor`)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REQUEST_ID:
        raise InvalidInput(f"request_id must be 1–{MAX_REQUEST_ID} characters, unique per request")
    if any(ord(c) < 32 for c in value):
        raise InvalidInput("request_id holds control characters")
    if redactor is not None and redactor.is_sensitive(value):
        raise SensitiveContent("request_id looks sensitive (a number, token or listed word); ids are stored as is")
    return value


def recorded(request_id: str, method: str, params: Mapping[str, object]) -> dict[str, object] | None:
    """The reply already given to this request, None when it is new; `Conflict` when the id was used otherwise."""
    row = LearningRequest.get_or_none(LearningRequest.request_id == request_id)
    if row is None:
        return None
    if row.method != method or row.fingerprint != fingerprint(params):
        raise Conflict(
            f"request_id {request_id!r} was already used for another request ({row.method}); use a new id",
            {"request_id": request_id, "method": row.method},
        )
    reply: dict[str, object] = json.loads(row.reply)
    assert isinstance(reply, dict)
    return reply


def record(
    store: Store, request_id: str, method: str, params: Mapping[str, object], reply: Mapping[str, object]
) -> None:
    """Inside the request's transaction: remember its reply."""
    store.append(
        DOMAIN,
        "request_answered",
        {"request_id": request_id, "method": method, "fingerprint": fingerprint(params), "reply": reply},
        actor="system",
    )

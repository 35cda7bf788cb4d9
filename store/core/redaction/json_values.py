"""Redaction inside JSON: the sensitive parts of its strings go, and the document stays valid JSON.

A document is read as its text reads, so `"password": "hunter2"` is seen as
an assignment and both strings go; but only the insides of string tokens are
ever rewritten, never the punctuation between them. Strings are read decoded
(an escape such as `\\u0031` hides no digit). A string that changes is written
back with JSON escaping; every other byte of the document stays as it was.

Numbers are values, not text: they are left as they are (a 16-digit id in a
bundle's `state.json` that happens to pass the Luhn check is still an id),
unless `numbers=True` asks for a number that looks sensitive on its own to be
replaced by a marker string (free-form details, where a number is whatever an
agent chose to write, such as a phone number).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from store.core.errors import InvalidInput
from store.core.redaction.redactor import Redactor

# In valid JSON, outside strings, digits occur only in numbers: scanning left to right finds exactly the tokens.
_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?')
MAX_DEPTH = 20


@dataclass(frozen=True)
class _Token:
    start: int  # in the document
    end: int
    shown: int  # where its text starts in the reading (the document with strings decoded)
    value: str | None  # the decoded string; None for a number

    @property
    def content(self) -> tuple[int, int]:
        """The span of the reading that holds its value (inside the quotes for a string)."""
        if self.value is None:
            return self.shown, self.shown + self.end - self.start
        return self.shown + 1, self.shown + 1 + len(self.value)


def redact_json_text(redactor: Redactor, document: str, *, numbers: bool = False) -> str:
    """`document` (valid JSON) with the sensitive parts of its strings redacted, and with `numbers` its
    sensitive-looking numbers turned into marker strings; byte for byte the same when nothing is sensitive."""
    tokens, reading = _read(document, numbers)
    spans = _disjoint(redactor, reading)
    if not spans:
        return document
    out: list[str] = []
    cursor = 0
    next_span = 0
    for token in tokens:
        start, end = token.content
        while next_span < len(spans) and spans[next_span][1] <= start:
            next_span += 1
        covering = []
        index = next_span
        while index < len(spans) and spans[index][0] < end:
            covering.append(spans[index])
            index += 1
        if not covering:
            continue
        out.append(document[cursor : token.start])
        out.append(_rewritten(token, covering))
        cursor = token.end
    out.append(document[cursor:])
    return "".join(out)


def redact_json(redactor: Redactor, value: Any) -> Any:
    """`value` (parsed JSON, an agent's free-form detail) with its strings redacted and sensitive-looking
    numbers replaced by marker strings."""
    _check_depth(value, 0)
    text = json.dumps(value, ensure_ascii=False)
    return json.loads(redact_json_text(redactor, text, numbers=True))


def _read(document: str, numbers: bool) -> tuple[list[_Token], str]:
    """The string and number tokens, and the document as the redactor reads it: strings decoded,
    numbers as they are with `numbers`, else as zeros (which no rule matches)."""
    tokens: list[_Token] = []
    pieces: list[str] = []
    cursor = shown = 0
    for match in _TOKEN.finditer(document):
        gap = document[cursor : match.start()]
        pieces.append(gap)
        shown += len(gap)
        text = match.group()
        value = json.loads(text) if text[0] == '"' else None
        seen = f'"{value}"' if value is not None else text if numbers else "0" * len(text)
        tokens.append(_Token(match.start(), match.end(), shown, value))
        pieces.append(seen)
        shown += len(seen)
        cursor = match.end()
    pieces.append(document[cursor:])
    return tokens, "".join(pieces)


def _disjoint(redactor: Redactor, reading: str) -> list[tuple[int, int, str]]:
    """The sensitive spans of `reading`, overlapping ones joined (the first names the kind)."""
    spans: list[tuple[int, int, str]] = []
    for finding in redactor.find(reading):
        if spans and finding.start < spans[-1][1]:
            last = spans[-1]
            spans[-1] = (last[0], max(last[1], finding.end), last[2])
        else:
            spans.append((finding.start, finding.end, finding.kind))
    return spans


def _rewritten(token: _Token, covering: list[tuple[int, int, str]]) -> str:
    """The token with the parts `covering` reaches redacted, as JSON text."""
    start, end = token.content
    if token.value is None:
        return json.dumps(f"[redacted:{covering[0][2]}]")
    pieces: list[str] = []
    cursor = 0
    for span_start, span_end, kind in covering:
        left, right = max(span_start, start) - start, min(span_end, end) - start
        pieces.append(token.value[cursor:left])
        pieces.append(f"[redacted:{kind}]")
        cursor = right
    pieces.append(token.value[cursor:])
    return json.dumps("".join(pieces), ensure_ascii=False)


def _check_depth(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise InvalidInput("the object is nested too deeply")
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)

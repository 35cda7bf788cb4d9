"""A text as the redaction rules read it, and the encoded runs inside it.

`Reading` prepares a text in one pass each: invisible characters (zero-width
spaces and joiners, bidi controls, variation selectors, soft hyphens, Hangul
fillers: `store.core.names.IGNORABLE`) are skipped, so `sk-\\u200b…` is read
as `sk-…`; then, one character for one, full-width ASCII is narrowed, U+3000
and no-break spaces read as spaces, and Cyrillic and Greek letters drawn like
Latin ones read as those (`Веarer` is `Bearer`). A span found in the reading is
mapped back to the text it came from (`origin`), invisible characters inside
it included.

`encoded_runs` finds the runs of %XX-escapes and of base64 whose decoding is
text; the redactor reads each decoded run once more. Every run is found by one
possessive pattern that starts only where a run starts, so the whole scan is
linear, and runs of one kind never overlap.
"""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from collections.abc import Iterator
from urllib.parse import unquote_plus

from store.core.names import IGNORABLE, LOOKALIKES
from store.core.redaction.rules import Rule

_INVISIBLE = re.compile(f"[{IGNORABLE}]+")
_FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}  # full-width ASCII
_FOLD.update({0x3000: 0x20, 0x00A0: 0x20, 0x2007: 0x20, 0x202F: 0x20})
for _shape, _latin in LOOKALIKES.items():
    if _latin.isascii():
        _FOLD[ord(_shape)] = ord(_latin)
        upper = _shape.upper()
        if len(upper) == 1 and upper != _shape:
            _FOLD.setdefault(ord(upper), ord(_latin.upper()))
_FOLDABLE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(_FOLD)) + "]")

# Below this length every rule simply runs: looking for the words it needs would cost more than the match.
_SHORT = 2048

_URL_CHARS = r"A-Za-z0-9._~+%=&:/-"
_URL_RUN = re.compile(f"[{_URL_CHARS}](?<![{_URL_CHARS}][{_URL_CHARS}])[{_URL_CHARS}]*+")
_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")
_B64_CHARS = "A-Za-z0-9+/_-"
_B64_RUN = re.compile(f"[{_B64_CHARS}](?<![{_B64_CHARS}][{_B64_CHARS}])[{_B64_CHARS}]{{11,}}+={{0,2}}")
_MIN_DECODED = 6


class Reading:
    """A text as the rules read it (see the module docstring), its lower-case twin (same offsets), and which
    of the words rules need are present (each is looked for once)."""

    def __init__(self, text: str) -> None:
        self._original: str | None = None  # the text, when invisible characters were skipped
        self._cuts: list[int] = []  # reading offsets where they were skipped (computed when a span needs them) ...
        self._skipped: list[int] = []  # ... and how many had been skipped up to and including each
        if not text.isascii():
            visible = _INVISIBLE.sub("", text)
            if len(visible) != len(text):
                self._original, text = text, visible
            if _FOLDABLE.search(text):
                text = text.translate(_FOLD)
        self.text = text
        # U+0130 (İ) is the one character whose lower case is two characters long.
        self.low = (text.replace("\u0130", "i") if "\u0130" in text else text).lower()
        self._short = len(text) < _SHORT
        self._present: dict[str, bool] = {}

    def _find_cuts(self, text: str) -> None:
        skipped = 0
        for match in _INVISIBLE.finditer(text):
            self._cuts.append(match.start() - skipped)
            skipped += match.end() - match.start()
            self._skipped.append(skipped)

    def subject(self, rule: Rule) -> str | None:
        """What `rule` reads, or None when none of the words it needs is present."""
        if rule.needs and not self._short and not any(self._has(need) for need in rule.needs):
            return None
        return self.low if rule.lowered else self.text

    def _has(self, need: str) -> bool:
        if need not in self._present:
            self._present[need] = need in self.low
        return self._present[need]

    def origin(self, start: int, neg_end: int, kind: str) -> tuple[int, int, str]:
        """A span of the reading, (start, -end, kind), as the span of the text it was read from."""
        if self._original is None:
            return start, neg_end, kind
        if not self._cuts:
            self._find_cuts(self._original)
        end = -neg_end
        return self._at(start), -(self._at(end - 1) + 1) if end > start else -self._at(start), kind

    def _at(self, offset: int) -> int:
        # Characters skipped at or before `offset` in the reading push it right in the text.
        index = bisect_right(self._cuts, offset)
        return offset + (self._skipped[index - 1] if index else 0)


def encoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of every run of %XX-escapes and of base64 in `text` that decodes to text."""
    if "%" in text:
        for match in _URL_RUN.finditer(text):
            run = match.group()
            if "%" in run and _ESCAPE.search(run):
                decoded = unquote_plus(run, errors="replace")
                if decoded != run and "\ufffd" not in decoded:
                    yield match.start(), match.end(), decoded
    for match in _B64_RUN.finditer(text):
        decoded_text = _base64_text(match.group())
        if decoded_text is not None:
            yield match.start(), match.end(), decoded_text


def _base64_text(run: str) -> str | None:
    """`run` decoded as base64 (standard or URL-safe), when that is printable text of a few characters."""
    body = run.rstrip("=")
    if len(body) % 4 == 1 or (body.isalpha() and (body.islower() or body.isupper())):
        return None  # no base64 has that length; one-case letters are a word, not an encoding
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if len(decoded) < _MIN_DECODED or not decoded.replace("\n", " ").replace("\t", " ").isprintable():
        return None
    return decoded

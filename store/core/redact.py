"""Sensitive text: credentials, tokens, keys, card and ID numbers, and a word list.

Every text an agent can make Jiyi persist passes through a `Redactor`. Names
(aliases) that contain anything sensitive are refused outright; free text has
the sensitive parts replaced by `[redacted:<kind>]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

_FLAGS = re.IGNORECASE
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", _FLAGS)),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")),
    ("api_key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("bearer", re.compile(r"\bbearer\s+[A-Za-z0-9._~+/=-]{8,}", _FLAGS)),
    (
        "secret",
        re.compile(r"(?:api[_-]?key|access[_-]?token|token|secret|password|passwd)\s*[:=]\s*\S+", _FLAGS),
    ),
    ("mobile", re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)")),
    ("email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")),
    (
        "order",
        re.compile(r"(?:订单|order)\s*(?:号|no\.?|id|#)?\s*[:：]?\s*[A-Za-z0-9]{4,}", _FLAGS),
    ),
    ("code", re.compile(r"(?:验证码|code)\s*(?:是|为|is)?\s*[:：]?\s*\d{4,8}(?!\d)", _FLAGS)),
    ("base64", re.compile(r"[A-Za-z0-9+/]{120,}={0,2}")),
)
_ID_CARD = re.compile(r"(?<![0-9])[1-9]\d{16}[0-9Xx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


@dataclass(frozen=True)
class Finding:
    """One sensitive span: what kind it is and where."""

    kind: str
    start: int
    end: int


def _id_card_valid(number: str) -> bool:
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def _luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def default_words() -> list[str]:
    """The sensitive-word list shipped in `resources/sensitive_words.txt`."""
    text = resources.files("resources").joinpath("sensitive_words.txt").read_text("utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


class Redactor:
    """Finds and removes sensitive text. `words` are matched case-insensitively as substrings."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.words = sorted({w.strip().casefold() for w in words if w.strip()}, key=len, reverse=True)

    def find(self, text: str) -> list[Finding]:
        """Every sensitive span in `text`, in order of position."""
        found = [Finding(kind, m.start(), m.end()) for kind, pattern in PATTERNS for m in pattern.finditer(text)]
        found += [
            Finding("id_number", m.start(), m.end()) for m in _ID_CARD.finditer(text) if _id_card_valid(m.group())
        ]
        for match in _CARD.finditer(text):
            digits = re.sub(r"\D", "", match.group())
            if 13 <= len(digits) <= 19 and _luhn_valid(digits):
                found.append(Finding("card_number", match.start(), match.end()))
        folded = text.casefold()
        if len(folded) == len(text):
            for word in self.words:
                start = folded.find(word)
                while start >= 0:
                    found.append(Finding("word", start, start + len(word)))
                    start = folded.find(word, start + len(word))
        elif any(word in folded for word in self.words):
            found.append(Finding("word", 0, len(text)))
        return sorted(found, key=lambda f: (f.start, -f.end))

    def is_sensitive(self, text: str) -> bool:
        """Tell whether any part of `text` is sensitive."""
        return bool(self.find(text))

    def redact(self, text: str) -> str:
        """`text` with each sensitive span replaced by `[redacted:<kind>]`."""
        pieces: list[str] = []
        cursor = 0
        for finding in self.find(text):
            if finding.start < cursor:
                continue
            pieces.append(text[cursor : finding.start])
            pieces.append(f"[redacted:{finding.kind}]")
            cursor = finding.end
        pieces.append(text[cursor:])
        return "".join(pieces)

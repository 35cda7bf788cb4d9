"""Sensitive text: credentials, tokens, keys, card and ID numbers, codes, and a word list.

Every text an agent can make Jiyi learn, name or file passes through a
`Redactor`. Names and ids that contain anything sensitive are refused
outright; free text has the sensitive parts replaced by `[redacted:<kind>]`.
The rules themselves are in `store.core.redact_rules`.

The filter runs in time linear in the length of the text, whatever the text
(a mebibyte in tens of milliseconds): no rule can make the regular-expression
engine scan a run of characters once per starting position, and a rule whose
trigger words are absent from the text is not run at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

from store.core.redact_rules import RULES, Rule

# Full-width ASCII (U+FF01–U+FF5E) is read as ASCII, one character for one, so spans stay where they are.
_WIDE = re.compile("[\uff01-\uff5e]")
_NARROW = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}


@dataclass(frozen=True)
class Finding:
    """One sensitive span: what kind it is and where."""

    kind: str
    start: int
    end: int


def default_words() -> list[str]:
    """The sensitive-word list shipped in `resources/sensitive_words.txt`."""
    text = resources.files("resources").joinpath("sensitive_words.txt").read_text("utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


# Below this length every rule simply runs: looking for the words it needs would cost more than the match.
_SHORT = 2048


class _Reading:
    """A text as the rules read it: full-width ASCII narrowed and a lower-case twin, both with the original
    offsets; and which of the words rules need are present (each is looked for once)."""

    def __init__(self, text: str) -> None:
        if not text.isascii() and _WIDE.search(text):
            text = text.translate(_NARROW)
        self.text = text
        # U+0130 (İ) is the one character whose lower case is two characters long.
        self.low = (text.replace("\u0130", "i") if "\u0130" in text else text).lower()
        self._short = len(text) < _SHORT
        self._present: dict[str, bool] = {}

    def subject(self, rule: Rule) -> str | None:
        """What `rule` reads, or None when none of the words it needs is present."""
        if rule.needs and not self._short and not any(self._has(need) for need in rule.needs):
            return None
        return self.low if rule.lowered else self.text

    def _has(self, need: str) -> bool:
        if need not in self._present:
            self._present[need] = need in self.low
        return self._present[need]


Span = tuple[int, int, str]  # (start, -end, kind): sorted, the earliest first and of those the longest


class Redactor:
    """Finds and removes sensitive text. `words` are matched case-insensitively as substrings."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.words = sorted({w.strip().lower() for w in words if w.strip()}, key=len, reverse=True)

    def find(self, text: str, *, words: bool = True) -> list[Finding]:
        """Every sensitive span in `text`, in order of position (spans may overlap).

        `words=False` leaves the word list out and asks of the formats only.
        """
        return [Finding(kind, start, -neg_end) for start, neg_end, kind in self._spans(text, words)]

    def is_sensitive(self, text: str, *, words: bool = True) -> bool:
        """Tell whether any part of `text` is sensitive; `words=False` asks of the formats only
        (for package names, where a listed word such as "password" can be part of an app's name)."""
        reading = _Reading(text)
        for rule in RULES:
            subject = reading.subject(rule)
            if subject is None:
                continue
            if rule.check is None:
                if rule.pattern.search(subject):
                    return True
            elif any(rule.check(m.group()) is not None for m in rule.pattern.finditer(subject)):
                return True
        return words and any(word in reading.low for word in self.words)

    def redact(self, text: str) -> str:
        """`text` with each sensitive span replaced by `[redacted:<kind>]`; where spans overlap,
        the earliest (then the longest) names the marker and the union of the spans goes."""
        pieces: list[str] = []
        cursor = 0
        for start, neg_end, kind in self._spans(text, True):
            if start < cursor:
                cursor = max(cursor, -neg_end)
                continue
            pieces.append(text[cursor:start])
            pieces.append(f"[redacted:{kind}]")
            cursor = -neg_end
        pieces.append(text[cursor:])
        return "".join(pieces)

    def _spans(self, text: str, words: bool) -> list[Span]:
        reading = _Reading(text)
        spans: list[Span] = []
        for rule in RULES:
            subject = reading.subject(rule)
            if subject is None:
                continue
            matches = rule.pattern.finditer(subject)
            if rule.check is None:
                spans += [(m.start(), -m.end(), rule.kind) for m in matches]
                continue
            for match in matches:
                part = rule.check(match.group())
                if part is not None:
                    spans.append((match.start() + part[0], -(match.start() + part[1]), rule.kind))
        if words:
            spans += self._words(reading.low)
        spans.sort()
        return spans

    def _words(self, low: str) -> list[Span]:
        spans: list[Span] = []
        for word in self.words:
            start = low.find(word)
            while start >= 0:
                end = start + len(word)
                # A run of repeats is one span, so a text of nothing but listed words costs one span per run.
                while low.startswith(word, end):
                    end += len(word)
                spans.append((start, -end, "word"))
                start = low.find(word, end)
        return spans

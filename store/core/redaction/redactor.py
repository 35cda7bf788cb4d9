"""Sensitive text: credentials, tokens, keys, card and ID numbers, codes, and a word list.

Every text an agent can make Jiyi learn, name or file passes through a
`Redactor`. Names and ids that contain anything sensitive are refused
outright; free text has the sensitive parts replaced by `[redacted:<kind>]`.
The rules themselves are in `store.core.redaction.rules` (the formats) and
`store.core.redaction.said` (secrets said in words: "my password is X").

The text is read as a person reads it before any rule runs
(`store.core.redaction.reading`): invisible characters such as zero-width spaces
are skipped, full-width and look-alike letters read as ASCII, and runs of
%XX-escapes or base64 that decode to text are read decoded as well (a run
whose decoded text holds a secret goes whole).

The filter runs in time linear in the length of the text, whatever the text
(a mebibyte in tens of milliseconds): no rule can make the regular-expression
engine scan a run of characters once per starting position, a rule whose
trigger words are absent from the text is not run at all, and each encoded
run is decoded once (two levels deep at most).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

from store.core.redaction.reading import Reading, encoded_runs
from store.core.redaction.rules import RULES
from store.core.redaction.said import SAID

ALL_RULES = RULES + SAID

# How deep encodings are unwrapped: base64 inside %XX-escapes is read, a third layer is not.
_DEPTH = 2
# Between decoded runs read together: no format reaches across a paragraph separator between line breaks.
_APART = "\n\u2029\n"


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
        return bool(self._spans(text, words))

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

    def _spans(self, text: str, words: bool, depth: int = 0) -> list[Span]:
        reading = Reading(text)
        spans: list[Span] = []
        for rule in ALL_RULES:
            subject = reading.subject(rule)
            if subject is None:
                continue
            matches = rule.pattern.finditer(subject)
            if rule.pick is not None:
                # A match that starts inside the span the rule found last is a word inside that value: its own
                # value is the same run's end, which goes already (a run of "token=token=…" is one span).
                covered = -1
                for match in matches:
                    if match.start() < covered:
                        continue
                    part = rule.pick(match)
                    if part is not None:
                        spans.append((part[0], -part[1], rule.kind))
                        covered = part[1]
            elif rule.value:
                for match in matches:
                    if rule.check is None or rule.check(match.group("v")) is not None:
                        spans.append((match.start("v"), -match.end("v"), rule.kind))
            elif rule.check is None:
                spans += [(m.start(), -m.end(), rule.kind) for m in matches]
            else:
                for match in matches:
                    part = rule.check(match.group())
                    if part is not None:
                        spans.append((match.start() + part[0], -(match.start() + part[1]), rule.kind))
        if words:
            spans += self._words(reading.low)
        if depth < _DEPTH:
            spans += self._encoded(reading.text, words, depth)
        spans = [reading.origin(start, neg_end, kind) for start, neg_end, kind in spans]
        spans.sort()
        return spans

    def _encoded(self, text: str, words: bool, depth: int) -> list[Span]:
        """The encoded runs of `text` whose decoding holds a secret, whole. The decoded runs are read as one
        text, apart (a run costs its length, not a pass of every rule)."""
        runs = list(encoded_runs(text))
        if not runs:
            return []
        starts: list[int] = []
        pieces: list[str] = []
        offset = 0
        for _, _, decoded in runs:
            starts.append(offset)
            pieces.append(decoded)
            offset += len(decoded) + len(_APART)
        found: dict[int, str] = {}
        for start, neg_end, kind in self._spans(_APART.join(pieces), words, depth + 1):
            first, last = bisect_right(starts, start) - 1, bisect_right(starts, -neg_end - 1) - 1
            for index in range(first, last + 1):
                found.setdefault(index, kind)
        return [(runs[index][0], -runs[index][1], kind) for index, kind in sorted(found.items())]

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

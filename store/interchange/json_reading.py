"""Reading what an import is given, in bounded memory: a file line by line with a cap on each line, one JSON
document a value at a time, and any JSON value checked for what Jiyi cannot store.

A line (or a value of a document) longer than its cap is refused naming where it is, without being read
whole: a 150 MB line costs a few reads of the cap, not 150 MB of text and its parse. Every value is parsed
with a nesting cap (`MAX_DEPTH`) and without NaN or Infinity (not JSON: no event could hold them), and a
lone surrogate (`"\\ud800"`, which no UTF-8 text holds) is refused, so that a crafted file is a clear error
and never a traceback, and what passes can be stored as it is.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from store.core.errors import InvalidInput

MiB = 1024 * 1024
MAX_DEPTH = 64
"""The deepest nesting of arrays and objects an import accepts (Jiyi's formats need fewer than ten levels)."""

CHUNK = 64 * 1024  # read at a time (bytes of a line, characters of a document)

_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = json.JSONDecoder(parse_constant=lambda name: _refuse_constant(name))


def _refuse_constant(name: str) -> object:
    raise InvalidInput(f"{name} is not JSON")


def mib(size: int) -> str:
    """`size` bytes as the caps are said: "16 MiB", "512 KiB"."""
    return f"{size // MiB} MiB" if size >= MiB else f"{size // 1024} KiB"


def check_value(value: object, what: str) -> object:
    """`value` (parsed JSON), or `InvalidInput` naming `what` when it nests deeper than `MAX_DEPTH` or holds a
    lone surrogate. Iterative: a value deep enough to break recursion is refused, not crashed on."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                raise InvalidInput(f"{what}: holds a lone surrogate (an escape like \\ud800), which is not text")
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise InvalidInput(f"{what}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, member in item.items():
                stack.append((key, depth))
                stack.append((member, depth + 1))
        else:
            stack.extend((member, depth + 1) for member in item)
    return value


def load_json(text: str | bytes, what: str) -> object:
    """One JSON value: parsed and checked (`check_value`), or `InvalidInput` naming `what` and why not."""
    try:
        raw = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{what}: not UTF-8 (byte {exc.start})") from None
    try:
        value = _DECODER.decode(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise InvalidInput(f"{what}: nested deeper than {MAX_DEPTH} levels") from None
    except InvalidInput as exc:
        raise InvalidInput(f"{what}: {exc}") from None
    return check_value(value, what)


def load_file(path: Path, what: str, cap: int) -> object:
    """A small JSON file (a manifest, a scorecard) read whole: at most `cap` bytes, else `InvalidInput`."""
    with open(path, "rb") as stream:
        data = stream.read(cap + 1)
    if len(data) > cap:
        raise InvalidInput(f"{what} is larger than {mib(cap)}, the most Jiyi reads of it")
    return load_json(data, what)


# -- lines -------------------------------------------------------------------------------------------


class Line:
    """One line of a file: its number (from 1), where it starts, its bytes without the newline (None when it was
    longer than the cap: not read), and its length."""

    __slots__ = ("data", "ended", "number", "offset", "size")

    def __init__(self, number: int, offset: int, data: bytes | None, size: int, ended: bool) -> None:
        self.number = number
        self.offset = offset
        self.data = data
        self.size = size
        self.ended = ended  # whether a newline ends it (the last line of a file may lack one)


def read_lines(
    stream: IO[bytes], cap: int, *, start: int = 0, first: int = 1, seen: Callable[[bytes], object] | None = None
) -> Iterator[Line]:
    """The lines of `stream` from its position `start` (numbered from `first`), each at most `cap` bytes; a longer
    one is yielded with `data` None after its bytes were skipped in chunks (memory stays within the cap).
    `seen(chunk)` hears every byte read, in order (a running checksum)."""
    number, offset = first - 1, start
    while True:
        data = stream.readline(cap + 1)
        if not data:
            return
        if seen is not None:
            seen(data)
        number += 1
        size = len(data)
        if size > cap and not data.endswith(b"\n"):
            ended = False
            while True:
                more = stream.readline(CHUNK)
                if not more:
                    break
                if seen is not None:
                    seen(more)
                size += len(more)
                if more.endswith(b"\n"):
                    ended = True
                    break
            yield Line(number, offset, None, size - int(ended), ended)
        else:
            ended = data.endswith(b"\n")
            yield Line(number, offset, data[:-1] if ended else data, size - int(ended), ended)
        offset += size


def too_long(name: str, line: Line, cap: int) -> str:
    """Why `line` of `name` is refused: what a refusal of an over-long line says."""
    return f"{name} line {line.number} is {line.size:,} bytes, longer than {mib(cap)}, the most a line of it may hold"


# -- one JSON document, a value at a time ------------------------------------------------------------


class JsonDocument:
    """One JSON document read from a text stream a value at a time: the items of its top-level array (or of one
    member's array), or the members of its top-level object. Each value is at most `cap` characters; a longer
    one, or one that is not JSON, is refused naming it (`what(index)`), and nothing more is read."""

    def __init__(self, stream: IO[str], name: str, cap: int) -> None:
        self._stream = stream
        self.name = name
        self.cap = cap
        self._buf = ""
        self._pos = 0
        self._eof = False

    @classmethod
    def open(cls, path: Path, name: str, cap: int) -> JsonDocument:
        return cls(io.TextIOWrapper(open(path, "rb"), encoding="utf-8", errors="strict", newline=""), name, cap)

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> JsonDocument:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fill(self, want: int = CHUNK) -> bool:
        """Read on until the buffer holds `want` characters past the position (or the stream ends); False when
        nothing more could be read."""
        if self._pos > CHUNK:
            self._buf, self._pos = self._buf[self._pos :], 0
        grew = False
        while not self._eof and len(self._buf) - self._pos < want:
            try:
                more = self._stream.read(max(CHUNK, want - (len(self._buf) - self._pos)))
            except UnicodeDecodeError as exc:
                raise InvalidInput(f"{self.name} is not UTF-8 (near byte {exc.start})") from None
            if not more:
                self._eof = True
                break
            self._buf += more
            grew = True
        return grew

    def peek(self) -> str:
        """The next character that is not white space ("" at the end); not consumed."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in " \t\r\n":
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._fill():
                return ""

    def expect(self, allowed: str, what: str) -> str:
        """Consume the next character, one of `allowed`; else `InvalidInput` saying what was expected."""
        found = self.peek()
        if not found or found not in allowed:
            shown = repr(found) if found else "the end of the file"
            raise InvalidInput(f"{self.name}: {what} expected, found {shown}")
        self._pos += 1
        return found

    def value(self, what: str) -> object:
        """The next value, parsed and checked (`check_value`)."""
        if not self.peek():
            raise InvalidInput(f"{what}: the file ends where a value should be")
        want = CHUNK
        while True:
            # The buffer is only ever cut before the position, which stays where the value starts.
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                held = len(self._buf) - self._pos
                if held > self.cap:
                    if exc.pos >= len(self._buf) - 1 or exc.msg.startswith("Unterminated"):
                        raise InvalidInput(f"{what}: longer than {mib(self.cap)}, the most one may hold") from None
                    raise InvalidInput(f"{what}: not JSON ({exc.msg})") from None
                want = min(max(want, held) * 2, self.cap + 1)  # doubling: parsed again O(log) times, not per chunk
                if not self._fill(want):
                    raise InvalidInput(f"{what}: not JSON ({exc.msg})") from None
                continue
            except RecursionError:
                raise InvalidInput(f"{what}: nested deeper than {MAX_DEPTH} levels") from None
            except InvalidInput as exc:
                raise InvalidInput(f"{what}: {exc}") from None
            if end >= len(self._buf) and self._fill(len(self._buf) - self._pos + CHUNK):
                continue  # a number may go on past the buffer: read on and parse it again
            if end - self._pos > self.cap:
                raise InvalidInput(f"{what}: longer than {mib(self.cap)}, the most one may hold")
            self._pos = end
            return check_value(value, what)

    def items(self, what: Callable[[int], str]) -> Iterator[tuple[int, Any]]:
        """After `[` (consumed): each item with its index (from 1), through the closing `]`."""
        if self.peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            index += 1
            yield index, self.value(what(index))
            if self.expect(",]", f"',' or ']' after {what(index)}") == "]":
                return

    def members(self) -> Iterator[str]:
        """After `{` (consumed): each member's key; the caller reads its value (`value`, or `[` and `items`)
        before asking for the next one. Through the closing `}`."""
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            key = self.value(f"{self.name}: a member's name")
            if not isinstance(key, str):
                raise InvalidInput(f"{self.name}: a member's name is not a string")
            self.expect(":", f"':' after the member {key!r}")
            yield key
            if self.expect(",}", f"',' or '}}' after the member {key!r}") == "}":
                return

    def end(self) -> None:
        """Nothing but white space may follow the document."""
        if self.peek():
            raise InvalidInput(f"{self.name}: more follows the JSON document (one value is expected)")


VIEW_VALUE_CAP = 4 * MiB
"""The longest value of a view file (an entry, an episode, a lesson) a check or an import reads."""


def check_document(path: Path, shape: str, cap: int = VIEW_VALUE_CAP) -> str | None:
    """Why the JSON document at `path` is not an `"array"` or an `"object"` whose values are each at most `cap`
    characters (None when it is one). Streamed: a view of any size is checked in flat memory."""
    try:
        with JsonDocument.open(path, path.name, cap) as document:
            opened = document.peek()
            if opened != ("[" if shape == "array" else "{"):
                return "not a list" if shape == "array" else "not an object"
            document.expect(opened, "a value")
            if shape == "array":
                for _ in document.items(lambda n: f"item {n}"):
                    pass
            else:
                for key in document.members():
                    document.value(f"the member {key!r}")
            document.end()
    except InvalidInput as exc:
        text = str(exc).removeprefix(path.name).removeprefix(": ")
        found = _NOT_JSON.fullmatch(text)
        return f"not JSON: {found['why']} (in {found['what']})" if found else plain(InvalidInput(text))
    return None


_NOT_JSON = re.compile(r"(?P<what>.+?): not JSON \((?P<why>.*)\)")


def plain(exc: InvalidInput) -> str:
    """A reading error as a clause (`load_json(..., "")`'s message without its empty name): "not JSON: why"."""
    text = str(exc).removeprefix(": ")
    if text.startswith("not JSON (") and text.endswith(")"):
        text = "not JSON: " + text[len("not JSON (") : -1]
    return text

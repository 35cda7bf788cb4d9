"""Shared set-up of the learning tests: a home with a grant, and one-call helpers over the protocol."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from service.rpc.dispatch import Dispatcher
from store.learning.grant import example_section


def write_grant(home: Path, **changes: str) -> None:
    """Put the example grant (with `changes`: key = the example's `key = value` line's new value) in `home`."""
    section = example_section()
    for key, value in changes.items():
        lines = section.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(f"{key} = "):
                lines[i] = f"{key} = {value}"
                break
        else:
            raise KeyError(key)
        section = "\n".join(lines) + "\n"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "config.toml").write_text(section, "utf-8")


_NUMBERS = itertools.count(1)  # request ids unique across every `Calls` of a test run


class Calls:
    """Requests through the whole protocol (encode, parse, dispatch, encode) of an in-process dispatcher."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher

    def raw(self, method: str, params: dict[str, Any] | None = None, *, person: bool = False) -> dict[str, Any]:
        """The reply to one request, sent as an agent or (`person`) as the console."""
        line = json.dumps({"id": 1, "method": method, "params": params or {}}, ensure_ascii=False).encode()
        context = self.dispatcher.person if person else None
        reply: dict[str, Any] = json.loads(self.dispatcher.handle_line(line, context))
        return reply

    def ok(self, method: str, params: dict[str, Any] | None = None, *, person: bool = False) -> dict[str, Any]:
        reply = self.raw(method, params, person=person)
        assert reply["ok"], reply
        result: dict[str, Any] = reply["result"]
        return result

    def rid(self) -> str:
        return f"req-{next(_NUMBERS)}"

    def refused(self, method: str, params: dict[str, Any], code: str, *words: str) -> str:
        reply = self.raw(method, params)
        assert reply["ok"] is False and reply["error"]["code"] == code, reply
        for word in words:
            assert word in reply["error"]["message"], reply
        message: str = reply["error"]["message"]
        return message

"""`kill -9` of a real `jiyi serve` while an agent puts one bundle document over and over: after each restart
the document's file holds the stored revision (the mirror caught up at start), and the next put makes no
false "edited outside" copy."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import Server, send_lines

ROUNDS = 4  # the code before the catch-up at start failed in the first round here


def _call(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    line = json.dumps({"id": 1, "method": method, "params": params}, ensure_ascii=False).encode()
    [answer] = send_lines(server.socket, [line], timeout=30)
    reply: dict[str, Any] = json.loads(answer)
    assert reply["ok"], reply
    result: dict[str, Any] = reply["result"]
    return result


def _put(server: Server, content: str, revision: int) -> dict[str, Any]:
    params = {"bundle_id": "project/p", "path": "notes.md", "content": content, "expected_revision": revision}
    return _call(server, "bundle.document.put", params)


def _document(server: Server) -> dict[str, Any]:
    [doc] = _call(server, "bundle.get", {"bundle_id": "project/p", "path": "notes.md"})["documents"]
    return dict(doc)


def _keep_putting(server: Server, start: int, round_number: int, pause: float, stop: threading.Event) -> None:
    """Put the document again and again, each time at the revision the last put answered, until stopped."""
    at = start
    while not stop.is_set():
        try:
            at = _put(server, f"第 {at} 版 · 第 {round_number} 轮", at)["revision"]
        except (OSError, ValueError, AssertionError):
            return  # the service was killed under this request
        time.sleep(pause)


@pytest.mark.slow
def test_a_file_is_at_its_stored_revision_after_every_kill(short_dir: Path, launch: Callable[..., Server]) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock)
    revision = _put(server, "第 0 版", 0)["revision"]
    rng = random.Random(25)
    for round_number in range(ROUNDS):
        stop = threading.Event()
        pause = rng.random() * 0.002  # vary where in a put the kill lands
        thread = threading.Thread(target=_keep_putting, args=(server, revision, round_number, pause, stop), daemon=True)
        thread.start()
        time.sleep(0.3 + rng.random() * 0.7)
        server.process.kill()
        server.process.wait(timeout=30)
        stop.set()
        thread.join(timeout=30)
        server = launch(home, sock)
        doc = _document(server)
        assert doc["file"] == "same", f"round {round_number}: the file is {doc['file']} after a restart"
        revision = doc["revision"]
        answer = _put(server, f"重启后 · 第 {round_number} 轮", revision)
        assert answer["outside_edit_kept"] is None, f"round {round_number}: a false outside edit was kept"
        revision = answer["revision"]
    assert list((home / "bundles" / "project" / "p").glob("*.outside-*")) == []
    assert server.stop() == 0

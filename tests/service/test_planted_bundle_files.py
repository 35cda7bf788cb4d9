"""A FIFO planted where a bundle document's file belongs, in the home of a real `jiyi serve`: a put over the
socket is answered at once (the document saved, its file refused), and SIGTERM still stops the service."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys

import pytest

from tests.service.conftest import Server, send_lines

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("plants a FIFO, which Windows has not (Unix only)", allow_module_level=True)


def _put(server: Server, content: str, revision: int) -> dict[str, object]:
    line = {
        "id": revision,
        "method": "bundle.document.put",
        "params": {"bundle_id": "project/p", "path": "notes.md", "content": content, "expected_revision": revision},
    }
    # A deadline for a loaded machine, not a claim about speed: on a FIFO the old service never answered.
    [answer] = send_lines(server.socket, [json.dumps(line, ensure_ascii=False).encode()], timeout=30)
    reply: dict[str, object] = json.loads(answer)
    return reply


def test_a_fifo_at_a_documents_path_does_not_hang_the_service(server: Server) -> None:
    first = _put(server, "第一版", 0)
    assert first["ok"], first
    path = server.home / "bundles" / "project" / "p" / "notes.md"
    path.unlink()
    os.mkfifo(path, 0o600)
    second = _put(server, "第二版", 1)
    assert second["ok"], second
    result = second["result"]
    assert isinstance(result, dict) and result["revision"] == 2
    assert "FIFO" in str(result["mirror_problem"])
    assert stat.S_ISFIFO(path.lstat().st_mode)
    assert server.stop(signal.SIGTERM) == 0  # within Server.stop's deadline

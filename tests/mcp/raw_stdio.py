"""A `jiyi mcp` process spoken to in raw JSON lines, each answer awaited with a deadline (a server that never
answers fails the test instead of hanging it)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import IO, Any

ANSWER_S = 60.0  # a deadline for a loaded machine, not a claim about speed


class RawSession:
    """Write lines to a process's stdin; read its stdout's lines as they come, on a thread of their own."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self._stdin: IO[bytes] = process.stdin
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, line: bytes) -> None:
        self._stdin.write(line + b"\n")
        self._stdin.flush()

    def ask(self, line: bytes) -> dict[str, Any]:
        """Send one line and return the next line the process writes, as JSON."""
        self.send(line)
        try:
            answer = self._lines.get(timeout=ANSWER_S)
        except queue.Empty:
            raise AssertionError(f"no answer within {ANSWER_S:g} s to {line[:120]!r}") from None
        assert answer, "jiyi mcp closed its stdout"
        decoded: dict[str, Any] = json.loads(answer)
        return decoded

    def finish(self) -> str:
        """Close stdin (jiyi mcp ends), wait for the process and close its pipes; its stderr."""
        self._stdin.close()
        try:
            self.process.wait(ANSWER_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._reader.join(ANSWER_S)
            assert self.process.stdout is not None and self.process.stderr is not None
            self.process.stdout.close()
            with self.process.stderr:
                logged = self.process.stderr.read().decode("utf-8", "replace")
        return logged

"""What the job tests share: a home's worth of runs, and a gate that holds a rebuild half-way (the served
memory's fixtures are in `conftest.py`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from service.memory.memory import Memory

EPISODES = 600  # three batches of the rebuild (256 each): progress moves twice before the end


def episodes(count: int) -> list[dict[str, Any]]:
    now = time.time()
    return [
        {
            "run_id": f"r{i}",
            "goal_text": f"给妈妈发消息 {i}",
            "ts_end": now - i,
            "success": True,
            "apps": ["com.tencent.mm"],
            "device_scope": "device:d1",
            "steps": 3,
        }
        for i in range(count)
    ]


class Gate:
    """Holds the rebuild before each batch after the first (whose progress is reported by then) until
    `release`, or until `passes(batch number)` lets it by."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.batches = 0
        self.held = threading.Event()
        self.opened = threading.Event()
        self.passes: Callable[[int], bool] = lambda _batches: False
        real = memory.recall.index

        def index(rows: list[dict[str, Any]]) -> int:
            if rows:
                self.batches += 1
            if self.batches > 1:
                self.held.set()
                deadline = time.monotonic() + 20
                while not (self.opened.is_set() or self.passes(self.batches)) and time.monotonic() < deadline:
                    time.sleep(0.01)
            return int(real(rows))

        monkeypatch.setattr(memory.recall, "index", index)

    def release(self) -> None:
        self.opened.set()

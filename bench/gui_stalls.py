"""How long the console's GUI thread goes without running, and why: `bench/gui.py`'s heartbeat and stall watch.

`Heartbeat` is a 10 ms timer on the GUI thread whose longest gap is the
longest stall. `StallWatch` samples, from a thread of its own, where the GUI
thread was while its heartbeat was late and whether it was on a CPU, waiting
for one, or blocked (the kernel's schedstat).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from PySide6.QtCore import QElapsedTimer, QTimer


class Heartbeat:
    """A 10 ms timer on the GUI thread; `max_gap_ms` is the longest time between two of its ticks."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.max_gap_ms = 0.0
        self._last = 0
        self.last_tick = time.monotonic()  # read by `StallWatch` from its own thread

    def _tick(self) -> None:
        now = self.clock.nsecsElapsed()
        self.max_gap_ms = max(self.max_gap_ms, (now - self._last) / 1e6)
        self._last = now
        self.last_tick = time.monotonic()

    def start(self) -> None:
        self.max_gap_ms = 0.0
        self.clock.start()
        self._last = self.clock.nsecsElapsed()
        self.last_tick = time.monotonic()
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        return self.max_gap_ms


class StallWatch:
    """While the heartbeat is late by more than `late_ms`, samples the GUI thread's Python stack every 5 ms
    (`sys._current_frames()`) and which other threads were not waiting; `report()` aggregates them.

    The watch needs the GIL to sample: a GUI thread holding it in C code is sampled when it lets go, so a
    stack seen once in a long stall is where the thread was when it let go, and many samples of one stack
    mean the thread stayed there.
    """

    def __init__(self, heartbeat: Heartbeat, late_ms: float = 50.0) -> None:
        self.heartbeat, self.late_s = heartbeat, late_ms / 1000
        self.gui_ident = threading.get_ident()
        self._schedstat = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")
        self.stalls: list[tuple[float, float, float]] = []  # each stall's wall, on-CPU and run-queue seconds
        self.stacks: Counter[str] = Counter()
        self.others: Counter[str] = Counter()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-stall-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _sched(self) -> tuple[float, float, float]:
        """Now, and the GUI thread's time on a CPU and waiting for one (the kernel's schedstat), in seconds."""
        try:
            on_cpu, waiting, _slices = self._schedstat.read_text().split()
        except (OSError, ValueError):
            return time.monotonic(), 0.0, 0.0
        return time.monotonic(), int(on_cpu) / 1e9, int(waiting) / 1e9

    def _run(self) -> None:
        before, stalled = self._sched(), False
        while not self._stop.wait(0.005):
            if not self.heartbeat.timer.isActive() or time.monotonic() - self.heartbeat.last_tick < self.late_s:
                now = self._sched()
                if stalled:  # the stall ended: how its time went, from the last sample before it
                    self.stalls.append((now[0] - before[0], now[1] - before[1], now[2] - before[2]))
                before, stalled = now, False
                continue
            stalled = True
            frames = sys._current_frames()
            self.samples += 1
            gui = frames.get(self.gui_ident)
            if gui is not None:
                self.stacks[_stack(gui, 10)] += 1
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, frame in frames.items():
                if ident in (self.gui_ident, threading.get_ident()):
                    continue
                top = _stack(frame, 1)
                if not any(w in top for w in ("wait", "select", "recv", "_worker", "accept", "sleep", "get (")):
                    self.others[f"{names.get(ident, ident)}: {top}"] += 1

    def report(self, top: int = 8) -> str:
        lines = [f"stall samples (heartbeat > {self.late_s * 1000:.0f} ms late, every 5 ms): {self.samples}"]
        wall, cpu, queued = (sum(stall[i] for stall in self.stalls) for i in range(3))
        lines.append(
            f"  {len(self.stalls)} stalls, {wall:.2f} s in all: the GUI thread on a CPU {cpu:.2f} s, waiting for a "
            f"CPU {queued:.2f} s, off the run queue (blocked: the GIL, I/O) {wall - cpu - queued:.2f} s"
        )
        for stall in sorted(self.stalls, reverse=True)[:5]:
            lines.append(
                f"    longest: {stall[0] * 1000:.0f} ms: on a CPU {stall[1] * 1000:.0f}, run queue "
                f"{stall[2] * 1000:.0f}, blocked {(stall[0] - stall[1] - stall[2]) * 1000:.0f}"
            )
        for stack, n in self.stacks.most_common(top):
            lines.append(f"  {n:>5} × GUI thread in:\n      " + stack.replace(" <- ", "\n      <- "))
        for other, n in self.others.most_common(top):
            lines.append(f"  {n:>5} × running meanwhile: {other}")
        return "\n".join(lines)


def _stack(frame: Any, depth: int) -> str:
    parts = []
    while frame is not None and len(parts) < depth:
        code, file = frame.f_code, Path(frame.f_code.co_filename)
        parts.append(f"{file.parent.name}/{file.name}:{frame.f_lineno} ({code.co_name})")
        frame = frame.f_back
    return " <- ".join(parts)

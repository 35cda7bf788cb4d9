"""The desk index's share of the time beside the writes (`DeskIndexer`'s thread asks it before each batch).

While desk writes are heard, the thread rests after a batch that took `t`
seconds for `t * (1 - share) / share`, so it works `share` of the time and
the writes have the rest: an agent's steady stream of writes never stops
it, and the index's lag shrinks while they go on. The share is `MOST` while
the writes leave the write lock mostly free (a few writes a second: the
median write then meets no embedding at all), less the busier they keep it
during a batch, and never below `LEAST` (a burst of writes still lets the
index move). With no write heard for `QUIET` seconds it goes batch after
batch.

It used to wait for a quiet half second before each batch, a minute at most:
at five writes a second that was one batch a minute, so the lag grew.
Measured (bench/index_under_writes.py, bench/scale_out.py --index-cost):
docs/desk-memory.md.
"""

from __future__ import annotations

import time

QUIET = 0.5  # seconds without a desk write after which the thread goes batch after batch
MOST = 0.5  # the share of the time the thread works while writes are heard and leave the write lock free
LEAST = 0.25  # ... and while they keep the write lock busy all the time (a burst)


class IndexShare:
    """When the index's thread may embed its next batch (see the module docstring); thread-safe enough for one
    thread asking and any thread telling it of a write (plain float stores)."""

    def __init__(self) -> None:
        self._last_write = 0.0  # monotonic time of the last desk write heard
        self._due = 0.0  # monotonic time the next batch may start while writes are heard

    def heard_write(self) -> None:
        self._last_write = time.monotonic()

    def worked(self, took: float, writes_held: float) -> None:
        """A batch just ended: it took `took` seconds, while writes held the write lock `writes_held` of them."""
        busy = min(1.0, writes_held / took) if took > 0 else 0.0
        share = max(LEAST, min(MOST, 1.0 - busy))
        self._due = time.monotonic() + took * (1 - share) / share

    def wait(self) -> float:
        """Seconds to rest before the next batch (0: go now)."""
        now = time.monotonic()
        if now - self._last_write >= QUIET:
            return 0.0
        return max(0.0, self._due - now)

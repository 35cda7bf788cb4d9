"""The desk index's share of the time beside the writes (`DeskIndexer`'s thread asks it before each batch).

While desk writes are heard, the thread rests after a batch that took `t`
seconds for `t * (1 - share) / share`, so it works `share` of the time and
the writes have the rest: an agent's steady stream of writes never stops
it. The share is `MOST` while the index is nearly current and the writes
leave the write lock mostly free (a few writes a second: the median write
then meets no embedding); `BEHIND` while the index lags far (recall says it
is degraded then), so the lag shrinks even where the model is slow (a busy
machine) and comes down to where `MOST` holds it; less the busier the
writes kept the write lock during the batch, but never below `LEAST` (a
burst of writes still lets the index move). With no write heard for `QUIET`
seconds it goes batch after batch.

It used to wait for a quiet half second before each batch, a minute at most:
at five writes a second that was one batch a minute, so the lag grew.
Measured (bench/index_under_writes.py, bench/scale_out.py --index-cost):
docs/desk-memory.md.
"""

from __future__ import annotations

import time

QUIET = 0.5  # seconds without a desk write after which the thread goes batch after batch
MOST = 0.5  # the share of the time the thread works while writes are heard and leave the write lock free
BEHIND = 0.75  # ... while the index lags far behind
LEAST = 0.25  # ... and while the writes keep the write lock busy all the time (a burst)


class IndexShare:
    """When the index's thread may embed its next batch (see the module docstring); thread-safe enough for one
    thread asking and any thread telling it of a write (plain float stores)."""

    def __init__(self) -> None:
        self._last_write = 0.0  # monotonic time of the last desk write heard
        self._due = 0.0  # monotonic time the next batch may start while writes are heard

    def heard_write(self) -> None:
        self._last_write = time.monotonic()

    def worked(self, took: float, writes_held: float, behind: bool) -> None:
        """A batch just ended: it took `took` seconds, while writes held the write lock `writes_held` of them;
        `behind`: the index still lags far."""
        busy = min(1.0, writes_held / took) if took > 0 else 0.0
        share = max(LEAST, min(BEHIND if behind else MOST, 1.0 - busy))
        self._due = time.monotonic() + took * (1 - share) / share

    def wait(self) -> float:
        """Seconds to rest before the next batch (0: go now)."""
        now = time.monotonic()
        if now - self._last_write >= QUIET:
            return 0.0
        return max(0.0, self._due - now)

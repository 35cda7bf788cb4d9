"""Episode recall on the wire (`recall.*`): the phone agent's shadow recall of past runs (query, statistics,
scored runs), performed by `service.memory.episode_recall.EpisodeRecallService`. The lessons `on`-mode recall hands
out are `service.ops.lessons`; the desk's `memory.recall` is `service.ops.desk`."""

from __future__ import annotations

from typing import Annotated

from service.ops.declare import Args, NoArgs, Operation, Reply
from service.ops.fields import Boolean, Epoch, Integer, Text
from service.wire.recall import RecallAnswer, RunTrace
from service.wire.results import RecallStatistics
from store.core.errors import InvalidInput

Since = Annotated[float | None, Epoch()]


class RecallQueryArgs(Args, frozen=True):
    goal: Annotated[str, Text(8192)]
    device: Annotated[str, Text(128)]
    explain: Annotated[bool, Boolean()] = False  # every app weighed, below the threshold too


class WindowArgs(Args, frozen=True):
    since: Since = None
    until: Since = None


class RecallRunsArgs(Args, frozen=True):
    since: Since = None
    until: Since = None
    limit: Annotated[int, Integer(1, 1000)] = 200

    def check(self) -> None:
        if self.since is None or self.until is None:
            raise InvalidInput("params.since and params.until are required")


class RecallRuns(Reply, frozen=True):
    runs: list[RunTrace]  # recalled vs actual apps, newest first


class TraceArgs(Args, frozen=True):
    run_id: Annotated[str, Text(128)]


class RecallTrace(Reply, frozen=True):
    run_id: str
    trace: RunTrace | None  # None: the run had no recall


class RecallDevices(Reply, frozen=True):
    devices: list[str]


QUERY = Operation(
    "recall.query",
    RecallQueryArgs,
    RecallAnswer,
    kind="read",
    idempotent=True,
    description="What recall would return for a goal on a device now, and why; logs nothing, scores nothing.",
)
STATS = Operation(
    "recall.stats",
    WindowArgs,
    RecallStatistics,
    kind="read",
    idempotent=True,
    description="Recall quality over a window (epoch seconds): hit@1, contamination, package precision and "
    "recall, by day and by package, and each device's calibration.",
)
RUNS = Operation(
    "recall.runs",
    RecallRunsArgs,
    RecallRuns,
    kind="read",
    idempotent=True,
    description="The runs whose recall was scored between `since` and `until`, with what was recalled and "
    "what the agent really launched.",
)
TRACE = Operation(
    "recall.trace",
    TraceArgs,
    RecallTrace,
    kind="read",
    idempotent=True,
    description="What recall offered at the start of one run and how it was scored.",
)
DEVICES = Operation(
    "recall.devices",
    NoArgs,
    RecallDevices,
    kind="read",
    idempotent=True,
    description="The devices recall has past runs of.",
)
OPERATIONS = (QUERY, STATS, RUNS, TRACE, DEVICES)

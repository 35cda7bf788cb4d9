"""A phone agent's run (start, event, finish) and the episode archive it fills."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from service.memory.domain import Domain
from service.ops.declare import Args, Operation, Reply, always
from service.ops.fields import EPOCH_MAX, MAX_NAME, Apps, Boolean, Choice, Document, Epoch, Integer, Raw, Text
from service.wire.episodes import Episode, EpisodeDetail
from service.wire.results import RunEventReceipt, RunFinished, RunStarted
from store.core.errors import InvalidInput

MAX_EVENT_BYTES = 16 * 1024  # one tool receipt; `intent` and `note` are folded to 200 characters anyway
MAX_OUTCOME_BYTES = 64 * 1024
# The caps of an outcome's fields (characters; `deliverable_path` in bytes, as file systems count).
OUTCOME_TEXT = {"goal_text": 8192, "reason": 2000, "takeover": 2000, "device_scope": 200, "deliverable_path": 1024}
OUTCOME_LISTS = {"apps": 200, "injected_lessons": 100, "injected_procedures": 100, "capabilities": 100}
TIMES = ("ts", "ts_start", "ts_end")

RunId = Annotated[str, Text(128)]
Actor = Annotated[str, Choice(("agent", "user"))]


def _times(document: Mapping[str, object], where: str) -> None:
    """A time given as a number is epoch seconds between 0 and the year 3000 (other types are the store's)."""
    for name in TIMES:
        value = document.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and not 0 <= value <= EPOCH_MAX:
            raise InvalidInput(f"{where}.{name} must be epoch seconds between 0 and {EPOCH_MAX} (the year 3000)")


class RunStartArgs(Args, frozen=True):
    run_id: RunId
    device: Annotated[str, Text(128)]
    goal: Annotated[str | None, Text(8192)] = None
    installed: Annotated[list[tuple[str, str]] | None, Apps()] = None  # synced as the device's inventory


class RunEventArgs(Args, frozen=True):
    event: Annotated[dict[str, object], Document(MAX_EVENT_BYTES)]  # one `experience_event` (tool receipt)
    device: Annotated[str | None, Text(128)] = None
    launch_name: Annotated[str | None, Text(MAX_NAME)] = None  # the name the agent launched an app by
    failure_message: Annotated[str | None, Text(8192)] = None

    def check(self) -> None:
        _times(self.event, "params.event")


class RunFinishArgs(Args, frozen=True):
    run_id: RunId
    outcome: Annotated[dict[str, object] | None, Document(MAX_OUTCOME_BYTES)] = None  # the `episode_outcome`

    def check(self) -> None:
        """The outcome within its caps; the shape and types of its fields are the store's to check."""
        outcome = self.outcome
        if outcome is None:
            return
        _times(outcome, "params.outcome")
        for name, cap in OUTCOME_TEXT.items():
            value = outcome.get(name)
            if not isinstance(value, str):
                continue
            in_bytes = name == "deliverable_path"
            size = len(value.encode("utf-8", "surrogatepass")) if in_bytes else len(value)
            if size > cap:
                unit = "bytes" if in_bytes else "characters"
                raise InvalidInput(f"params.outcome.{name} is longer than {cap} {unit}")
        for name, cap in OUTCOME_LISTS.items():
            value = outcome.get(name)
            if isinstance(value, list | dict) and len(value) > cap:
                raise InvalidInput(f"params.outcome.{name} has more than {cap} items")


class EpisodeListArgs(Args, frozen=True):
    success: Annotated[bool | None, Boolean()] = None
    revoked: Annotated[bool | None, Boolean()] = None
    since: Annotated[float | None, Epoch()] = None
    until: Annotated[float | None, Epoch()] = None
    text: Annotated[str | None, Text(MAX_NAME)] = None
    app: Annotated[str | None, Text(MAX_NAME)] = None
    device: Annotated[str | None, Text(128)] = None
    limit: Annotated[int, Integer(1, 1000)] = 100
    offset: Annotated[int, Integer()] = 0
    # Keyset paging: the `[ts_end, run_id]` of the last episode the client holds; the page starts after it.
    after: Annotated[tuple[float, str] | None, Raw()] = None
    total: Annotated[bool, Boolean()] = False  # count every episode the filter keeps (a second query)

    def check(self) -> None:
        value: Any = self.after
        if value is None:
            return
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or isinstance(value[0], bool)
            or not isinstance(value[0], int | float)
            or not math.isfinite(value[0])
            or not isinstance(value[1], str)
            or not 0 < len(value[1]) <= 128
        ):
            raise InvalidInput("params.after must be [ts_end, run_id]: the last episode's end time and run id")

    @property
    def key(self) -> tuple[float, str] | None:
        """`after` as (ts_end, run_id), or None."""
        return None if self.after is None else (float(self.after[0]), str(self.after[1]))


class EpisodePage(Reply, frozen=True, omit_defaults=True):
    episodes: list[Episode]  # the archive's rows (the reference's `episode_outcome` fields)
    next_offset: int | None
    total: int | None = None  # only when asked for


class EpisodeArgs(Args, frozen=True):
    run_id: RunId


class RevokeArgs(Args, frozen=True):
    run_id: RunId
    reason: Annotated[str | None, Text(200)] = None
    actor: Actor = "agent"


class RestoreArgs(Args, frozen=True):
    run_id: RunId
    actor: Actor = "agent"


class EpisodeRevoked(Reply, frozen=True):
    run_id: str
    revoked: bool
    change: int


RUN_START = Operation(
    "run.start",
    RunStartArgs,
    RunStarted,
    kind="write",
    idempotent=False,
    description="A phone agent's task starts on a device: syncs the installed apps, logs shadow recall, and "
    "in `on` mode returns lessons to put in the model's context.",
    changes=frozenset({Domain.APP_KB, Domain.EXPERIENCE}),
)
RUN_EVENT = Operation(
    "run.event",
    RunEventArgs,
    RunEventReceipt,
    kind="write",
    idempotent=False,
    description="One tool receipt of a run under way (an `experience_event`), with the name an app was "
    "launched by, so that names the user says become aliases.",
    changes=frozenset({Domain.APP_KB, Domain.EXPERIENCE}),
)
RUN_FINISH = Operation(
    "run.finish",
    RunFinishArgs,
    RunFinished,
    kind="write",
    idempotent=False,
    description="The run ended: archive its outcome, score its shadow recall, index it. Never fails the "
    "agent's run: a failure to archive answers `archived: false`.",
    changes=frozenset({Domain.APP_KB, Domain.EXPERIENCE, Domain.RECALL, Domain.LEARNING}),
)
EPISODE_LIST = Operation(
    "episode.list",
    EpisodeListArgs,
    EpisodePage,
    kind="read",
    idempotent=True,
    description="Archived runs, newest first, filtered by text, app, device, success, time or revocation, "
    "a page at a time.",
)
EPISODE_GET = Operation(
    "episode.get",
    EpisodeArgs,
    EpisodeDetail,
    kind="read",
    idempotent=True,
    description="One archived run with its tool-event timeline.",
    errors=("not_found",),
)
EPISODE_REVOKE = Operation(
    "episode.revoke",
    RevokeArgs,
    EpisodeRevoked,
    kind="write",
    idempotent=True,
    description="Keep an archived run out of recall (it stays archived), with the reason. The person's act.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.EXPERIENCE}),
    person=always("keeping a run out of recall"),
)
EPISODE_RESTORE = Operation(
    "episode.restore",
    RestoreArgs,
    EpisodeRevoked,
    kind="write",
    idempotent=True,
    description="Let recall use a revoked run again. The person's act.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.EXPERIENCE}),
    person=always("letting recall use a revoked run again"),
)

OPERATIONS = (RUN_START, RUN_EVENT, RUN_FINISH, EPISODE_LIST, EPISODE_GET, EPISODE_REVOKE, EPISODE_RESTORE)

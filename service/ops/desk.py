"""A desktop assistant's working memory (seed 002): interactions, task cards, recall and context for its
prompt, consolidation records, and the bundle folders. The methods keep the names desktop assistants use."""

from __future__ import annotations

import json
from typing import Annotated, Any

from service.memory.domain import Domain
from service.ops.declare import Args, Operation, Reply, as_user
from service.ops.fields import MAX_ID, Choice, Document, Integer, Moment, Text
from service.ops.numbers import check_numbers
from service.wire.desk import Bundle, BundleDetail
from service.wire.recall import DeskRecall
from service.wire.results import ConsolidationRecorded, DocumentWritten, InteractionRemembered, TaskCompleted
from store.core.errors import InvalidInput
from store.desk.bundle_names import MAX_DOCUMENT_CHARS

TURN = 20_000  # characters of one user or assistant turn
MAX_BUNDLE_DOCUMENT_BYTES = 256 * 1024  # UTF-8: 256,000 characters of Chinese would be 768 KB
Id = Annotated[str, Text(MAX_ID)]
OptId = Annotated[str | None, Text(MAX_ID)]
When = Annotated[str | float | None, Moment()]  # ISO-8601 text or epoch seconds


class RecallArgs(Args, frozen=True):
    query: Annotated[str, Text(4096)]
    limit: Annotated[int, Integer(1, 50)] = 8


class RememberArgs(Args, frozen=True):
    interaction_id: Id  # the assistant's own id of the turn: sending it again changes nothing
    user_text: Annotated[str | None, Text(TURN)] = None
    assistant_text: Annotated[str | None, Text(TURN)] = None
    source: Annotated[str | None, Text(64)] = None
    task_id: OptId = None
    ts: When = None


class TransitionArgs(Args, frozen=True):
    text: Annotated[str, Text(4096)]
    current_task_id: OptId = None
    current_topic_id: OptId = None


class ContextArgs(Args, frozen=True):
    query: Annotated[str, Text(4096)]
    schedule_id: OptId = None
    budget_chars: Annotated[int | None, Integer(200, 200_000)] = None
    limit: Annotated[int, Integer(1, 50)] = 8


class TaskArgs(Args, frozen=True):
    task_id: Id
    title: Annotated[str, Text(1000)]
    status: Annotated[str, Text(32)]
    result: Annotated[str | None, Text(TURN)] = None
    schedule_id: OptId = None
    run_id: OptId = None
    interaction_id: OptId = None
    source: Annotated[str | None, Text(64)] = None
    ts: When = None


class TaskListArgs(Args, frozen=True):
    status: Annotated[str | None, Text(32)] = None
    schedule_id: OptId = None
    limit: Annotated[int, Integer(1, 500)] = 20
    offset: Annotated[int, Integer()] = 0


class TaskPage(Reply, frozen=True):
    tasks: list[dict[str, Any]]
    next_offset: int | None


class ConsolidationArgs(Args, frozen=True):
    kind: Annotated[str, Text(32)]
    workday: Annotated[str | None, Text(10)] = None
    summary: Annotated[str | None, Text(2000)] = None
    detail: Annotated[dict[str, Any] | None, Document()] = None


class BundleListArgs(Args, frozen=True):
    kind: Annotated[str | None, Choice(("schedule", "project"))] = None
    limit: Annotated[int, Integer(1, 1000)] = 100
    offset: Annotated[int, Integer()] = 0


class BundlePage(Reply, frozen=True):
    bundles: list[Bundle]
    next_offset: int | None


class BundleArgs(Args, frozen=True):
    """A bundle named by its id, or by the schedule it belongs to (exactly one of them)."""

    bundle_id: Annotated[str | None, Text(200)] = None
    schedule_id: OptId = None

    def check(self) -> None:
        if (self.bundle_id is None) == (self.schedule_id is None):
            raise InvalidInput("give exactly one of params.bundle_id and params.schedule_id")

    @property
    def bundle(self) -> str:
        """The bundle's id (`schedule/<id>` for a schedule's)."""
        return bundle_named(self.bundle_id, self.schedule_id)


def bundle_named(bundle_id: str | None, schedule_id: str | None) -> str:
    """A bundle's id, given as itself or as the schedule it belongs to (`schedule/<id>`)."""
    return bundle_id if bundle_id is not None else f"schedule/{schedule_id}"


class BundleGetArgs(BundleArgs, frozen=True):
    path: Annotated[str | None, Text(300)] = None


class DocumentPutArgs(BundleArgs, frozen=True, kw_only=True):
    path: Annotated[str, Text(300)]
    content: Annotated[str, Text(MAX_DOCUMENT_CHARS, MAX_BUNDLE_DOCUMENT_BYTES)]
    expected_revision: Annotated[int | None, Integer()] = None  # the revision read; 0 for a new document
    actor: Annotated[str, Choice(("agent", "user"))] = "agent"

    def check(self) -> None:
        super().check()
        if self.expected_revision is None:
            raise InvalidInput("params.expected_revision is required (the revision you read; 0 for a new document)")
        _check_state_numbers(self.path, self.content)


class BundleDirectory(Reply, frozen=True):
    bundle_id: str
    directory: str


def _check_state_numbers(path: str, content: str) -> None:
    """`state.json` is a JSON document: its numbers obey the params' rules (finite, at most 64-bit integers).

    Content that is not JSON at all is left to the store, which says so.
    """
    if path != "state.json":
        return

    def refuse(name: str) -> None:
        raise InvalidInput(f"params.content: state.json holds {name}, which is not a JSON number")

    try:
        document = json.loads(content, parse_constant=refuse)
    except (ValueError, RecursionError):
        return
    check_numbers(document, "params.content (state.json)")


RECALL = Operation(
    "memory.recall",
    RecallArgs,
    DeskRecall,
    kind="read",
    idempotent=True,
    description="What memory holds about a query, by meaning and by words: related and recent turns, task "
    "cards, bundles, workdays, topics, facts and active skills.",
)
REMEMBER = Operation(
    "interaction.remember",
    RememberArgs,
    InteractionRemembered,
    kind="write",
    idempotent=True,
    description="Sync one completed turn (the user's text and the assistant's answer) under the assistant's "
    "own id; sending it again after a reconnect changes nothing.",
    errors=("conflict",),
    changes=frozenset({Domain.DESK}),
    aliases=("memory.interaction.remember",),
)
TRANSITION = Operation(
    "transition.assess",
    TransitionArgs,
    dict,
    kind="read",
    idempotent=True,
    description="Whether a new message continues the current task or topic or starts another.",
    aliases=("memory.transition.assess",),
)
CONTEXT = Operation(
    "context.prepare",
    ContextArgs,
    dict,
    kind="read",
    idempotent=True,
    description="The memory to put in the assistant's system prompt for a query, within a character budget.",
    aliases=("memory.context.prepare",),
)
TASK_COMPLETE = Operation(
    "task.complete",
    TaskArgs,
    TaskCompleted,
    kind="write",
    idempotent=True,
    description="File a task card for finished (or failed) work, with its result; its bundle is updated.",
    changes=frozenset({Domain.DESK}),
    aliases=("memory.task.complete",),
)
TASK_LIST = Operation(
    "task.list",
    TaskListArgs,
    TaskPage,
    kind="read",
    idempotent=True,
    description="Task cards, newest first, by status or schedule, a page at a time.",
    aliases=("memory.task.list",),
)
CONSOLIDATION = Operation(
    "consolidation.record",
    ConsolidationArgs,
    ConsolidationRecorded,
    kind="write",
    idempotent=False,
    description="Record a consolidation the assistant made (a workday review, a note), with its detail.",
    changes=frozenset({Domain.DESK}),
    aliases=("memory.consolidation.record",),
)
BUNDLE_LIST = Operation(
    "bundle.list",
    BundleListArgs,
    BundlePage,
    kind="read",
    idempotent=True,
    description="Bundle folders (a schedule's or a project's), a page at a time.",
    aliases=("memory.bundle.list",),
)
BUNDLE_GET = Operation(
    "bundle.get",
    BundleGetArgs,
    BundleDetail,
    kind="read",
    idempotent=True,
    description="A bundle's documents and revisions, or one document's content with its revision.",
    errors=("not_found",),
    aliases=("memory.bundle.get",),
)
DOCUMENT_PUT = Operation(
    "bundle.document.put",
    DocumentPutArgs,
    DocumentWritten,
    kind="write",
    idempotent=True,
    description="Write a bundle document against the revision you read (0 for a new one); a `conflict` "
    "carries the current revision and content.",
    errors=("conflict", "forbidden"),
    changes=frozenset({Domain.DESK}),
    person=as_user("a document written in the person's name", "an agent writes as itself: send actor agent"),
    aliases=("memory.bundle.document.put",),
)
BUNDLE_DIRECTORY = Operation(
    "bundle.directory",
    BundleArgs,
    BundleDirectory,
    kind="read",
    idempotent=True,
    description="Where a bundle's folder is on disk.",
    errors=("not_found",),
    aliases=("memory.bundle.directory",),
)

OPERATIONS = (
    RECALL,
    REMEMBER,
    TRANSITION,
    CONTEXT,
    TASK_COMPLETE,
    TASK_LIST,
    CONSOLIDATION,
    BUNDLE_LIST,
    BUNDLE_GET,
    DOCUMENT_PUT,
    BUNDLE_DIRECTORY,
)

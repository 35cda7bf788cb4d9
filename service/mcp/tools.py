"""The MCP tools: each one declared operation (`service/ops/`), under a fixed name an agent's prompts rely on.

A tool exposes a subset of its operation's parameters, possibly renamed
(`context_prepare`'s `budget` is `budget_chars`), and may fix others (`list_skills`
asks for active skills only). Its input schema is the declaration's own
schema of those fields; its annotations come from the declaration's kind and
idempotency. Nothing here speaks MCP or the socket: `server.py` does.

What only a person decides is not a tool: forgetting, user-trust aliases,
skill activation, a fact's confirmation, learning adoption.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from service.ops import appkb, desk, lessons, maintenance, status
from service.ops.declare import Operation
from store.core import clock
from store.core.errors import InvalidInput


@dataclass(frozen=True)
class Tool:
    """One MCP tool over one operation.

    `fields` maps each argument the tool takes to the operation's parameter it
    fills (by wire name); `fixed` are parameters the tool always sends;
    `required`/`optional` adjust which arguments must be given, where the
    tool's contract differs from the socket's; `narrowed` limits an argument
    to fewer values than the operation takes (what the person withdrew is not
    the agent's to read), its first value the default when it is omitted;
    `complete` fills parameters derived from the others (a turn's id from its
    content).
    """

    name: str
    operation: Operation[Any, Any]
    description: str
    fields: Mapping[str, str]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    narrowed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    complete: Callable[[dict[str, object]], None] | None = None

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments: the declaration's schema of the fields it exposes."""
        declared = declared_params(self.operation)
        properties = declared.get("properties", {})
        wanted = set(declared.get("required", ())) | set(self.required)
        narrowed = {
            name: {"type": "string", "enum": list(values), "default": values[0]}
            for name, values in self.narrowed.items()
        }
        return {
            "type": "object",
            "properties": {name: narrowed.get(name, properties[param]) for name, param in self.fields.items()},
            "required": [
                name
                for name, param in self.fields.items()
                if (param in wanted or name in wanted) and name not in self.optional
            ],
            "additionalProperties": False,
        }

    def annotations(self) -> dict[str, bool]:
        """readOnlyHint, destructiveHint (never: nothing a tool does loses memory), idempotentHint."""
        return {
            "readOnlyHint": not self.operation.writes,
            "destructiveHint": False,
            "idempotentHint": self.operation.idempotent,
            "openWorldHint": False,
        }

    def params(self, arguments: Mapping[str, object] | None) -> dict[str, object]:
        """The operation's parameters for a call with `arguments`; `InvalidInput` names an argument it does
        not take or a required one that is missing (the service checks each value itself)."""
        arguments = dict(arguments or {})
        unknown = sorted(set(arguments) - set(self.fields))
        if unknown:
            takes = ", ".join(self.fields) or "no arguments"
            raise InvalidInput(f"{self.name} does not take {', '.join(unknown)} (it takes {takes})")
        missing = [name for name in self.input_schema()["required"] if arguments.get(name) is None]
        if missing:
            raise InvalidInput(f"{self.name} needs {', '.join(missing)}")
        for name, values in self.narrowed.items():
            given = arguments.setdefault(name, values[0])
            if given is None:
                arguments[name] = values[0]
            elif given not in values:
                raise InvalidInput(f"{self.name} takes {name} {' or '.join(values)}, not {given!r}")
        params = {self.fields[name]: value for name, value in arguments.items() if value is not None}
        params.update(self.fixed)
        if self.complete is not None:
            self.complete(params)
        return params

    def argument_name(self, param: str) -> str:
        """The tool's name for the operation's parameter `param` (for the service's messages)."""
        return next((name for name, wire in self.fields.items() if wire == param), param)


def declared_params(operation: Operation[Any, Any]) -> dict[str, Any]:
    """The schema of `operation`'s parameters object (its `$defs` entry)."""
    schema = operation.schema()
    return dict(schema["$defs"].get(operation.params.__name__, {}))


def _same(*names: str) -> dict[str, str]:
    return {name: name for name in names}


def _every(operation: Operation[Any, Any], *, but: tuple[str, ...] = ()) -> dict[str, str]:
    """Every parameter `operation` declares (`but` those), under its own name."""
    return _same(*(f.encode_name for f in msgspec.structs.fields(operation.params) if f.encode_name not in but))


class TurnIds:
    """Ids for turns sent without the assistant's own: derived from the content and the UTC minute the turn
    was first sent in. A retry within `RETRY_SECONDS` of the first sending (a lost answer, a client that
    sends again) is the same turn even when it crosses into the next minute; the same words later ("好的",
    "继续" on another day) are a new one. The first sendings are remembered by this process (the last
    `KEPT`); a retry after the server restarted falls back to the minute it is sent in."""

    RETRY_SECONDS = 60.0
    KEPT = 1024

    def __init__(self) -> None:
        self._first: OrderedDict[str, tuple[datetime, str]] = OrderedDict()  # content digest -> (first sent, minute)
        self._lock = threading.Lock()

    def __call__(self, params: dict[str, object] | dict[str, str], at: datetime | None = None) -> None:
        if params.get("interaction_id") is not None:
            return
        when = (at or clock.now()).astimezone(UTC)
        content = [params.get(key) for key in ("user_text", "assistant_text", "source", "task_id")]
        key = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8")).hexdigest()
        with self._lock:
            first = self._first.get(key)
            if first is not None and 0 <= (when - first[0]).total_seconds() < self.RETRY_SECONDS:
                minute = first[1]
            else:
                minute = when.strftime("%Y-%m-%dT%H:%M")
                self._first[key] = (when, minute)
            self._first.move_to_end(key)
            while len(self._first) > self.KEPT:
                self._first.popitem(last=False)
        digest = hashlib.sha256(json.dumps([*content, minute], ensure_ascii=False).encode("utf-8")).hexdigest()
        params["interaction_id"] = f"mcp-{digest[:32].translate(_LETTERS)}"


# An id is written in letters only: hex digits would make a phone number, a card or an OTP ("2fa2064") in about
# one id of 400, and an id that looks sensitive is refused (the turn would be lost).
_LETTERS = str.maketrans("0123456789", "ghijklmnop")


turn_id = TurnIds()


TOOLS: tuple[Tool, ...] = (
    Tool(
        "memory_recall",
        desk.RECALL,
        "Search the user's long-term memory before answering anything about past work, earlier "
        "conversations, their preferences, projects or people. Matches by meaning and by words. Returns "
        "related earlier turns, task cards, bundles, topics, long-term facts and active skills as JSON lists "
        "(empty lists when nothing relevant is remembered).",
        _every(desk.RECALL),
    ),
    Tool(
        "context_prepare",
        desk.CONTEXT,
        "Get a ready-to-use memory section for your system prompt about a query (facts, skills, related "
        "work), trimmed to at most `budget` characters. Call it at the start of a task when you want "
        "memory as prose rather than lists.",
        {"query": "query", "budget": "budget_chars"},
    ),
    Tool(
        "remember_interaction",
        desk.REMEMBER,
        "Save one finished turn (what the user said and what you answered) to memory. Call it once after "
        "each completed turn. Give `interaction_id` if you have your own id for the turn; without one an id "
        "is derived from the content and the time it was first sent, so resending the same turn within a "
        "minute stores it once, and the same words later are a new turn. Secrets in the text are "
        "redacted before storage. Returns the stored turn's id.",
        _same("user_text", "assistant_text", "interaction_id", "source", "task_id"),
        required=("user_text", "assistant_text"),
        optional=("interaction_id",),
        complete=turn_id,
    ),
    Tool(
        "complete_task",
        desk.TASK_COMPLETE,
        "File a task card when a piece of work is finished: its id, a short title, its status (succeeded, "
        "failed, cancelled or partial) and the result. Sending the same card again changes nothing. Its "
        "bundle folder is updated; returns the card.",
        _same("task_id", "title", "status", "result", "schedule_id", "run_id"),
    ),
    Tool(
        "list_facts",
        maintenance.FACT_LIST,
        "List long-term facts about the user and their work, each with its verbatim evidence, by scope, "
        "status (active, the default: confirmed or in use; or candidate: proposed, not yet confirmed) or "
        "text. Returns a page of facts and the next offset.",
        _every(maintenance.FACT_LIST),
        narrowed={"status": ("active", "candidate")},  # a fact the person withdrew (inactive) is not listed
    ),
    Tool(
        "list_skills",
        maintenance.SKILL_LIST,
        "List the skills the user has activated (procedures they approved for you to follow), with their "
        "steps. Call it before a task that may have a known procedure.",
        {},
        fixed={"status": "active", "audience": "executor"},
    ),
    Tool(
        "list_lessons",
        lessons.LESSON_LIST,
        "List the lessons the user has approved (what went wrong before and how to avoid it).",
        {},
        fixed={"status": "approved"},
    ),
    Tool(
        "list_topics",
        maintenance.TOPIC_LIST,
        "List conversation topics, most recently active first, optionally matching a text or of one "
        "workday (YYYY-MM-DD). Returns a page of topics; read one with get_topic.",
        _every(maintenance.TOPIC_LIST),
    ),
    Tool(
        "get_topic",
        maintenance.TOPIC_GET,
        "Read one topic (an id from list_topics or memory_recall) with its turns, a page at a time.",
        _every(maintenance.TOPIC_GET),
    ),
    Tool(
        "get_bundle",
        desk.BUNDLE_GET,
        "Read a bundle folder (a schedule's or a project's working notes): without `path` its documents "
        "and their revisions, with `path` one document's content and revision. Read a document before "
        "saving it: the save needs the revision you read.",
        _every(desk.BUNDLE_GET),
    ),
    Tool(
        "save_bundle_document",
        desk.DOCUMENT_PUT,
        "Write a document in a bundle folder. `expected_revision` is the revision you read with get_bundle "
        "(0 for a new document). If someone changed it since, nothing is written and the error carries the "
        "current revision and content: merge, then save again with that revision.",
        _same("bundle_id", "path", "content", "expected_revision"),
        fixed={"actor": "agent"},
        required=("bundle_id", "expected_revision"),
    ),
    Tool(
        "resolve_app",
        appkb.RESOLVE,
        "Turn an app name as the user said it (绿泡泡, weixin, 威信) into an Android package. Returns "
        "`resolved` (safe to launch), `ambiguous` (ranked candidates to choose from) or `unknown`.",
        _every(appkb.RESOLVE),
    ),
    Tool(
        "memory_status",
        status.HEALTH,
        "Check that the memory service answers: its version, home, schema and counts of what it holds. "
        "Cheap; call it when another tool reports the service unavailable.",
        {},
    ),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}

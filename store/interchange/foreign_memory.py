"""Memory from the systems people leave, as desk facts: the reference MCP memory server's `memory.jsonl` and
mem0's export JSON (docs/interchange.md).

Each imported memory becomes two things, written together or not at all with actor `import`: a source
interaction holding its text (so that the fact's evidence quotes it verbatim, as every fact's evidence
does), and a fact with that evidence, its `origin` (the system, the file and the memory's own fields,
metadata kept) in its `fact_added` event and its status reason. A fact is `candidate` or `active` by the
rules of a fact learned here (`store.desk.facts`): a profile or project fact is active at once, an
environment fact a candidate until evidence on a second workday. What a mem0 memory is about chooses its
scope unless one is given: a memory of a user (a `user_id`, no agent's) is a profile fact, another a
project fact (of its metadata's `project`). Every text passes the redaction filter. Ids come from the
content, so importing a file again adds only what is new.

A file is read twice, streamed (one line, or one memory, at most a few MiB; memory stays flat): checked
whole first, so a malformed file writes nothing, then prepared into a staging file and published in
slices (`staged_import`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from store.core.clock import is_iso
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.redaction.json_values import redact_json
from store.core.redaction.redactor import Redactor
from store.desk.common import check_id, when
from store.desk.fact_terms import PROFILE_KINDS
from store.desk.facts import MAX_FACT_CHARS, MAX_QUOTE_CHARS, FactSpec, existing
from store.desk.projection import DOMAIN as DESK
from store.interchange.desk_import import ACTOR, KindReport
from store.interchange.import_source import MAX_FILE_BYTES, refuse_links
from store.interchange.json_reading import JsonDocument, MiB, load_json, read_lines, too_long
from store.interchange.staged_import import Committed, Group, StagedEvent, Staging, publish

SYSTEMS = ("mcp-memory", "mem0")
FACT_SCOPES = ("profile", "project", "environment")
MCP_LINE_CAP = 16 * MiB  # an entity line holds all of its observations
MEM0_MEMORY_CAP = MiB  # one memory: a sentence and its metadata
WORK_CATEGORIES = frozenset({"professional_details", "work", "career", "job", "productivity"})
TALK_CATEGORIES = frozenset({"communication", "language", "communication_preferences"})
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ForeignMemory:
    """One memory of another system: its text (the evidence), the fact it states, and where it came from."""

    where: str  # file and line (or number), for a refusal
    key: str  # what identifies it in its system (the source interaction's id is derived from it)
    text: str  # the source interaction's user text
    quote: str  # the part of `text` the fact's evidence quotes
    fact: str  # the fact's content
    origin: dict[str, object]  # the system, the file and the memory's own fields (a fact's `origin`)
    at: str | None  # its time, when the system keeps one
    scope: str = "project"  # the scope it takes when the import is given none
    profile_kind: str | None = None  # its kind, should it be a profile fact (None: the first of PROFILE_KINDS)
    project: str | None = None  # the project fact's project, when its system names one


def _check_file(path: Path) -> Path:
    path = Path(path)
    refuse_links(path)
    if not path.is_file():
        raise NotFound(f"{path} is missing or not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"{path} is larger than {MAX_FILE_BYTES // MiB} MiB")
    return path


def read_mcp_memory(path: Path) -> Iterator[ForeignMemory]:
    """The entities' observations and the relations of a `memory.jsonl`, streamed (each line checked; a line that
    is not an entity or a relation, or longer than its cap, is an error naming its number)."""
    path = _check_file(path)
    name = path.name
    with open(path, "rb") as stream:
        for line in read_lines(stream, MCP_LINE_CAP):
            if line.data is None:
                raise InvalidInput(too_long(name, line, MCP_LINE_CAP))
            if not line.data.strip():
                continue
            where = f"{name} line {line.number}"
            item = load_json(line.data, where)
            yield from _mcp_item(path, where, item)


def _mcp_item(path: Path, where: str, item: object) -> Iterator[ForeignMemory]:
    if not isinstance(item, dict) or item.get("type") not in ("entity", "relation"):
        raise InvalidInput(f'{where}: not an entity or a relation (its "type")')
    if item["type"] == "entity":
        entity, kind, observations = item.get("name"), item.get("entityType"), item.get("observations")
        if not (isinstance(entity, str) and isinstance(kind, str) and isinstance(observations, list)):
            raise InvalidInput(f"{where}: an entity needs name and entityType (strings) and observations (a list)")
        for number, observation in enumerate(observations, start=1):
            if not isinstance(observation, str):
                raise InvalidInput(f"{where}: observation {number} is not a string")
            if not observation.strip():
                continue
            origin: dict[str, object] = {"system": "mcp-memory", "file": str(path)}
            origin.update({"entity": entity, "entityType": kind})
            yield ForeignMemory(
                f"{where} observation {number}",
                f"entity\x1f{entity}\x1f{observation}",
                f"{entity} ({kind}): {observation}",
                observation,
                f"{entity}: {observation}",
                origin,
                None,
            )
        return
    parts = [item.get("from"), item.get("relationType"), item.get("to")]
    if not all(isinstance(p, str) and p.strip() for p in parts):
        raise InvalidInput(f"{where}: a relation needs from, to and relationType (non-empty strings)")
    said = " ".join(str(p) for p in parts)
    origin = {
        "system": "mcp-memory",
        "file": str(path),
        "relation": dict(zip(("from", "relationType", "to"), parts, strict=True)),
    }
    yield ForeignMemory(where, f"relation\x1f{said}", said, said, said, origin, None)


MEM0_FIELDS = ("id", "memory", "user_id", "agent_id", "metadata", "created_at", "updated_at", "categories")


def read_mem0(path: Path) -> Iterator[ForeignMemory]:
    """The memories of a mem0 export, streamed: a JSON list of memories or an object whose `results` is one
    (each checked, numbered from 1; a memory without `id` and `memory`, or longer than its cap, is an error
    naming it)."""
    path = _check_file(path)
    name = path.name
    with JsonDocument.open(path, name, MEM0_MEMORY_CAP) as document:
        opened = document.expect("[{", 'a list of memories or an object with "results"')
        if opened == "[":
            yield from _mem0_list(path, document)
        else:
            found = False
            for key in document.members():
                if key == "results" and document.peek() == "[" and not found:
                    document.expect("[", "a list")
                    found = True
                    yield from _mem0_list(path, document)
                else:
                    document.value(f"{name}: the member {key!r}")  # read past it (mem0 keeps relations there)
            if not found:
                raise InvalidInput(f'{name}: neither a list of memories nor an object with "results"')
        document.end()


def _mem0_list(path: Path, document: JsonDocument) -> Iterator[ForeignMemory]:
    name = path.name
    for number, item in document.items(lambda n: f"{name} memory {n}"):
        memory = _mem0_memory(path, f"{name} memory {number}", item)
        if memory is not None:
            yield memory


def _mem0_memory(path: Path, where: str, item: object) -> ForeignMemory | None:
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: not a JSON object")
    memory_id, memory = item.get("id"), item.get("memory")
    if not isinstance(memory_id, str | int) or isinstance(memory_id, bool) or not str(memory_id).strip():
        raise InvalidInput(f"{where}: its id is missing (a string)")
    if not isinstance(memory, str):
        raise InvalidInput(f"{where}: its memory is missing (a string)")
    if not memory.strip():
        return None
    for field_name in ("user_id", "agent_id", "created_at", "updated_at"):
        if item.get(field_name) is not None and not isinstance(item[field_name], str):
            raise InvalidInput(f"{where}: {field_name} is not a string")
    metadata, categories = item.get("metadata"), item.get("categories")
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidInput(f"{where}: metadata is not an object")
    if categories is not None and not isinstance(categories, list):
        raise InvalidInput(f"{where}: categories is not a list")
    origin = {"system": "mem0", "file": str(path), **{k: item[k] for k in MEM0_FIELDS if item.get(k) is not None}}
    origin["id"] = str(memory_id)
    at = item.get("created_at") if is_iso(item.get("created_at")) else None
    named = {str(c).strip().lower() for c in categories or () if isinstance(c, str)}
    project = metadata.get("project") if isinstance(metadata, dict) else None
    # A profile fact's kind, should it be one: how they work, how they talk, else who they are.
    kind = "work_style" if named & WORK_CATEGORIES else "communication" if named & TALK_CATEGORIES else "identity"
    # What mem0 keeps about a user (no agent's, no project's) is about them: a profile fact.
    scope = "profile" if item.get("user_id") and not item.get("agent_id") and not project else "project"
    return ForeignMemory(
        where,
        f"mem0\x1f{memory_id}",
        memory,
        memory,
        memory,
        origin,
        at,
        scope,
        kind,
        project if isinstance(project, str) and project.strip() else None,
    )


READERS: dict[str, Callable[[Path], Iterator[ForeignMemory]]] = {"mcp-memory": read_mcp_memory, "mem0": read_mem0}


def check_file(system: str, path: Path) -> tuple[int, str]:
    """Read the whole file once (`InvalidInput` naming the first problem, before anything is written): how many
    memories it holds and the SHA-256 of its bytes (to tell it unchanged when it is read again)."""
    if system not in READERS:
        raise InvalidInput(f"the system is one of {', '.join(SYSTEMS)}")
    count = sum(1 for _ in READERS[system](path))
    return count, _sha256(path)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(MiB), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _source_id(system: str, key: str) -> str:
    return f"{system}-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def import_memories(
    store: Store,
    redactor: Redactor,
    system: str,
    path: Path,
    *,
    folder: Path,
    lock: AbstractContextManager[object],
    committed: Committed,
    scope: str | None = None,
    progress: Progress | None = None,
    publishing: Progress | None = None,
) -> KindReport:
    """Check the file whole, prepare its memories as source interactions and facts (`progress` hears them), then
    publish them (`publishing`); see the module docstring. `scope` None: each memory's own (mem0), else
    project."""
    if scope is not None and scope not in FACT_SCOPES:
        raise InvalidInput(f"an imported fact's scope is one of {', '.join(FACT_SCOPES)}")
    path = Path(path)
    total, digest = check_file(system, path)
    report = KindReport()
    preparer = _Preparer(store, redactor, system, scope)
    with Staging(folder, str(path)) as staging:
        for done, memory in enumerate(READERS[system](path), start=1):
            try:
                group = preparer.one(memory)
            except InvalidInput as exc:
                report.refuse(memory.where, str(exc))
            else:
                if group is None:
                    report.skipped += 1
                else:
                    report.added += 1
                    staging.add(group)
            if progress is not None and (done % 200 == 0 or done == total):
                progress(done, total)
        if _sha256(path) != digest:
            raise InvalidInput(f"{path} changed while it was imported; nothing of it was written")
    if not staging.groups:
        staging.discard()
        return report

    def refused(_kind: str, where: str, why: str) -> None:
        report.added -= 1
        report.refuse(where, why)

    publish(store, staging, lock=lock, actor=ACTOR, refused=refused, committed=committed, progress=publishing)
    return report


class _Preparer:
    """Makes each memory's group of events, comparing it with the home and with what this import staged."""

    def __init__(self, store: Store, redactor: Redactor, system: str, scope: str | None) -> None:
        self.store = store
        self.redactor = redactor
        self.system = system
        self.scope = scope
        self.now = when()
        self.turns: dict[str, str] = {}  # interaction id → workday, of the turns this import stages
        self.facts: set[str] = set()
        self.evidence: set[tuple[str, str, str]] = set()

    def _row(self, query: str, *args: object) -> tuple[object, ...] | None:
        row = self.store.db.execute_sql(query, args).fetchone()
        return tuple(row) if row is not None else None

    def one(self, memory: ForeignMemory) -> Group | None:
        """The memory's group, None when the home holds all of it already; `InvalidInput` when it is refused
        (checked whole first: a refused memory stages nothing, not even its source turn)."""
        interaction_id = check_id(_source_id(self.system, memory.key), "interaction_id")
        text = self.redactor.redact(memory.text.strip())
        quote = self.redactor.redact(memory.quote.strip())
        content = " ".join(self.redactor.redact(memory.fact).split())
        if len(content) > MAX_FACT_CHARS:
            raise InvalidInput(f"it is longer than {MAX_FACT_CHARS} characters; a fact is one short sentence")
        if len(quote) > MAX_QUOTE_CHARS:
            raise InvalidInput(
                f"its text is longer than {MAX_QUOTE_CHARS} characters, the most a fact's evidence quotes"
            )
        if quote not in text:  # the filter read the two differently: the evidence would not be verbatim
            raise InvalidInput("its text and its quote differ once redacted; nothing of it is imported")
        scope = self.scope or memory.scope
        kind = (memory.profile_kind or PROFILE_KINDS[0]) if scope == "profile" else None
        project = memory.project if scope == "project" else None
        if project is not None and self.redactor.is_sensitive(project):
            project = None  # a project's name is an id: one that looks sensitive is not kept
        at = when(memory.at) if memory.at else self.now
        spec = FactSpec(scope, content, kind, project, ())
        workday = self.turns.get(interaction_id)
        if workday is None:
            row = self._row("SELECT workday FROM desk_interaction WHERE interaction_id = ?", interaction_id)
            workday = None if row is None else str(row[0])
        events: list[StagedEvent] = []
        if workday is None:
            workday = at.workday
            turn = {
                "interaction_id": interaction_id,
                "ts": at.iso,
                "epoch": at.epoch,
                "workday": at.workday,
                "source": self.system,
                "user_text": text,
                "assistant_text": "",
                "task_id": None,
            }
            events.append((DESK, "interaction_remembered", turn, None))
        found = existing(spec)  # this fact, or a stored one that says the same: it gets the evidence (no twin)
        fact_id = spec.fact_id if found is None else str(found.fact_id)
        held = fact_id in self.facts or found is not None
        if not held:
            status = "candidate" if scope == "environment" else "active"
            origin = redact_json(self.redactor, memory.origin)
            added = {
                "fact_id": fact_id,
                "scope": scope,
                "profile_kind": kind,
                "project": project,
                "content": content,
                "status": status,
                "workday": workday,
                "reason": f"imported from {self.system}"
                + ("; awaiting evidence on a second workday" if status == "candidate" else ""),
                "origin": origin,
            }
            events.append((DESK, "fact_added", added, None))
        seen = (fact_id, interaction_id, quote)
        if seen not in self.evidence and not self._row(
            "SELECT 1 FROM desk_fact_evidence WHERE fact_id = ? AND source_id = ? AND quote = ?", *seen
        ):
            evidence = {
                "fact_id": fact_id,
                "source_kind": "interaction",
                "source_id": interaction_id,
                "speaker": "user",
                "quote": quote,
                "workday": workday,
                "counts": True,
            }
            events.append((DESK, "fact_evidence_added", evidence, None))
        if not events:
            return None
        try:
            json.dumps([e[2] for e in events], allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"it cannot be stored as JSON ({exc}); nothing of it is imported") from None
        self.turns[interaction_id] = workday
        self.facts.add(fact_id)
        self.evidence.add(seen)
        return Group("facts", memory.where, events)

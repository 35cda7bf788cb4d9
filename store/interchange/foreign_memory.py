"""Memory from the systems people leave, as desk facts: the reference MCP memory server's `memory.jsonl` and
mem0's export JSON (docs/interchange.md).

Each imported memory becomes two things, in one transaction with actor `import`: a source interaction
holding its text (so that the fact's evidence quotes it verbatim, as every fact's evidence does), and a
fact with that evidence, its `origin` (the system, the file and the memory's own fields, metadata kept)
in its `fact_added` event and its status reason. A fact is `candidate` or `active` by the rules of a fact
learned here (`store.desk.facts`): a project fact is active at once, an environment fact a candidate
until evidence on a second workday. Every text passes the redaction filter. Ids come from the content,
so importing a file again adds only what is new.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from store.core.clock import is_iso
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.redact import Redactor
from store.core.redact_json import redact_json
from store.desk.common import When, check_id, when
from store.desk.facts import MAX_FACT_CHARS, MAX_QUOTE_CHARS, FactSpec, existing
from store.desk.projection import DOMAIN as DESK
from store.interchange.desk_import import ACTOR, KindReport
from store.interchange.import_source import MAX_FILE_BYTES, refuse_links

SYSTEMS = ("mcp-memory", "mem0")
FACT_SCOPES = ("project", "environment")  # a profile fact comes only from the user's own words, said here


@dataclass(frozen=True)
class ForeignMemory:
    """One memory of another system: its text (the evidence), the fact it states, and where it came from."""

    where: str  # file and line (or index), for a refusal
    key: str  # what identifies it in its system (the source interaction's id is derived from it)
    text: str  # the source interaction's user text
    quote: str  # the part of `text` the fact's evidence quotes
    fact: str  # the fact's content
    origin: dict[str, object]  # the system, the file and the memory's own fields (a fact's `origin`)
    at: str | None  # its time, when the system keeps one


def _read(path: Path) -> bytes:
    path = Path(path)
    refuse_links(path)
    if not path.is_file():
        raise NotFound(f"{path} is missing or not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    return path.read_bytes()


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not UTF-8 (byte {exc.start})") from None


def read_mcp_memory(path: Path) -> list[ForeignMemory]:
    """The entities' observations and the relations of a `memory.jsonl` (each line checked; a line that is
    not an entity or a relation is an error naming its number, and nothing is imported)."""
    text = _decode(path, _read(path))
    name = Path(path).name
    memories: list[ForeignMemory] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(item, dict) or item.get("type") not in ("entity", "relation"):
            raise InvalidInput(f'{where}: not an entity or a relation (its "type")')
        if item["type"] == "entity":
            entity, kind, observations = item.get("name"), item.get("entityType"), item.get("observations")
            if not (isinstance(entity, str) and isinstance(kind, str) and isinstance(observations, list)):
                raise InvalidInput(f"{where}: an entity needs name and entityType (strings) and observations (a list)")
            for index, observation in enumerate(observations):
                if not isinstance(observation, str):
                    raise InvalidInput(f"{where}: observation {index} is not a string")
                if not observation.strip():
                    continue
                origin: dict[str, object] = {
                    "system": "mcp-memory",
                    "file": str(path),
                    "entity": entity,
                    "entityType": kind,
                }
                memories.append(
                    ForeignMemory(
                        f"{where} observation {index}",
                        f"entity\x1f{entity}\x1f{observation}",
                        f"{entity} ({kind}): {observation}",
                        observation,
                        f"{entity}: {observation}",
                        origin,
                        None,
                    )
                )
        else:
            parts = [item.get("from"), item.get("relationType"), item.get("to")]
            if not all(isinstance(p, str) and p.strip() for p in parts):
                raise InvalidInput(f"{where}: a relation needs from, to and relationType (non-empty strings)")
            said = " ".join(str(p) for p in parts)
            origin = {
                "system": "mcp-memory",
                "file": str(path),
                "relation": dict(zip(("from", "relationType", "to"), parts, strict=True)),
            }
            memories.append(ForeignMemory(where, f"relation\x1f{said}", said, said, said, origin, None))
    return memories


MEM0_FIELDS = ("id", "memory", "user_id", "agent_id", "metadata", "created_at", "updated_at", "categories")


def read_mem0(path: Path) -> list[ForeignMemory]:
    """The memories of a mem0 export: a JSON list of memories or an object with `results` (each checked; a
    memory without `id` and `memory` is an error naming its index, and nothing is imported)."""
    text = _decode(path, _read(path))
    name = Path(path).name
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{name}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        value = value["results"]
    if not isinstance(value, list):
        raise InvalidInput(f'{name}: neither a list of memories nor an object with "results"')
    memories: list[ForeignMemory] = []
    for index, item in enumerate(value):
        where = f"{name} memory {index}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: not a JSON object")
        memory_id, memory = item.get("id"), item.get("memory")
        if not isinstance(memory_id, str | int) or isinstance(memory_id, bool) or not str(memory_id).strip():
            raise InvalidInput(f"{where}: its id is missing (a string)")
        if not isinstance(memory, str):
            raise InvalidInput(f"{where}: its memory is missing (a string)")
        if not memory.strip():
            continue
        for field_name in ("user_id", "agent_id", "created_at", "updated_at"):
            if item.get(field_name) is not None and not isinstance(item[field_name], str):
                raise InvalidInput(f"{where}: {field_name} is not a string")
        if item.get("metadata") is not None and not isinstance(item["metadata"], dict):
            raise InvalidInput(f"{where}: metadata is not an object")
        if item.get("categories") is not None and not isinstance(item["categories"], list):
            raise InvalidInput(f"{where}: categories is not a list")
        origin = {"system": "mem0", "file": str(path), **{k: item[k] for k in MEM0_FIELDS if item.get(k) is not None}}
        origin["id"] = str(memory_id)
        at = item.get("created_at") if is_iso(item.get("created_at")) else None
        memories.append(ForeignMemory(where, f"mem0\x1f{memory_id}", memory, memory, memory, origin, at))
    return memories


def _source_id(system: str, key: str) -> str:
    return f"{system}-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def import_memories(
    store: Store,
    redactor: Redactor,
    system: str,
    memories: list[ForeignMemory],
    *,
    scope: str = "project",
    progress: Callable[[int, int], None] | None = None,
) -> KindReport:
    """Write `memories` as source interactions and facts in one transaction (see the module docstring)."""
    if scope not in FACT_SCOPES:
        raise InvalidInput(f"an imported fact's scope is one of {', '.join(FACT_SCOPES)}")
    report = KindReport()
    now = when()
    with store.atomic():
        for done, memory in enumerate(memories, start=1):
            try:
                outcome = _one(store, redactor, system, memory, scope, now)
            except InvalidInput as exc:
                report.refuse(memory.where, str(exc))
                outcome = ""
            if outcome == "added":
                report.added += 1
            elif outcome == "skipped":
                report.skipped += 1
            if progress is not None and (done % 200 == 0 or done == len(memories)):
                progress(done, len(memories))
    return report


def _one(store: Store, redactor: Redactor, system: str, memory: ForeignMemory, scope: str, now: When) -> str:
    """Checked whole before its first event (a refused memory leaves nothing)."""
    interaction_id = check_id(_source_id(system, memory.key), "interaction_id")
    text = redactor.redact(memory.text.strip())
    quote = redactor.redact(memory.quote.strip())
    content = " ".join(redactor.redact(memory.fact).split())
    if len(content) > MAX_FACT_CHARS:
        raise InvalidInput(f"it is longer than {MAX_FACT_CHARS} characters; a fact is one short sentence")
    if len(quote) > MAX_QUOTE_CHARS:
        raise InvalidInput(f"its text is longer than {MAX_QUOTE_CHARS} characters, the most a fact's evidence quotes")
    if quote not in text:  # the filter read the two differently: the evidence would not be verbatim
        raise InvalidInput("its text and its quote differ once redacted; nothing of it is imported")
    at = when(memory.at) if memory.at else now
    spec = FactSpec(scope, content, None, None, ())
    old = store.db.execute_sql(
        "SELECT user_text FROM desk_interaction WHERE interaction_id = ?", (interaction_id,)
    ).fetchone()
    fact = existing(spec)  # this fact, or one here that says the same: it gets the evidence (no twin)
    fact_id = spec.fact_id if fact is None else str(fact.fact_id)
    if old is not None and fact is not None:
        return "skipped"
    if old is None:
        store.append(
            DESK,
            "interaction_remembered",
            {
                "interaction_id": interaction_id,
                "ts": at.iso,
                "epoch": at.epoch,
                "workday": at.workday,
                "source": system,
                "user_text": text,
                "assistant_text": "",
                "task_id": None,
            },
            actor=ACTOR,
        )
    workday = at.workday if old is None else str(old_workday(store, interaction_id))
    if fact is None:
        status = "candidate" if scope == "environment" else "active"
        origin = redact_json(redactor, memory.origin)
        store.append(
            DESK,
            "fact_added",
            {
                "fact_id": fact_id,
                "scope": scope,
                "profile_kind": None,
                "project": None,
                "content": content,
                "status": status,
                "workday": workday,
                "reason": f"imported from {system}"
                + ("; awaiting evidence on a second workday" if status == "candidate" else ""),
                "origin": origin,
            },
            actor=ACTOR,
        )
    seen = store.db.execute_sql(
        "SELECT 1 FROM desk_fact_evidence WHERE fact_id = ? AND source_id = ? AND quote = ?",
        (fact_id, interaction_id, quote),
    ).fetchone()
    if seen is None:
        store.append(
            DESK,
            "fact_evidence_added",
            {
                "fact_id": fact_id,
                "source_kind": "interaction",
                "source_id": interaction_id,
                "speaker": "user",
                "quote": quote,
                "workday": workday,
                "counts": True,
            },
            actor=ACTOR,
        )
    return "added"


def old_workday(store: Store, interaction_id: str) -> str:
    row = store.db.execute_sql(
        "SELECT workday FROM desk_interaction WHERE interaction_id = ?", (interaction_id,)
    ).fetchone()
    return str(row[0])

"""`jiyi doctor`: can this host serve its memory, and do the hosts sharing it agree?

Checks that the database answers at this Jiyi's schema, that the vectors'
server answers, and, on a store several hosts share, that every host that
opened it uses the same Chroma server, the same embedder and the same Jiyi
(each host records those in the database when it opens the store; see
`store.core.hosts`). The same database is implied: the list is read from it.
It also reports the bundle events the view refused (names that would lead
outside the bundles folder, from a restored database or another host: never
written) and the bundle files Jiyi cannot write (a link, a FIFO or another
special file at a document's path, a name the file system refuses). On a
Chroma server, it says whether this store has collections under its own names
yet, and whether the server holds collections an older Jiyi named (before each
store's names began with its id), which no store of this Jiyi reads. And
whether the database holds every change this home acknowledged (its mark,
`store.core.acknowledged`), with any loss accepted knowingly before.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from recall.vectors import older_collections, store_namespace
from service.json_types import JsonObject
from service.memory.parts import Parts
from store.core import acknowledged
from store.core.database import Store
from store.core.hosts import list_hosts
from store.core.migrations import SCHEMA_VERSION
from store.desk import bundles
from store.desk.bundle_files import BundleFiles

AGREE = (("chroma_url", "Chroma server"), ("embed_model", "embedder"), ("version", "Jiyi version"))


@dataclass(frozen=True)
class Check:
    """One check: its name, whether it passed, and what was found."""

    name: str
    ok: bool
    detail: str


def run_checks(parts: Parts, vector_problem: str | None = None) -> list[Check]:
    """The checks of a home opened here; `vector_problem` is what recall knows of its index (None: none)."""
    store, config = parts.store, parts.config
    verdict = store.integrity_check()
    checks = [Check("database", verdict == "ok", f"{store.location}: integrity_check {verdict}")]
    version = store.schema_version
    checks.append(Check("schema", version == SCHEMA_VERSION, f"version {version} (this Jiyi: {SCHEMA_VERSION})"))
    checks.append(acknowledged_check(store))
    if config.chroma_url:
        answers, detail = chroma_answers(config.chroma_url)
        checks.append(Check("vectors", answers, detail))
        if answers:
            checks.append(vector_names_check(config.chroma_url, store.store_id))
    elif store.target.shared:
        checks.append(Check("vectors", False, "in this home only: hosts sharing a database need JIYI_CHROMA_URL"))
    else:
        checks.append(Check("vectors", vector_problem is None, vector_problem or "in this home's vectors/"))
    checks.append(refused_check(bundles.count_refused(), bundles.refused_events(3)))
    if store.read_only:  # nothing can be written: the bundle files' check would only say so file by file
        checks.append(Check("writes", False, store.database_problem() or store.read_only))
    else:
        checks.append(bundle_files_check(BundleFiles(config.bundles_path)))
    if store.target.shared:
        hosts = list_hosts(store.db)
        for key, what in AGREE:
            values = {h["host_id"]: h.get(key) for h in hosts}
            if len(set(values.values())) <= 1:
                detail = f"all {len(values)} hosts: {next(iter(values.values()), '')!r}"
                checks.append(Check(f"same {what}", True, detail))
            else:
                detail = "; ".join(f"{host}: {value!r}" for host, value in values.items())
                checks.append(Check(f"same {what}", False, detail))
    return checks


def acknowledged_check(store: Store) -> Check:
    """Whether the database holds every change this home acknowledged; losses accepted before are named."""
    if store.loss is not None:
        return Check("acknowledged", False, store.loss.refusal(doctor=False))
    accepted = list(store.events(acknowledged.DOMAIN, types=[acknowledged.LOSS_ACCEPTED]))
    before = ""
    if accepted:
        last = accepted[-1].payload
        missing = last.get("missing")
        before = (
            f"; {len(accepted)} {'loss' if len(accepted) == 1 else 'losses'} accepted knowingly, the last at "
            f"{last.get('at')} by {last.get('by')} "
            f"({missing if missing is not None else 'uncounted'} events, {last.get('kind')}, event {accepted[-1].seq})"
        )
    if store.acknowledged_seq is None:
        return Check("acknowledged", True, f"no record of acknowledged changes before this open{before}")
    upto = f"up to event {store.acknowledged_seq}"
    return Check("acknowledged", True, f"the database holds every change this home acknowledged ({upto}){before}")


def vector_names_check(url: str, store_id: str | None) -> Check:
    """Whether this store has its own collections on the Chroma server, and whether an older Jiyi's remain."""
    try:
        namespace = store_namespace(store_id)
        names = chroma_collection_names(url)
    except Exception as exc:  # the server answered its heartbeat: a failure here is worth reporting, not raising
        return Check("vector names", False, f"cannot list the collections on {url}: {exc}")
    own = sum(1 for name in names if name.startswith(namespace))
    older = older_collections(names)
    mine = f"{own} collections of this store (named {namespace}*)"
    if not older:
        return Check("vector names", True, f"{mine}; none named by an older Jiyi")
    if own:
        return Check(
            "vector names",
            True,
            f"{mine}; {len(older)} more named by an older Jiyi, read by no store of this one "
            "(delete them once no host runs an older Jiyi)",
        )
    return Check(
        "vector names",
        False,
        f"{len(older)} collections on {url} were named by an older Jiyi, before each store had its own names, "
        "and this store has none under its own yet: run `jiyi rebuild-vec` once (on each store using this server)",
    )


def refused_check(count: int, first: list[bundles.RefusedEvent]) -> Check:
    """The bundle events the view refused: their names would lead outside the bundles folder."""
    if not count:
        return Check("bundle events", True, "every bundle event names a path inside the bundles folder")
    shown = "".join(f"; event {e['seq']} ({e['type']}): {e['reason']}" for e in first)
    return Check("bundle events", False, f"{count} refused, never written to a file (they stay in the log){shown}")


def bundle_files_check(files: BundleFiles) -> Check:
    """Whether every stored document's file can be written: no link, FIFO or device at its path."""
    bad = bundles.unwritable_documents(files)
    if not bad:
        return Check("bundle files", True, f"every document's file can be written under {files.root}")
    detail = "; ".join(f"{len(names)} {state} ({', '.join(names[:3])})" for state, names in bad.items())
    return Check("bundle files", False, f"{detail}: a link or special file at a document's path is never replaced")


def service_checks(socket: Path, health: JsonObject) -> list[Check]:
    """What `jiyi doctor` can tell while a running service owns the home: what its `health` answers.

    The database's integrity and the hosts' agreement need the home to itself (the service holds it).
    """
    checks = [Check("service", True, f"jiyi serve (pid {health.get('pid')}) answers on {socket}")]
    problem = health.get("database_problem")
    if problem:
        checks.append(Check("database", False, str(problem)))
    else:
        answers = f"{health.get('database')}: answers (integrity: stop the service to check)"
        checks.append(Check("database", True, answers))
    vectors = health.get("vector_index_problem")
    if vectors:
        checks.append(Check("vectors", False, str(vectors)))
    version = health.get("schema_version")
    checks.append(Check("schema", version == SCHEMA_VERSION, f"version {version} (this Jiyi: {SCHEMA_VERSION})"))
    failures = health.get("archive_failures")
    checks.append(Check("archive", not failures, f"{failures or 0} runs the service could not archive"))
    desk = health.get("desk")
    refused = desk.get("bundle_events_refused", 0) if isinstance(desk, dict) else 0
    checks.append(refused_check(refused if isinstance(refused, int) else 0, []))  # the list needs the home to itself
    return checks


def chroma_answers(url: str) -> tuple[bool, str]:
    """Whether the Chroma server at `url` answers its heartbeat (within three seconds)."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/api/v2/heartbeat", timeout=3):
            return True, f"{url} answers"
    except (urllib.error.URLError, OSError) as exc:
        return False, f"{url} does not answer ({getattr(exc, 'reason', exc)})"


def chroma_collection_names(url: str) -> list[str]:
    """Every collection's name on the Chroma server at `url` (its default tenant and database, where Jiyi keeps
    them), in one request of its REST API: no Chroma client to import for a check."""
    listing = f"{url.rstrip('/')}/api/v2/tenants/default_tenant/databases/default_database/collections"
    with urllib.request.urlopen(listing, timeout=10) as answer:
        found = json.loads(answer.read())
    return [str(collection["name"]) for collection in found]

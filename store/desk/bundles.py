"""Bundle folders: the database holds each document and its revision; files are a mirror.

A schedule's first run creates `schedule/<schedule_id>` with its standard
documents; each run adds `runs/<run_id>/summary.md` and refreshes `INDEX.md`
and `state.json`. `put` is optimistic: it names the revision it read, and a
stale one is refused with the current revision and content. After the commit
the file is written atomically; a file that was edited outside Jiyi since it
was mirrored is kept beside it (`<name>.outside-<time>`) and reported, never
silently overwritten.

Names become file names, so they follow the file system's rules: a bundle
key, a run id and a top-level document name are at most `NAME_BYTES` bytes
(a name holds 255; Jiyi adds a suffix to kept outside edits), and paths are
matched whole, without backslashes or control characters. A stored name the
file system refuses anyway (written by an older Jiyi) is reported as the
file state `unwritable` and never stops reading or mirroring the others.
Names read back from the log are checked again before a file is written
(`bundle_names.refusal`): one that could lead outside the bundles folder is
refused, counted and logged, never written (`MirrorReport.refused`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound, SensitiveContent, UnsafePath
from store.core.redaction.json_values import redact_json_text
from store.core.redaction.redactor import Redactor
from store.desk import rows
from store.desk.bundle_files import BundleFiles
from store.desk.bundle_names import MAX_DOCUMENT_CHARS, check_path, refusal, split_bundle_id
from store.desk.common import check_name
from store.desk.models import Bundle, BundleDocument, RefusedBundleEvent, TaskCard
from store.desk.projection import DOMAIN

log = logging.getLogger("jiyi.store.desk")

STANDARD = ("INDEX.md", "requirements.md", "preferences.md", "lessons.md", "state.json")
INDEX_RUNS = 30


@dataclass(frozen=True)
class PutResult:
    bundle_id: str
    path: str
    revision: int
    changed: bool
    content: str
    outside_edit_kept: str | None = None
    mirror_problem: str | None = None  # the document is saved; only its file could not be written


def bundle_id_of(kind: str, key: str) -> str:
    return f"{kind}/{key}"


def list_bundles(store: Store, kind: str | None = None, limit: int = 200, offset: int = 0) -> list[rows.Bundle]:
    query = Bundle.select().order_by(Bundle.updated.desc())
    if kind is not None:
        query = query.where(Bundle.kind == kind)
    out = []
    for row in query.limit(limit).offset(offset):
        docs = BundleDocument.select().where(BundleDocument.bundle_id == row.bundle_id).order_by(BundleDocument.path)
        out.append(
            rows.Bundle(
                bundle_id=row.bundle_id,
                kind=row.kind,
                key=row.key,
                title=row.title,
                created=row.created,
                updated=row.updated,
                documents=[
                    rows.DocumentEntry(path=d.path, revision=d.revision, updated=d.updated, actor=d.actor) for d in docs
                ],
            )
        )
    return out


def get_bundle(store: Store, files: BundleFiles, bundle_id: str, path: str | None = None) -> rows.BundleDetail:
    """A bundle with its documents (all, or the one at `path`), contents and file states."""
    split_bundle_id(bundle_id)
    row = Bundle.get_or_none(Bundle.bundle_id == bundle_id)
    if row is None:
        raise NotFound(f"no bundle {bundle_id!r}")
    query = BundleDocument.select().where(BundleDocument.bundle_id == bundle_id)
    if path is not None:
        query = query.where(BundleDocument.path == check_path(path))
    docs = list(query.order_by(BundleDocument.path))
    if path is not None and not docs:
        raise NotFound(f"bundle {bundle_id} has no document {path!r}")
    return rows.BundleDetail(
        bundle_id=row.bundle_id,
        kind=row.kind,
        key=row.key,
        title=row.title,
        created=row.created,
        updated=row.updated,
        directory=str(files.root / bundle_id),  # where its files are mirrored, checked when written
        documents=[
            rows.Document(
                path=d.path,
                revision=d.revision,
                updated=d.updated,
                actor=d.actor,
                content=d.content,
                file=files.state(bundle_id, d.path, d.content),
            )
            for d in docs
        ],
    )


def put_document(
    store: Store,
    files: BundleFiles,
    redactor: Redactor,
    *,
    bundle_id: str,
    path: str,
    content: object,
    expected_revision: object,
    actor: str,
) -> PutResult:
    """Write one document if `expected_revision` is still current (0 for a new document)."""
    kind, key = split_bundle_id(bundle_id)
    check_name(key, "the bundle key")
    check_path(path)
    _refuse_sensitive_names(redactor, key, path)
    if isinstance(expected_revision, bool) or not isinstance(expected_revision, int) or expected_revision < 0:
        raise InvalidInput("expected_revision must be the revision you read (0 for a new document)")
    if not isinstance(content, str):
        raise InvalidInput("content must be a string")
    if len(content) > MAX_DOCUMENT_CHARS:
        raise InvalidInput(f"a bundle document is at most {MAX_DOCUMENT_CHARS} characters")
    if path == "state.json":
        _check_state(content)
        clean = redact_json_text(redactor, content)
    else:
        clean = redactor.redact(content)
    with store.atomic():
        bundle = Bundle.get_or_none(Bundle.bundle_id == bundle_id)
        if bundle is None and kind == "schedule":
            raise NotFound(f"no bundle {bundle_id!r}: a schedule's bundle is made by its first run (task.complete)")
        current = BundleDocument.get_or_none((BundleDocument.bundle_id == bundle_id) & (BundleDocument.path == path))
        revision = current.revision if current else 0
        if expected_revision != revision:
            raise Conflict(
                f"{bundle_id}/{path} is at revision {revision}, not {expected_revision}; "
                "read it again (the current content is attached) and merge",
                {
                    "bundle_id": bundle_id,
                    "path": path,
                    "revision": revision,
                    "content": current.content if current else None,
                },
            )
        if current is not None and current.content == clean:
            return PutResult(bundle_id, path, revision, False, clean)
        if bundle is None:
            store.append(
                DOMAIN, "bundle_created", {"bundle_id": bundle_id, "kind": kind, "key": key, "title": key}, actor=actor
            )
        _append_put(store, bundle_id, path, clean, revision + 1, actor)
    # A file at an older stored revision lags behind (another host wrote, or a crash or a full disk came
    # between a commit and its file): it is refreshed, not kept as an outside edit.
    earlier = lambda text: stored_before(store, bundle_id, path, text)  # noqa: E731 (read only when needed)
    kept, problem = mirror_document(files, bundle_id, path, clean, current.content if current else None, earlier)
    return PutResult(bundle_id, path, revision + 1, True, clean, kept, problem)


def _refuse_sensitive_names(redactor: Redactor, key: str, path: str) -> None:
    """A bundle key or a run id in a path becomes a directory name: one that looks sensitive is refused."""
    names = [("the bundle key", key)]
    if path.startswith("runs/"):
        names.append(("the run id in the path", path.split("/")[1]))
    for what, name in names:
        if redactor.is_sensitive(name):
            raise SensitiveContent(f"{what} looks sensitive (a number, token or listed word); names are not redacted")


def _check_state(text: str) -> None:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"state.json must be JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidInput("state.json must be a JSON object")


def _append_put(store: Store, bundle_id: str, path: str, content: str, revision: int, actor: str) -> None:
    store.append(
        DOMAIN,
        "bundle_document_put",
        {"bundle_id": bundle_id, "path": path, "revision": revision, "content": content},
        actor=actor,
    )


def stored_before(store: Store, bundle_id: str, path: str, text: str) -> bool:
    """Whether `text` was once the stored content of the document (its puts are in the log under the bundle)."""
    puts = store.events(DOMAIN, subject=bundle_id, types=["bundle_document_put"])
    return any(e.payload.get("path") == path and e.payload.get("content") == text for e in puts)


def mirror_document(
    files: BundleFiles,
    bundle_id: str,
    path: str,
    content: str,
    previous: str | None,
    stored_before: Callable[[str], bool] | None = None,
) -> tuple[str | None, str | None]:
    """Write the file of a committed document: (where an outside edit was kept, why the file could not be written)."""
    try:
        return files.write(bundle_id, path, content, previous, stored_before), None
    except (OSError, UnsafePath, ValueError) as exc:
        # The database is the truth and has the write; a later put or `jiyi rebuild` (`mirror_all`) writes the file.
        log.warning("could not mirror %s/%s: %s", bundle_id, path, exc)
        return None, str(exc)


def _system_put(store: Store, bundle_id: str, path: str, content: str) -> tuple[str, str | None] | None:
    """Inside a transaction: write a Jiyi-maintained document; (content, previous) to mirror, None if unchanged."""
    current = BundleDocument.get_or_none((BundleDocument.bundle_id == bundle_id) & (BundleDocument.path == path))
    if current is not None and current.content == content:
        return None
    _append_put(store, bundle_id, path, content, (current.revision if current else 0) + 1, "system")
    return content, current.content if current else None


Pending = dict[str, tuple[str, str | None]]  # path -> (content, previous content) still to mirror


def record_run(store: Store, card: rows.TaskCard) -> Pending:
    """File a scheduled task's run into its bundle (creating the bundle on the schedule's first run).

    Returns the documents to mirror once the caller's transaction commits
    (`mirror`). The user-owned documents (requirements, preferences, lessons)
    are only created, never overwritten.
    """
    schedule_id, run_id = card.schedule_id, card.run_id
    if schedule_id is None:
        raise InvalidInput("only a scheduled task's run is filed into a bundle")
    bundle_id = bundle_id_of("schedule", schedule_id)
    writes: Pending = {}
    with store.atomic():
        if Bundle.get_or_none(Bundle.bundle_id == bundle_id) is None:
            store.append(
                DOMAIN,
                "bundle_created",
                {"bundle_id": bundle_id, "kind": "schedule", "key": schedule_id, "title": card.title},
                actor="system",
            )
            for path, text in _starter_documents(card).items():
                _append_put(store, bundle_id, path, text, 1, "system")
                writes[path] = (text, None)
        # In this order, each built after the one before it is written: the index lists the new run.
        generated: list[tuple[str, Callable[[], str]]] = [
            (f"runs/{run_id}/summary.md", lambda: _run_summary(card)),
            ("state.json", lambda: _state(schedule_id, card)),
            ("INDEX.md", lambda: _index(bundle_id, card.title)),
        ]
        for path, build in generated:
            change = _system_put(store, bundle_id, path, build())
            if change is not None:
                writes[path] = change
    return writes


@dataclass
class MirrorReport:
    """How many files were written, how many could not be (each is logged; the database has them), and how
    many documents read back from the log were refused: names that could lead outside the bundles folder."""

    written: int = 0
    failed: int = 0
    refused: int = 0
    not_written: list[tuple[str, str]] = field(default_factory=list)  # (bundle id, path) of the failed ones

    def count(self, problem: str | None, document: tuple[str, str] | None = None) -> None:
        if problem is None:
            self.written += 1
        else:
            self.failed += 1
            if document is not None:
                self.not_written.append(document)

    def add(self, other: MirrorReport) -> None:
        self.written += other.written
        self.failed += other.failed
        self.refused += other.refused
        self.not_written += other.not_written


def mirror(files: BundleFiles, bundle_id: str, writes: Pending) -> MirrorReport:
    """Write committed documents to their files; one that cannot be written never stops the others."""
    report = MirrorReport()
    for path, (text, previous) in writes.items():
        report.count(mirror_document(files, bundle_id, path, text, previous)[1], (bundle_id, path))
    return report


def refused_names(bundle_id: object, path: object, where: str) -> bool:
    """Whether a document read back from the log names a path Jiyi never writes (logged when it does)."""
    why = refusal(bundle_id, path)
    if why is not None:
        log.warning("refused to mirror a bundle document from %s: %s", where, why)
    return why is not None


def mirror_since(
    store: Store, files: BundleFiles, after: int, written: dict[str, str] | None = None
) -> tuple[int, MirrorReport]:
    """Mirror the documents put after event `after` (by other hosts of a shared store, or before a crash);
    returns the newest put.

    Each put is written as stored (a file this host left at an older revision is refreshed, not kept
    as an outside edit); a later put of the same document wins, as it did in the database. `written`
    (`bundle_id/path` -> SHA-256 of the content) names what this host wrote itself: such a document
    whose newest put is that content is not written again; every document walked leaves `written`.
    A put whose names fail `bundle_names.refusal` is counted as refused and never written.
    """
    report = MirrorReport()
    newest = after
    latest: dict[tuple[str, str], str] = {}
    for event in store.events(DOMAIN, after=after, types=["bundle_document_put"]):
        newest = event.seq
        p = event.payload
        if not isinstance(p.get("content"), str):
            continue
        if refused_names(p.get("bundle_id"), p.get("path"), f"event {event.seq}"):
            report.refused += 1
            continue
        latest[(p["bundle_id"], p["path"])] = p["content"]
    for (bundle_id, path), content in latest.items():
        own = (written or {}).pop(f"{bundle_id}/{path}", None)
        if own is not None and own == hashlib.sha256(content.encode("utf-8")).hexdigest():
            continue
        earlier = lambda text, b=bundle_id, d=path: stored_before(store, b, d, text)  # noqa: E731
        report.count(mirror_document(files, bundle_id, path, content, None, earlier)[1], (bundle_id, path))
    return newest, report


def _starter_documents(card: rows.TaskCard) -> dict[str, str]:
    title = card.title
    return {
        "requirements.md": f"# 要求 · {title}\n\n（这个日程要做什么、做到什么程度。）\n",
        "preferences.md": f"# 偏好 · {title}\n\n（用户对这个日程的偏好。）\n",
        "lessons.md": f"# 经验 · {title}\n\n（执行中学到的经验。）\n",
    }


def _run_summary(card: rows.TaskCard) -> str:
    status = {"succeeded": "成功", "failed": "失败", "cancelled": "已取消", "partial": "部分完成"}[card.status]
    lines = [
        f"# {card.title}",
        "",
        f"- 运行 run_id: `{card.run_id}`",
        f"- 任务 task_id: `{card.task_id}`",
        f"- 状态: {status} ({card.status})",
        f"- 时间: {card.ts}（工作日 {card.workday}）",
        "",
        card.result or "（没有结果说明）",
        "",
    ]
    return "\n".join(lines)


def _state(schedule_id: str, card: rows.TaskCard) -> str:
    runs = TaskCard.select().where(TaskCard.schedule_id == schedule_id).count()
    state = {
        "schedule_id": schedule_id,
        "title": card.title,
        "runs": runs,
        "last_run_id": card.run_id,
        "last_task_id": card.task_id,
        "last_status": card.status,
        "last_ts": card.ts,
    }
    return json.dumps(state, ensure_ascii=False, indent=2) + "\n"


def _index(bundle_id: str, title: str) -> str:
    docs = [
        d.path
        for d in BundleDocument.select(BundleDocument.path).where(BundleDocument.bundle_id == bundle_id)
        if not d.path.startswith("runs/")
    ]
    runs = (
        BundleDocument.select(BundleDocument.path, BundleDocument.updated)
        .where((BundleDocument.bundle_id == bundle_id) & BundleDocument.path.startswith("runs/"))
        .order_by(BundleDocument.updated.desc())
        .limit(INDEX_RUNS)
    )
    lines = [f"# {title}", "", f"资料夹 `{bundle_id}`。数据库是权威状态，这些文件是它的镜像。", "", "## 文档", ""]
    lines += [f"- [{p}]({p})" for p in sorted(set(docs) | set(STANDARD))]
    lines += ["", "## 最近的运行", ""]
    lines += [f"- [{r.path.split('/')[1]}]({r.path}) · {r.updated[:19]}" for r in runs] or ["- （还没有）"]
    return "\n".join(lines) + "\n"


def mirror_all(store: Store, files: BundleFiles) -> MirrorReport:
    """Write every document whose file is missing (after a crash between commit and mirror, or a wiped folder).

    A document whose file cannot be written (a name the file system refuses, a
    full disk) is logged and counted, and the others are still written; one
    whose names fail `bundle_names.refusal` (a view made by an older Jiyi) is
    refused, never written.
    """
    files.make_private()
    report = MirrorReport()
    for doc in BundleDocument.select():
        if refused_names(doc.bundle_id, doc.path, "the view"):
            report.refused += 1
            continue
        state = files.state(doc.bundle_id, doc.path, doc.content)
        if state == "missing":
            report.count(mirror_document(files, doc.bundle_id, doc.path, doc.content, None)[1])
        elif state in ("unwritable", "unsafe"):
            log.warning("cannot mirror %s/%s: its file is %s", doc.bundle_id[:80], doc.path[:80], state)
            report.count(state, (doc.bundle_id, doc.path))
    return report


def unwritable_documents(files: BundleFiles, shown: int = 120) -> dict[str, list[str]]:
    """Stored documents whose file cannot be written, by state ("unsafe": a link, FIFO or device at the path;
    "unwritable"), each as `bundle_id/path` cut to `shown` characters."""
    bad: dict[str, list[str]] = {}
    for doc in BundleDocument.select(BundleDocument.bundle_id, BundleDocument.path, BundleDocument.content):
        state = files.state(doc.bundle_id, doc.path, doc.content)
        if state in ("unsafe", "unwritable"):
            bad.setdefault(state, []).append(f"{doc.bundle_id}/{doc.path}"[:shown])
    return bad


def count_refused() -> int:
    """How many bundle events the view refused to apply (see `projection.DeskProjection._refused`)."""
    return int(RefusedBundleEvent.select().count())


class RefusedEvent(TypedDict):
    """A bundle event the view refused (`refused_events`)."""

    seq: int
    type: str
    bundle_id: str
    path: str
    reason: str  # why its names were refused
    ts: str


def refused_events(limit: int = 20) -> list[RefusedEvent]:
    """The first `limit` refused bundle events: seq, type, bundle id, path, why, when."""
    return [
        {"seq": r.seq, "type": r.type, "bundle_id": r.bundle_id, "path": r.path, "reason": r.reason, "ts": r.ts}
        for r in RefusedBundleEvent.select().order_by(RefusedBundleEvent.seq).limit(limit)
    ]

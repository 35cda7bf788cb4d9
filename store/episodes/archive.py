"""The episode archive (docs/recall.md): runs and their tool events.

Domain `experience` of the event log. Record types, as the reference writes
them: `experience_event` (a tool receipt), `episode_outcome` (a run's end; the
last one per run wins), `episode_archived` (runs folded into per-category
aggregates). Jiyi adds `episode_revoked` / `episode_restored` (whether recall
may use an episode). The view — `episode`, `episode_app`, `tool_event`,
`episode_aggregate` — is rebuilt from these by replay.

A record imported from the reference carries its original line (`source_line`)
so an export gives back the same bytes; the view never shows it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec
from peewee import Tuple

from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.models import BaseModel
from store.core.projection import EventRecord
from store.episodes.episode_filter import EpisodeFilter
from store.episodes.models import Episode, EpisodeAggregate, EpisodeApp, ToolEvent
from store.episodes.rows import Episode as EpisodeRow
from store.episodes.rows import EpisodeDetail, ToolEventRow
from store.episodes.run_event import ExperienceEvent, check_run_id
from store.episodes.schema import EpisodeOutcome

log = logging.getLogger("jiyi.store.episodes")

DOMAIN = "experience"
AGGREGATE_FIELDS = ("episodes", "successes", "success_rate", "ts_start", "ts_end")
SOURCE_LINE = "source_line"


def view_record(payload: dict[str, object]) -> dict[str, object]:
    """An archived record as the view and its readers see it: without the imported line it came from."""
    if SOURCE_LINE not in payload:
        return payload
    return {k: v for k, v in payload.items() if k != SOURCE_LINE}


class EpisodeProjection:
    """The store's projection for the `experience` domain."""

    domain = DOMAIN
    version = 2
    models: Sequence[type[BaseModel]] = (Episode, EpisodeApp, ToolEvent, EpisodeAggregate)

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        run_id = payload.get("run_id")
        return run_id if isinstance(run_id, str) else None

    def apply(self, event: EventRecord) -> None:
        self.apply_many([event])

    def apply_many(self, events: Sequence[EventRecord]) -> None:
        """Apply events in log order, with a statement per kind of row for many at once (a bulk ingest and one
        event take the same path, so the view is the same either way).

        Tool events touch nothing else, so they go in one batch; outcomes are
        batched between the events that must see them in order (revoke,
        restore, fold), the last outcome of a run in a batch winning.
        """
        tools: list[tuple[object, ...]] = []
        outcomes: dict[str, dict[str, object]] = {}
        for event in events:
            p = event.payload
            if event.type == "experience_event":
                if isinstance(p.get("run_id"), str):
                    tools.append(_tool_row(event.seq, p))
            elif event.type == "episode_outcome":
                run_id = p.get("run_id")
                if isinstance(run_id, str) and run_id:
                    outcomes.pop(run_id, None)  # keep the batch in log order: the newest last
                    outcomes[run_id] = view_record(p)
            else:
                _put_outcomes(list(outcomes.values()))
                outcomes = {}
                self._apply_other(event)
        _put_outcomes(list(outcomes.values()))
        if tools:
            # An upsert both back ends speak (SQLite's INSERT OR REPLACE is not PostgreSQL's).
            Episode._meta.database.execute_many(
                "INSERT INTO tool_event"
                " (seq, run_id, step, ts, tool, result_class, app_package, intent, note) VALUES (?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT (seq) DO UPDATE SET run_id = excluded.run_id, step = excluded.step, ts = excluded.ts,"
                " tool = excluded.tool, result_class = excluded.result_class, app_package = excluded.app_package,"
                " intent = excluded.intent, note = excluded.note",
                tools,
            )

    def _apply_other(self, event: EventRecord) -> None:
        p = event.payload
        if event.type in ("episode_revoked", "episode_restored"):
            if isinstance(p.get("run_id"), str):
                revoked = event.type == "episode_revoked"
                Episode.update(revoked=revoked).where(Episode.run_id == p["run_id"]).execute()
        elif event.type == "episode_archived":
            self._archive(p)

    @staticmethod
    def _archive(p: Mapping[str, object]) -> None:
        run_ids = _strings(p.get("run_ids"))
        for start in range(0, len(run_ids), 500):
            chunk = run_ids[start : start + 500]
            Episode.delete().where(Episode.run_id.in_(chunk)).execute()
            EpisodeApp.delete().where(EpisodeApp.run_id.in_(chunk)).execute()
        aggregates = p.get("aggregates")
        if isinstance(aggregates, dict):
            EpisodeAggregate.delete().execute()
            for key, value in aggregates.items():
                category = key.removeprefix("aggregate:")
                if isinstance(value, dict) and category:
                    EpisodeAggregate.insert(
                        category=category,
                        record=json.dumps(value, ensure_ascii=False),
                        **{f: value.get(f, 0) for f in AGGREGATE_FIELDS},
                    ).execute()


_CHUNK = 500  # run ids per IN (...): under SQLite's parameter cap


def _strings(value: object) -> list[str]:
    """The texts of a record's list (run ids, packages); nothing when it holds no list."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list | tuple) else []


def _tool_row(seq: int, p: Mapping[str, object]) -> tuple[object, ...]:
    """A `tool_event` row as `EpisodeProjection.apply` writes it."""
    return (
        seq,
        p["run_id"],
        p.get("step", 0),
        p.get("ts", 0.0),
        p.get("tool", "unknown"),
        p.get("result_class", "error"),
        p.get("app_package"),
        p.get("intent"),
        p.get("note"),
    )


def _put_outcomes(outcomes: list[dict[str, object]]) -> None:
    """Put runs' outcomes (each run once) in the view: the newest outcome of a run replaces its row and its
    apps, and a revoked run stays revoked. A few statements for any number of runs."""
    if not outcomes:
        return
    db = Episode._meta.database
    run_ids = [str(p["run_id"]) for p in outcomes]
    revoked: set[str] = set()
    for start in range(0, len(run_ids), _CHUNK):
        chunk = run_ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        found = db.execute_sql(f"SELECT run_id FROM episode WHERE revoked AND run_id IN ({marks})", chunk)
        revoked.update(r for (r,) in found)
        db.execute_sql(f"DELETE FROM episode_app WHERE run_id IN ({marks})", chunk)
    rows: list[tuple[object, ...]] = []
    apps: list[tuple[str, str]] = []
    for p in outcomes:
        run_id = str(p["run_id"])
        packages = _strings(p.get("apps"))
        rows.append(
            (
                run_id,
                p.get("ts_start", 0.0),
                p.get("ts_end", 0.0),
                p.get("device_scope", "device:unknown"),
                p.get("goal_text", ""),
                packages[0] if packages else None,
                bool(p.get("success")),
                p.get("reason", ""),
                p.get("steps", 0),
                p.get("tokens_total", 0),
                p.get("verifier", "skipped"),
                run_id in revoked,
                json.dumps(p, ensure_ascii=False, sort_keys=True),
            )
        )
        apps.extend((run_id, a) for a in dict.fromkeys(packages))
    db.execute_many(
        "INSERT INTO episode (run_id, ts_start, ts_end, device_scope, goal_text, first_app, success,"
        " reason, steps, tokens_total, verifier, revoked, record) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (run_id) DO UPDATE SET ts_start = excluded.ts_start, ts_end = excluded.ts_end,"
        " device_scope = excluded.device_scope, goal_text = excluded.goal_text, first_app = excluded.first_app,"
        " success = excluded.success, reason = excluded.reason, steps = excluded.steps,"
        " tokens_total = excluded.tokens_total, verifier = excluded.verifier, revoked = excluded.revoked,"
        " record = excluded.record",
        rows,
    )
    db.execute_many("INSERT INTO episode_app (run_id, package) VALUES (?, ?)", apps)


# -- writes ----------------------------------------------------------------------------


def record_event(store: Store, event: ExperienceEvent, *, actor: str) -> int:
    """Archive one tool receipt; returns its seq."""
    with store.atomic():
        return store.append(DOMAIN, "experience_event", event.to_dict(), actor=actor).seq


def record_outcome(store: Store, outcome: EpisodeOutcome, *, actor: str) -> int:
    """Archive a run's outcome (a later one for the same run replaces it); returns its seq."""
    with store.atomic():
        return store.append(DOMAIN, "episode_outcome", outcome.to_dict(), actor=actor).seq


def record_many(store: Store, records: Sequence[dict[str, object]], *, actor: str) -> list[EventRecord]:
    """Archive many validated records (`experience_event`, `episode_outcome` ... each with its `type`), in
    order, in one transaction (a bulk ingest); returns the events appended.

    The log and the view end as they would after `record_event` / `record_outcome` for each in turn.
    """
    with store.atomic():
        return store.append_many(DOMAIN, [(str(r["type"]), r) for r in records], actor=actor)


def set_revoked(store: Store, run_id: str, revoked: bool, *, actor: str, reason: str | None = None) -> int:
    """Take an episode out of recall (or put it back), as an event."""
    run_id = check_run_id(run_id)
    with store.atomic():
        row = Episode.get_or_none(Episode.run_id == run_id)
        if row is None:
            raise NotFound(f"no episode {run_id!r}")
        payload: dict[str, object] = {"run_id": run_id}
        if reason:
            payload["reason"] = reason[:200]
        kind = "episode_revoked" if revoked else "episode_restored"
        return store.append(DOMAIN, kind, payload, actor=actor).seq


# -- reads -----------------------------------------------------------------------------


def _filtered(f: EpisodeFilter, query: Any = None) -> Any:
    """`query` (all of an episode's columns by default) narrowed by `f`."""
    query = Episode.select() if query is None else query
    if f.text:
        query = query.where(Episode.goal_text.contains(f.text))
    if f.app:
        query = query.where(Episode.run_id.in_(EpisodeApp.select(EpisodeApp.run_id).where(EpisodeApp.package == f.app)))
    if f.device:
        query = query.where(Episode.device_scope == f"device:{f.device}")
    if f.success is not None:
        query = query.where(Episode.success == f.success)
    if f.since is not None:
        query = query.where(Episode.ts_end >= f.since)
    if f.until is not None:
        query = query.where(Episode.ts_end < f.until)
    if f.revoked is not None:
        query = query.where(Episode.revoked == f.revoked)
    return query


EpisodeKey = tuple[float, str]
"""Where an episode stands in the listing's order: its `(ts_end, run_id)` (the `episode_recent` index's)."""


def episode_key(episode: EpisodeRow) -> EpisodeKey:
    """The listing key of an episode as `list_episodes` returns it."""
    return (episode.ts_end, episode.run_id)


def list_episodes(
    store: Store, f: EpisodeFilter, *, limit: int = 100, offset: int = 0, after: EpisodeKey | None = None
) -> list[EpisodeRow]:
    """Episodes newest first, filtered and paged in SQL; each the outcome plus `revoked`.

    `after` pages by key (keyset paging): only episodes older in the listing's order than the one with that
    key, so a page asked after a newer run arrived neither repeats a row nor skips one, as an offset would.
    """
    if limit < 1 or offset < 0:
        raise InvalidInput("limit must be >= 1 and offset >= 0")
    newest = (Episode.ts_end.desc(), Episode.run_id.desc())
    # The page's run ids first, newest first from the (ts_end, run_id, goal_text) index: the scan stops once
    # the page is full, and the goal filter is tested on the index's copy of each goal (PostgreSQL, too,
    # would otherwise read every row with its record when few goals match); then those rows' records.
    page = _filtered(f, Episode.select(Episode.run_id))
    if after is not None:
        page = page.where(Tuple(Episode.ts_end, Episode.run_id) < Tuple(float(after[0]), str(after[1])))
    page = page.order_by(*newest).limit(limit).offset(offset)
    rows: Any = Episode.select(Episode.record, Episode.revoked).where(Episode.run_id.in_(page)).order_by(*newest)
    return msgspec.convert(
        [{**json.loads(record), "revoked": bool(revoked)} for record, revoked in rows.tuples()], list[EpisodeRow]
    )


def count_episodes(store: Store, f: EpisodeFilter | None = None) -> int:
    return int(_filtered(f or EpisodeFilter()).count())


_INDEXABLE = "FROM episode WHERE NOT revoked AND steps >= ? AND trim(goal_text) != ''"


def count_indexable(store: Store, min_steps: int) -> int:
    """Live episodes through recall's quality gate (a goal and `min_steps` steps): what the index should hold."""
    return int(store.db.execute_sql(f"SELECT count(*) {_INDEXABLE}", (min_steps,)).fetchone()[0])


def indexable_scopes(store: Store, min_steps: int) -> list[str]:
    """The device scopes of the episodes the index should hold."""
    return [r[0] for r in store.db.execute_sql(f"SELECT DISTINCT device_scope {_INDEXABLE} ORDER BY 1", (min_steps,))]


def indexable_pages(
    store: Store, min_steps: int, device_scope: str, page: int = 5000
) -> Iterator[list[dict[str, object]]]:
    """The episodes of one device the index should hold, oldest first, `page` at a time."""
    after: tuple[float, str] = (float("-inf"), "")
    while True:
        rows = store.db.execute_sql(
            f"SELECT ts_end, run_id, record {_INDEXABLE} AND device_scope = ? AND (ts_end, run_id) > (?, ?)"
            " ORDER BY ts_end, run_id LIMIT ?",
            (min_steps, device_scope, *after, page),
        ).fetchall()
        if not rows:
            return
        yield [json.loads(r[2]) for r in rows]
        after = (rows[-1][0], rows[-1][1])


def live_pages(store: Store, page: int = 256) -> Iterator[list[dict[str, object]]]:
    """Every live (not revoked) episode, by run id, `page` at a time: each page is one short keyset query
    (`run_id > last`), so a long reader never holds a transaction and rows written meanwhile never shift it."""
    after = ""
    while True:
        rows = (
            Episode.select(Episode.run_id, Episode.record)
            .where((Episode.revoked == False) & (Episode.run_id > after))  # noqa: E712 (peewee builds SQL from ==)
            .order_by(Episode.run_id)
            .limit(page)
        )
        found = [(row.run_id, row.record) for row in rows]
        if not found:
            return
        yield [{**json.loads(record), "revoked": False} for _, record in found]
        after = found[-1][0]


# The events that change what the index should hold: an outcome, a revoke or restore, a fold.
_INDEX_EVENTS = ("episode_outcome", "episode_revoked", "episode_restored", "episode_archived")


def runs_changed_after(store: Store, seq: int) -> tuple[set[str], int]:
    """The runs whose outcome, revocation or folding changed after event `seq`, and the newest seq read."""
    runs: set[str] = set()
    last = seq
    for event in store.events(DOMAIN, after=seq, types=_INDEX_EVENTS):
        last = event.seq
        if isinstance(event.payload.get("run_id"), str):
            runs.add(event.payload["run_id"])
        runs.update(r for r in event.payload.get("run_ids", []) if isinstance(r, str))
    return runs, last


def current_records(store: Store, run_ids: Sequence[str]) -> dict[str, dict[str, object]]:
    """The view's outcome (plus `revoked`) of each of `run_ids` still archived; folded or unknown runs are absent."""
    out: dict[str, dict[str, object]] = {}
    ids = list(run_ids)
    for start in range(0, len(ids), _CHUNK):
        for row in Episode.select().where(Episode.run_id.in_(ids[start : start + _CHUNK])):
            out[row.run_id] = {**json.loads(row.record), "revoked": bool(row.revoked)}
    return out


def get_episode(store: Store, run_id: str) -> EpisodeDetail:
    """One episode with its tool-event timeline (in step order)."""
    run_id = check_run_id(run_id)
    row = Episode.get_or_none(Episode.run_id == run_id)
    if row is None:
        raise NotFound(f"no episode {run_id!r}")
    events = ToolEvent.select().where(ToolEvent.run_id == run_id).order_by(ToolEvent.step, ToolEvent.seq)
    timeline = [
        ToolEventRow(
            step=e.step,
            ts=e.ts,
            tool=e.tool,
            result_class=e.result_class,
            app_package=e.app_package,
            intent=e.intent,
            note=e.note,
        )
        for e in events
    ]
    return msgspec.convert({**json.loads(row.record), "revoked": bool(row.revoked), "events": timeline}, EpisodeDetail)


def aggregates(store: Store) -> dict[str, dict[str, object]]:
    """`aggregate:<category>` → the aggregate of folded episodes, as its archive record gave it (the
    reference's `episode_aggregate` with `type` and `schema_v`)."""
    out: dict[str, dict[str, object]] = {}
    for row in EpisodeAggregate.select().order_by(EpisodeAggregate.category):
        record = json.loads(row.record or "{}")
        out[f"aggregate:{row.category}"] = record or {
            "task_category": row.category,
            **{f: getattr(row, f) for f in AGGREGATE_FIELDS},
        }
    return out


def episode_view(store: Store) -> dict[str, dict[str, object]]:
    """The reference's `episodes.json`: outcomes keyed by run_id, plus the aggregate keys."""
    view: dict[str, dict[str, object]] = {}
    for row in Episode.select().order_by(Episode.ts_end, Episode.run_id):
        view[row.run_id] = json.loads(row.record)
    view.update(aggregates(store))
    return view

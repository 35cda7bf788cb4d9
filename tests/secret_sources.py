"""Files of other systems and of another Jiyi holding secrets, for the imports of the secret corpus.

`desk_export` writes a `jiyi export desk` directory (docs/interchange.md) in
which every text field of every kind holds one of the texts: a turn, a task
card, a topic, a fact with its evidence and origin, a draft skill, a bundle
(a Markdown document and a `state.json`) and a learned record per text.
`mcp_memory` and `mem0` write the files `jiyi import mcp-memory` and
`jiyi import mem0` read, each text an observation, a relation and a memory
with its metadata.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from store.interchange import desk_format

TS = "2026-03-02T09:30:00+00:00"
EPOCH = 1772443800.0
DAY = "2026-03-02"


def _unit(index: int, text: str) -> dict[str, dict[str, Any]]:
    """One record of each kind, every text field holding `text` (ids are plain: ids are checked, not redacted)."""
    turn = f"imported-turn-{index}"
    said = f"备注 {text} 结束"
    return {
        "interactions": {
            "interaction_id": turn,
            "ts": TS,
            "epoch": EPOCH + index,
            "workday": DAY,
            "source": "desk",
            "user_text": said,
            "assistant_text": f"记下了：{text}",
            "task_id": None,
        },
        "task_cards": {
            "task_id": f"imported-task-{index}",
            "title": said,
            "status": "succeeded",
            "result": said,
            "schedule_id": None,
            "run_id": None,
            "interaction_id": turn,
            "source": "desk",
            "ts": TS,
            "epoch": EPOCH + index,
            "workday": DAY,
        },
        "topics": {
            "topic_id": f"imported-topic-{index}",
            "title": said,
            "summary": said,
            "kind": "task",
            "task_ids": [],
            "created": TS,
            "updated": TS,
            "updated_epoch": EPOCH + index,
            "first_workday": DAY,
            "interactions": [{"interaction_id": turn, "workday": DAY, "epoch": EPOCH + index}],
            "segments": [{"workday": DAY, "summary": said, "updated": TS}],
        },
        "facts": {
            "fact_id": f"imported-fact-{index}",
            "scope": "profile",
            "profile_kind": "work_style",
            "project": None,
            "content": f"用户说{said}",
            "status": "active",
            "status_reason": said,
            "first_workday": DAY,
            "created": TS,
            "updated": TS,
            "origin": {"system": "desk", "note": said},
            "evidence": [
                {
                    "source_kind": "interaction",
                    "source_id": turn,
                    "speaker": "user",
                    "quote": said,
                    "workday": DAY,
                    "ts": TS,
                    "counts": True,
                }
            ],
        },
        "skills": {
            "skill_id": f"imported-skill-{index}",
            "name": f"导入的技能{index}",
            "text": said,
            "status": "draft",
            "source_interaction_id": turn,
            "source_quote": said,
            "created": TS,
            "updated": TS,
            "decided_by": "",
            "user_request": "",
        },
        "bundles": {
            "bundle_id": f"project/imported-{index}",
            "kind": "project",
            "key": f"imported-{index}",
            "title": f"导入的资料夹{index}",
            "created": TS,
            "updated": TS,
            "documents": [
                {"path": "notes.md", "revisions": [{"revision": 1, "content": said, "ts": TS, "actor": "agent"}]},
                {
                    "path": "state.json",
                    "revisions": [
                        {"revision": 1, "content": json.dumps({"note": said, "n": index}), "ts": TS, "actor": "agent"}
                    ],
                },
            ],
        },
        "learned": {
            "record_id": f"rec_imported{index:04d}",
            "version": 1,
            "grant_id": "learn-import",
            "kind": "fact.profile",
            "content": f"用户说{said}",
            "state": "active",
            "managed": False,
            "target": f"fact:imported-fact-{index}",
            "provenance": {"quotations": [said], "review_reason": said},
            "bytes": len(said.encode()),
            "expires_at": "2027-03-02T09:30:00+00:00",
            "created": TS,
            "updated": TS,
            "reason": said,
        },
    }


def desk_export(root: Path, texts: Sequence[str]) -> Path:
    """A desk export directory at `root` with one record of each kind per text (see the module docstring)."""
    root.mkdir(mode=0o700, parents=True)
    records: dict[str, list[dict[str, Any]]] = {kind: [] for kind in desk_format.KINDS}
    for index, text in enumerate(texts):
        for kind, record in _unit(index, text).items():
            records[kind].append(record)
    files = {}
    for kind, lines in records.items():
        name = desk_format.file_name(kind)
        content = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (root / name).write_text(content, "utf-8")
        files[name] = {"kind": kind, "count": len(lines), "sha256": hashlib.sha256(content.encode()).hexdigest()}
    manifest = {"format": desk_format.FORMAT, "schema_version": desk_format.SCHEMA_VERSION, "files": files}
    (root / desk_format.MANIFEST).write_text(json.dumps(manifest), "utf-8")
    return root


def mcp_memory(path: Path, texts: Sequence[str]) -> Path:
    """A `memory.jsonl` of the reference MCP memory server: per text an entity observing it and a relation."""
    lines = []
    for index, text in enumerate(texts):
        lines.append({"type": "entity", "name": f"note{index}", "entityType": "note", "observations": [text]})
        lines.append({"type": "relation", "from": f"note{index}", "relationType": f"says {text}", "to": "user"})
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), "utf-8")
    return path


def mem0(path: Path, texts: Sequence[str]) -> Path:
    """A mem0 export: per text a memory, its metadata and categories holding it too."""
    memories = [
        {
            "id": f"mem-{index}",
            "memory": f"备注 {text} 结束",
            "user_id": "user",
            "metadata": {"note": text},
            "categories": [text],
            "created_at": "2026-03-02T09:30:00Z",
        }
        for index, text in enumerate(texts)
    ]
    path.write_text(json.dumps(memories, ensure_ascii=False), "utf-8")
    return path

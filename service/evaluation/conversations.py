"""Labelled conversations for `jiyi eval memory`: LoCoMo's files and a plain format, read into one shape.

* LoCoMo (Maharana et al., ACL 2024): `session_N` lists turns `{speaker, dia_id, text[, blip_caption]}`,
  `session_N_date_time` its date ("1:56 pm on 8 May, 2023"), `qa` the questions with `evidence` (dia_ids)
  and `category` (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). Two consecutive
  turns make one interaction, at its session's date (a second apart, in order); category 5 is kept but
  marked unscored (its premise is false; docs/desk-memory.md).
* Plain: `{"interactions": [{id, ts, user_text, assistant_text}], "questions": [{q, evidence: [ids],
  category}]}`; a question whose `evidence` is empty has no answer in memory.

A file that is neither, or breaks its format, is refused with the file and the place named.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from store.core.errors import InvalidInput

UNSCORED = frozenset({"adversarial"})
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    id: str
    ts: str
    user_text: str
    assistant_text: str


@dataclass(frozen=True)
class Question:
    q: str
    evidence: frozenset[str]  # interaction ids; empty: nothing in memory answers it
    category: str


@dataclass(frozen=True)
class Conversation:
    name: str
    interactions: list[Turn]
    questions: list[Question]


def read(path: Path) -> Conversation:
    """One conversation file, LoCoMo's or plain (see the module docstring)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"cannot read the conversation file {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"the conversation file {path} is not JSON: {exc}") from None
    if isinstance(data, dict) and "interactions" in data:
        return _plain(path, data)
    if isinstance(data, dict) and "qa" in data and any(_SESSION.match(k) for k in data):
        return _locomo(path, data)
    raise InvalidInput(
        f"the conversation file {path} is neither LoCoMo's (session_N, qa) nor the plain format "
        "({interactions: [...], questions: [...]})"
    )


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{where} must be text")
    return value


def _plain(path: Path, data: dict[str, object]) -> Conversation:
    turns = []
    raw_turns = data.get("interactions")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise InvalidInput(f"{path}: interactions must be a non-empty list")
    for n, item in enumerate(raw_turns):
        where = f"{path}: interactions[{n}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} must be an object")
        turns.append(
            Turn(
                _text(item.get("id"), f"{where}.id"),
                _text(item.get("ts"), f"{where}.ts"),
                _text(item.get("user_text", ""), f"{where}.user_text"),
                _text(item.get("assistant_text", ""), f"{where}.assistant_text"),
            )
        )
    ids = {t.id for t in turns}
    questions = []
    raw_questions = data.get("questions")
    if not isinstance(raw_questions, list):
        raise InvalidInput(f"{path}: questions must be a list")
    for n, item in enumerate(raw_questions):
        where = f"{path}: questions[{n}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} must be an object")
        evidence = item.get("evidence", [])
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise InvalidInput(f"{where}.evidence must be a list of interaction ids")
        unknown = [e for e in evidence if e not in ids]
        if unknown:
            raise InvalidInput(f"{where}.evidence names {unknown[0]!r}, which is not among the interactions")
        category = str(item.get("category") or "all")
        questions.append(Question(_text(item.get("q"), f"{where}.q"), frozenset(evidence), category))
    return Conversation(Path(path).stem, turns, questions)


def _session_date(value: object, where: str) -> datetime:
    try:
        return datetime.strptime(str(value).strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput(f"{where} is not a date like '1:56 pm on 8 May, 2023': {value!r}") from None


def _said(turn: dict[str, object]) -> str:
    text = f"{turn.get('speaker', '')}: {turn.get('text', '')}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def _objects(value: object, where: str) -> list[dict[str, object]]:
    """`value`, a list of JSON objects, or `InvalidInput` naming `where`."""
    if not isinstance(value, list):
        raise InvalidInput(f"{where} must be a list")
    for n, item in enumerate(value):
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}[{n}] must be an object")
    return value


def _locomo(path: Path, data: dict[str, object]) -> Conversation:
    name = Path(path).stem
    turns: list[Turn] = []
    owner: dict[str, str] = {}  # dia_id -> interaction id
    sessions = sorted(int(m.group(1)) for k in data if (m := _SESSION.match(k)))
    for number in sessions:
        if not isinstance(data[f"session_{number}"], list):
            raise InvalidInput(f"{path}: session_{number} must be a list of turns")
        session = _objects(data[f"session_{number}"], f"{path}: session_{number}")
        start = _session_date(data.get(f"session_{number}_date_time"), f"{path}: session_{number}_date_time")
        for pair in range(0, len(session), 2):
            first, *second = session[pair : pair + 2]
            interaction_id = f"{name}-s{number}-{pair // 2}"
            for turn in (first, *second):
                owner[str(turn.get("dia_id"))] = interaction_id
            ts = (start + timedelta(seconds=pair)).strftime("%Y-%m-%dT%H:%M:%SZ")
            turns.append(Turn(interaction_id, ts, _said(first), _said(second[0]) if second else ""))
    questions = []
    for item in _objects(data["qa"], f"{path}: qa"):
        raw_labels = item.get("evidence", [])
        raw_labels = raw_labels if isinstance(raw_labels, list) else []
        labels = [e.strip() for raw in raw_labels for e in re.split(r"[;,]", str(raw)) if e.strip()]
        evidence = frozenset(owner[e] for e in labels if e in owner)
        code = item.get("category")
        category = LOCOMO_CATEGORIES.get(code, str(code)) if isinstance(code, int) else str(code)
        if not evidence and category not in UNSCORED:
            continue  # its evidence names no turn of the conversation (a few labels are broken)
        questions.append(Question(str(item["question"]), evidence, category))
    return Conversation(name, turns, questions)

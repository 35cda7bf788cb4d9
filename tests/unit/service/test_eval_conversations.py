"""`jiyi eval memory`'s conversation files: a LoCoMo file that breaks its format is refused naming the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.evaluation import conversations
from store.core.errors import InvalidInput

SESSION = [
    {"speaker": "A", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit"},
    {"speaker": "B", "dia_id": "D1:2", "text": "Lovely!"},
]
QA = [{"question": "What is the puppy called?", "evidence": ["D1:1"], "category": 4}]


def _locomo(tmp_path: Path, session: object, qa: object) -> Path:
    path = tmp_path / "conv.json"
    data = {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": session, "qa": qa}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_well_formed_locomo_file_is_read(tmp_path: Path) -> None:
    read = conversations.read(_locomo(tmp_path, SESSION, QA))
    assert [t.id for t in read.interactions] == ["conv-s1-0"]
    assert [(q.category, sorted(q.evidence)) for q in read.questions] == [("single-hop", ["conv-s1-0"])]


@pytest.mark.parametrize(
    ("session", "qa", "said"),
    [
        ([SESSION[0], "Lovely!"], QA, r"session_1\[1\] must be an object"),
        (SESSION, [QA[0], 4], r"qa\[1\] must be an object"),
        (SESSION, {"q": 1}, r"qa must be a list"),
    ],
)
def test_a_turn_or_question_that_is_not_an_object_is_refused_naming_it(
    tmp_path: Path, session: object, qa: object, said: str
) -> None:
    with pytest.raises(InvalidInput, match=said):
        conversations.read(_locomo(tmp_path, session, qa))

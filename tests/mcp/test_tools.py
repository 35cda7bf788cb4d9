"""The MCP tools against the declarations they are derived from: a tool cannot drift from its operation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from service.mcp.tools import BY_NAME, TOOLS, TurnIds, declared_params, turn_id
from service.ops import DECLARED
from store.core import clock
from store.core.errors import InvalidInput
from store.core.redaction.redactor import Redactor, default_words

NAMES = {
    "memory_recall": "memory.recall",
    "context_prepare": "context.prepare",
    "remember_interaction": "interaction.remember",
    "complete_task": "task.complete",
    "list_facts": "memory.fact.list",
    "list_skills": "memory.skill.list",
    "list_lessons": "lesson.list",
    "list_topics": "memory.topic.list",
    "get_topic": "memory.topic.get",
    "get_bundle": "bundle.get",
    "save_bundle_document": "bundle.document.put",
    "resolve_app": "app.resolve",
    "memory_status": "health",
}
PERSON_ONLY = {
    "app.alias.forget",
    "app.alias.learn",  # a user-trust alias is the person's; an agent's learned alias comes from its runs
    "memory.skill.set_status",
    "memory.fact.set_status",
    "lesson.approve",
    "learning.record.revoke",
    "learning.owner_review",
    "episode.revoke",
}


def test_each_tool_is_one_declared_operation_under_its_fixed_name() -> None:
    assert {tool.name: tool.operation.name for tool in TOOLS} == NAMES
    for tool in TOOLS:
        assert DECLARED[tool.operation.name] is tool.operation


def test_a_tool_schema_is_its_declarations_schema_of_the_fields_it_exposes() -> None:
    for tool in TOOLS:
        declared = declared_params(tool.operation)
        schema = tool.input_schema()
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["properties"]) == set(tool.fields)
        for argument, param in tool.fields.items():
            if argument in tool.narrowed:  # fewer values than the operation takes, each one it takes
                field = declared["properties"][param]
                takes = {option for branch in [field, *field.get("anyOf", [])] for option in branch.get("enum", [])}
                assert set(schema["properties"][argument]["enum"]) < takes, (tool.name, argument)
                continue
            assert schema["properties"][argument] == declared["properties"][param], (tool.name, argument)
        # Required as declared, except where the tool's contract says otherwise (and says why, in tools.py).
        for argument, param in tool.fields.items():
            must = param in declared.get("required", ()) or argument in tool.required or param in tool.required
            assert (argument in schema["required"]) == (must and argument not in tool.optional), (tool.name, argument)
        # What a tool fixes is a parameter the operation really takes, with a value it accepts.
        for param, value in tool.fixed.items():
            field = declared["properties"][param]
            branches = [field, *field.get("anyOf", [])]
            options = [option for branch in branches for option in branch.get("enum", [])]
            assert value in options, (tool.name, param)


def test_annotations_come_from_kind_and_idempotency() -> None:
    for tool in TOOLS:
        hints = tool.annotations()
        assert hints["readOnlyHint"] is (tool.operation.kind == "read")
        assert hints["idempotentHint"] is tool.operation.idempotent
        assert hints["destructiveHint"] is False
    assert BY_NAME["remember_interaction"].annotations()["readOnlyHint"] is False
    assert BY_NAME["memory_recall"].annotations()["readOnlyHint"] is True


def test_what_only_a_person_decides_is_no_tool() -> None:
    assert not {tool.operation.name for tool in TOOLS} & PERSON_ONLY
    assert all(tool.fixed.get("actor", "agent") == "agent" for tool in TOOLS)


def test_a_turn_without_an_id_gets_one_from_its_content() -> None:
    tool = BY_NAME["remember_interaction"]
    first = tool.params({"user_text": "明天几点开会？", "assistant_text": "十点"})
    again = tool.params({"user_text": "明天几点开会？", "assistant_text": "十点"})
    other = tool.params({"user_text": "明天几点开会？", "assistant_text": "十一点"})
    assert first["interaction_id"] == again["interaction_id"] != other["interaction_id"]
    assert tool.params({"user_text": "a", "assistant_text": "b", "interaction_id": "t-1"})["interaction_id"] == "t-1"
    params = {"user_text": "a", "assistant_text": "b", "interaction_id": "mine"}
    turn_id(params)
    assert params["interaction_id"] == "mine"


def test_an_id_made_for_a_turn_never_looks_sensitive() -> None:
    """An id that looks sensitive is refused with its turn: a derived one must never look so (hex digests made a
    phone number, a card number or an OTP in about one id of 400)."""
    redactor = Redactor(default_words())
    ids = TurnIds()
    made = []
    for number in range(4000):
        params: dict[str, object] = {"user_text": f"第{number}句", "assistant_text": "好"}
        ids(params, at=datetime(2026, 11, 30, 9, 15, tzinfo=UTC))
        made.append(str(params["interaction_id"]))
    assert len(set(made)) == len(made)
    assert [i for i in made if redactor.is_sensitive(i)] == []


def test_the_same_words_on_another_day_are_a_new_turn_and_an_immediate_retry_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = BY_NAME["remember_interaction"]
    turn = {"user_text": "继续", "assistant_text": "好的"}
    at = datetime(2026, 11, 30, 9, 15, 5, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: at)
    first = tool.params(turn)["interaction_id"]
    at += timedelta(seconds=40)  # a retry after a lost answer, within the minute
    assert tool.params(turn)["interaction_id"] == first
    at += timedelta(days=1)  # the same words tomorrow: a turn of its own
    assert tool.params(turn)["interaction_id"] != first
    params = dict(turn)
    turn_id(params, at=datetime(2026, 11, 30, 17, 15, 30, tzinfo=timezone(timedelta(hours=8))))
    assert params["interaction_id"] == first  # the minute is UTC's, whatever zone the time came in


def test_a_retry_that_crosses_into_the_next_minute_is_the_same_turn() -> None:
    ids = TurnIds()
    turn = {"user_text": "把会议改到周五", "assistant_text": "已改到周五下午三点"}
    first_sent = datetime(2026, 11, 30, 9, 15, 58, tzinfo=UTC)

    def sent(at: datetime) -> str:
        params = dict(turn)
        ids(params, at=at)
        return str(params["interaction_id"])

    first = sent(first_sent)
    assert sent(first_sent + timedelta(seconds=4)) == first  # 09:16:02, a retry in the next minute
    assert sent(first_sent + timedelta(seconds=59)) == first
    assert sent(first_sent + timedelta(minutes=5)) != first  # the same words later: a turn of its own
    # A server that restarted knows no first sending: the minute the turn is sent in decides.
    assert sent(first_sent) == first
    restarted = TurnIds()
    later = dict(turn)
    restarted(later, at=first_sent + timedelta(seconds=4))
    assert later["interaction_id"] != first


def test_list_facts_never_reads_what_the_person_withdrew() -> None:
    tool = BY_NAME["list_facts"]
    assert tool.input_schema()["properties"]["status"]["enum"] == ["active", "candidate"]
    assert tool.params({})["status"] == "active"
    assert tool.params({"status": "candidate"})["status"] == "candidate"
    with pytest.raises(InvalidInput, match="list_facts takes status active or candidate, not 'inactive'"):
        tool.params({"status": "inactive"})


def test_renamed_and_fixed_arguments_reach_the_operation() -> None:
    assert BY_NAME["context_prepare"].params({"query": "q", "budget": 900}) == {"query": "q", "budget_chars": 900}
    assert BY_NAME["list_skills"].params({}) == {"status": "active", "audience": "executor"}
    assert BY_NAME["list_lessons"].params(None) == {"status": "approved"}
    put = BY_NAME["save_bundle_document"].params(
        {"bundle_id": "project/x", "path": "a.md", "content": "c", "expected_revision": 0}
    )
    assert put["actor"] == "agent"


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("memory_recall", {"query": "q", "top_k": 3}, "memory_recall does not take top_k (it takes query, limit)"),
        ("memory_recall", {}, "memory_recall needs query"),
        ("list_skills", {"status": "draft"}, "list_skills does not take status (it takes no arguments)"),
        ("save_bundle_document", {"bundle_id": "project/x", "path": "a.md", "content": "c"}, "expected_revision"),
        ("remember_interaction", {"user_text": "only half"}, "remember_interaction needs assistant_text"),
    ],
)
def test_bad_arguments_are_refused_naming_them(tool: str, arguments: dict[str, object], says: str) -> None:
    with pytest.raises(InvalidInput, match=says.replace("(", r"\(").replace(")", r"\)")):
        BY_NAME[tool].params(arguments)

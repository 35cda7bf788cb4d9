"""The desk format's typed records name the fields its checks require, in the order an export writes them."""

from __future__ import annotations

from store.interchange import desk_format, desk_records

RECORDS = {
    "interactions": desk_records.InteractionRecord,
    "task_cards": desk_records.TaskCardRecord,
    "topics": desk_records.TopicRecord,
    "facts": desk_records.FactRecord,
    "skills": desk_records.SkillRecord,
    "bundles": desk_records.BundleRecord,
    "learned": desk_records.LearnedRecord,
}


def test_each_kinds_record_has_the_fields_the_format_checks_in_their_order() -> None:
    assert tuple(RECORDS) == desk_format.KINDS
    for kind, record in RECORDS.items():
        assert list(record.__annotations__) == list(desk_format.FIELDS[kind]), kind
        assert vars(record)["__required_keys__"] == frozenset(desk_format.FIELDS[kind]), kind

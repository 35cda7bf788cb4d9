"""The desk format's typed records name the fields its checks require, in the order an export writes them."""

from __future__ import annotations

from store.desk.rows import TaskCard
from store.interchange import desk_format, desk_records

RECORDS = {
    "interactions": desk_records.InteractionRecord,
    "task_cards": TaskCard,  # the store's card is the line (one type)
    "topics": desk_records.TopicRecord,
    "facts": desk_records.FactRecord,
    "skills": desk_records.SkillRecord,
    "bundles": desk_records.BundleRecord,
    "learned": desk_records.LearnedRecord,
}


def test_each_kinds_record_has_the_fields_the_format_checks_in_their_order() -> None:
    """Required fields first, in the format's order, then the ones a line may leave out (`OPTIONAL`)."""
    assert tuple(RECORDS) == desk_format.KINDS
    for kind, record in RECORDS.items():
        optional = desk_format.OPTIONAL.get(kind, {})
        assert list(record.__annotations__) == [*desk_format.FIELDS[kind], *optional], kind
        # the annotations are strings here (PEP 563), which Python 3.11's TypedDict reads as required: read them
        said_optional = {name for name, hint in record.__annotations__.items() if "NotRequired[" in str(hint)}
        assert said_optional == set(optional), kind

"""The owner's side of learning (seed 003) in a home that a running service owns: `RemoteLearning`, the
remote side of `LearningService` (`service/memory/learning.py`): its calls are `performed`
(`service/remote/calls.py`), but the edit of a record, which the socket serves by a handler of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.ops import learning
from service.remote.calls import Deferred, performed
from service.remote.channel import Wire
from service.wire.learning import LearningRecord

if TYPE_CHECKING:  # the facade's class as mypy reads it; at run time named only (see service/remote/calls.py)
    from service.memory.learning import LearningService
else:
    LearningService = Deferred("service.memory.learning", "LearningService")


class RemoteLearning:
    """The owner's side of learning (seed 003): what the console's learning page reads and decides,
    each a call of its declaration (`service.ops.learning`)."""

    status = performed(LearningService.status)
    queue = performed(LearningService.queue)
    intent = performed(LearningService.intent)
    failures = performed(LearningService.failures)
    list_records = performed(LearningService.list_records)
    revoke_record = performed(LearningService.revoke_record)
    owner_review = performed(LearningService.owner_review)
    scan = performed(LearningService.scan)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def edit_record(self, record_id: str, content: str) -> LearningRecord:
        args = learning.RecordEditArgs(record_id=record_id, content=content, actor="user")
        return self._wire.invoke(learning.RECORD_EDIT, args)

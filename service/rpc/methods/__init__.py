"""Every socket method; this package is the one place that joins them into `REGISTRY`.

Most operations are performed by the facade method bound to them (`service/ops/perform.py`): their
handlers are derived (`performed_table`). The modules here hold the named exceptions, handlers that
adapt: a store row turned into the wire's, a choice between two facade methods, work run as a job.
Each declares its methods in its own `TABLE` and imports none of the others (jobs excepted, which
runs the interchange's work).
"""

from __future__ import annotations

from service.memory.memory import PARTS, Memory
from service.ops import upkeep as upkeep_ops
from service.rpc.methods import (
    appkb,
    bundles,
    episode_recall,
    interchange,
    jobs,
    learning,
    lessons,
    maintenance,
    runs,
    status,
    upkeep,
)
from service.rpc.registry import Registry, performed_table


def _always(_memory: Memory) -> bool:
    return True


# A job's status and the list are in memory, and a client polls them often: answered on the loop.
INSTANT = {op.name: _always for op in (upkeep_ops.JOB_STATUS, upkeep_ops.JOB_CANCEL, upkeep_ops.JOB_LIST)}

PERFORMED = performed_table(PARTS, instant=INSTANT, long=frozenset())
"""The operations served by the facade method that performs each."""

REGISTRY = Registry(
    PERFORMED,
    status.TABLE,
    appkb.TABLE,
    runs.TABLE,
    episode_recall.TABLE,
    lessons.TABLE,
    maintenance.TABLE,
    bundles.TABLE,
    learning.TABLE,
    upkeep.TABLE,
    interchange.TABLE,
    jobs.TABLE,
)

"""Every socket method; this package is the one place that joins them into `REGISTRY`.

Most operations are performed by the facade method bound to them (`service/ops/perform.py`): their
handlers are derived (`performed_table`). The modules here hold the named exceptions, handlers that
adapt: a store row turned into the wire's, a choice between two facade methods, work run as a job.
Each declares its methods in its own `TABLE` and imports none of the others (jobs excepted, which
runs the interchange's work).
"""

from __future__ import annotations

from service.memory.memory import PARTS, Memory
from service.ops import appkb as appkb_ops
from service.ops import upkeep as upkeep_ops
from service.rpc.methods import desk, learning, long, status
from service.rpc.registry import Registry, performed_table


def _always(_memory: Memory) -> bool:
    return True


def _resolve_is_warm(memory: Memory) -> bool:
    return memory.appkb.resolve_is_warm()


# A job's status and the list are in memory, and a client polls them often: answered on the loop. A warm
# resolve is answered there too: CPU-bound work on several workers only contends for the GIL (8 clients:
# ~2,300/s on 4 workers against ~3,000-4,000/s on one).
INSTANT = {
    **{op.name: _always for op in (upkeep_ops.JOB_STATUS, upkeep_ops.JOB_CANCEL, upkeep_ops.JOB_LIST)},
    appkb_ops.RESOLVE.name: _resolve_is_warm,
}

PERFORMED = performed_table(PARTS, instant=INSTANT, long=frozenset({upkeep_ops.EXPORT.name}))
"""The operations served by the facade method that performs each."""

REGISTRY = Registry(
    PERFORMED,
    status.TABLE,
    desk.TABLE,
    learning.TABLE,
    long.TABLE,
)

"""Every socket method, by domain; this package is the one place that joins them into `REGISTRY`.

Each module declares its methods in its own `TABLE` and imports none of the
others; `docs/protocol.md` documents each method and a test keeps the two in step.
"""

from __future__ import annotations

from service.rpc.methods import (
    appkb,
    bundles,
    desk,
    interchange,
    jobs,
    learning,
    maintenance,
    recall,
    runs,
    status,
    upkeep,
)
from service.rpc.registry import Registry

REGISTRY = Registry(
    status.TABLE,
    appkb.TABLE,
    runs.TABLE,
    recall.TABLE,
    desk.TABLE,
    maintenance.TABLE,
    bundles.TABLE,
    learning.TABLE,
    upkeep.TABLE,
    interchange.TABLE,
    jobs.TABLE,
)

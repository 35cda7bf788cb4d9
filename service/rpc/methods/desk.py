"""The desk memory's two handlers that adapt (the rest are its facade's, `service/memory/`): a maintenance
commit, its params turned into the request the loop takes; and a bundle's folder, the bundle named in the
reply as the caller named it (by its id, or by its schedule's). Declared in `service/ops/desk.py` and
`service/ops/maintenance.py`."""

from __future__ import annotations

from typing import Any

from service.memory.memory import Memory
from service.ops import desk, maintenance
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("desk")


@TABLE.op(maintenance.COMMIT)
def maintenance_commit(memory: Memory, args: maintenance.CommitArgs, _context: CallContext) -> dict[str, Any]:
    return memory.maintenance.maintenance_commit(args.request())


@TABLE.op(desk.BUNDLE_DIRECTORY)
def bundle_directory(memory: Memory, args: desk.BundleArgs, _context: CallContext) -> desk.BundleDirectory:
    return desk.BundleDirectory(bundle_id=args.bundle, directory=memory.bundles.bundle_directory(args.bundle))

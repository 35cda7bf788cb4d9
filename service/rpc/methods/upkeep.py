"""The whole home: the overview, dream passes, TaskWizard import and export.

These are the console's and the commands' operations, offered on the socket so
that a console or a `jiyi` command attached to a running service can do what
they would do on a home of their own. They take long (seconds to minutes):
a client gives them a long timeout. The rebuilds are jobs (`service/rpc/methods/jobs.py`), and an
import may be started as one to be followed.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from service.memory.memory import Memory
from service.memory.results import DreamReport, Overview
from service.rpc.params import Params
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("upkeep")
MAX_PATH_BYTES = 4096


def _check_budget(memory: Memory) -> None:
    """A pass that writes is refused up front past the home's size budget (as every write is)."""
    if memory.store.budget is not None:
        memory.store.budget.check()


def directory_param(p: Params) -> Path:
    """`params.directory`: an absolute path (the service's working folder is not the client's)."""
    text = p.text("directory", max_chars=MAX_PATH_BYTES, max_bytes=MAX_PATH_BYTES)
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise InvalidInput("params.directory must be an absolute path (the service's working folder is not yours)")
    return path


@TABLE.method("overview")
def overview(memory: Memory, p: Params) -> Overview:
    p.done()
    return memory.overview()


@TABLE.method("dream.run", writes=True, long=True)
def dream_run(memory: Memory, p: Params) -> DreamReport:
    full = p.boolean("full", True)
    dry_run = p.boolean("dry_run", False)
    p.done()
    if not dry_run:
        _check_budget(memory)
    return memory.dream.run(full=full, dry_run=dry_run)


@TABLE.method("dream.reports")
def dream_reports(memory: Memory, p: Params) -> dict[str, Any]:
    limit = p.integer("limit", 20, low=1, high=500)
    p.done()
    return {"reports": memory.dream.reports(limit)}


@TABLE.method("taskwizard.import", writes=True, long=True)
def taskwizard_import(memory: Memory, p: Params) -> dict[str, Any]:
    directory = directory_param(p)
    p.done()
    _check_budget(memory)
    return {name: asdict(report) for name, report in memory.import_taskwizard(directory).items()}


@TABLE.method("taskwizard.export", long=True)
def taskwizard_export(memory: Memory, p: Params) -> dict[str, dict[str, int]]:
    directory = directory_param(p)
    p.done()
    return memory.export_taskwizard(directory)

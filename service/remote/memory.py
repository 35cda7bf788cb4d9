"""`RemoteMemory`: the `MemoryApi` of a home that a running `jiyi serve` owns, reached over its socket.

The console and the commands use it exactly as they use `Memory`: the same methods, the same result types,
the same errors (an error code from the service becomes the error class a local `Memory` raises). Its parts
are the facade's, remote (`phone.py`, `desk.py`, `learning.py`, `interchange.py`): a facade method bound to
the operation it performs is `performed(Facade.method)` (`calls.py`), the others adapt. Each thread talks on
its own connection; long operations get a connection with a long timeout. The rebuilds, a dream pass and an
import run as the service's jobs (`docs/protocol.md`, Jobs): this side follows one and turns it into the
`progress(done, total)` calls a local one makes; a `Cancelled` (or Ctrl+C) from the caller cancels it.
Listeners hear the service's change notices (`notices.py`). Closing it closes its connections only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from service import person_key
from service.client import Json, JsonObject
from service.config import Config
from service.memory.bus import Listener
from service.ops import status, upkeep
from service.remote.calls import Deferred, performed
from service.remote.channel import JobFollower, JobParams, Progress, RemoteJobs, Wire, protocol_version
from service.remote.desk import RemoteBundles, RemoteDesk, RemoteFacts, RemoteMaintenance, RemoteSkills
from service.remote.interchange import RemoteInterchange
from service.remote.learning import RemoteLearning
from service.remote.notices import Listeners, NoticeReader
from service.remote.phone import RemoteAppKb, RemoteLessons, RemoteRecall, RemoteRuns
from service.wire.results import DreamReport, Health
from store.core.errors import EnvironmentProblem
from store.interchange.import_report import ImportReport

if TYPE_CHECKING:  # the facade's classes as mypy reads them; at run time named only (see service/remote/calls.py)
    from service.memory.dream import DreamService
    from service.memory.memory import Memory
else:
    DreamService = Deferred("service.memory.dream", "DreamService")
    Memory = Deferred("service.memory.memory", "Memory")


class RemoteDream:
    """Dream passes: the reports, and a pass run as the service's job."""

    reports = performed(DreamService.reports)

    def __init__(self, wire_: Wire, follower: JobFollower) -> None:
        self._wire = wire_
        self._follower = follower

    def run(
        self, *, full: bool = True, dry_run: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> DreamReport:
        """The pass runs as the service's job; `progress` hears its steps, and a `Cancelled` it raises
        cancels the job between two steps."""
        return msgspec.convert(self._follower.run("dream", progress, {"full": full, "dry_run": dry_run}), DreamReport)


class RemoteMemory:
    """A home's memory as served by the service listening on `socket_path`. Open with `RemoteMemory.attach`."""

    overview = performed(Memory.overview)

    def __init__(self, config: Config, socket_path: Path, health: JsonObject, *, client: str = "console") -> None:
        """`client` is what this side tells the service it is: "console", or "command" for a `jiyi` command."""
        self._config = config
        self.socket_path = socket_path
        self._home = Path(str(health["home"]))
        self._schema_version = _whole(health["schema_version"])
        self.service_pid = _whole(health.get("pid") or 0)
        read_only = health.get("read_only")  # a service before protocol 1.8 does not say (it is then writable)
        self._read_only = read_only if isinstance(read_only, str) else None
        # The console and the commands act as the person: each connection presents the person's key, which the
        # service wrote in its home (`service/person_key.py`). Agents' clients never read it.
        self._wire = Wire(socket_path, hello=client, person=lambda: person_key.read_or_none(self._home))
        self._follower = JobFollower(self._wire, protocol_version(health.get("protocol")))
        self.jobs = RemoteJobs(self._wire)
        self.integrity: str | None = None
        """SQLite's verdict after the last `rebuild` (the service checks the database after it)."""
        self.appkb = RemoteAppKb(self._wire)
        self.runs = RemoteRuns(self._wire)
        self.recall = RemoteRecall(self._wire, self._follower)
        self.lessons = RemoteLessons(self._wire)
        self.desk = RemoteDesk(self._wire)
        self.maintenance = RemoteMaintenance(self._wire)
        self.facts = RemoteFacts(self._wire)
        self.skills = RemoteSkills(self._wire)
        self.bundles = RemoteBundles(self._wire)
        self.dream = RemoteDream(self._wire, self._follower)
        self.learning = RemoteLearning(self._wire)
        self.interchange = RemoteInterchange(self._follower)
        self._listeners = Listeners(socket_path)

    @classmethod
    def attach(cls, config: Config, socket_path: Path, *, client: str = "console") -> RemoteMemory:
        """Attach to the service on `socket_path`; `EnvironmentProblem` when nobody answers there. The probe
        says what it is too: unnamed, it counted as an agent's request in the service's status."""
        probe = Wire(socket_path, hello=client)
        try:
            health = probe.call("health")
        finally:
            probe.close()
        if not isinstance(health, dict):
            raise EnvironmentProblem(f"the service on {socket_path} answered health with {type(health).__name__}")
        return cls(config, socket_path, health, client=client)

    @property
    def config(self) -> Config:
        return self._config

    @property
    def home(self) -> Path:
        return self._home

    @property
    def schema_version(self) -> int:
        return self._schema_version

    @property
    def read_only(self) -> str | None:
        return self._read_only

    @property
    def attached_to(self) -> Path | None:
        return self.socket_path

    @property
    def connected(self) -> bool:
        """Whether the service answers change notices now (True until they are asked for)."""
        return self._listeners.connected

    def health(self) -> Health:
        return self._wire.invoke(status.HEALTH)

    def rebuild(self, progress: Progress | None = None) -> dict[str, int]:
        outcome = self._follower.run("rebuild", progress)
        self.integrity = str(outcome.get("integrity"))
        return msgspec.convert(outcome["counts"], dict[str, int])

    def service_status(self) -> status.ServiceStatus:
        """Who the service serves (`connections`, `by_kind`), `requests_last_minute`, and its running `job`."""
        return self._wire.invoke(status.SERVICE_STATUS)

    def import_taskwizard(
        self, directory: Path, progress: Callable[[int, int], None] | None = None, replaces: Path | None = None
    ) -> dict[str, ImportReport]:
        """The service imports (and indexes) the directory as its job; `progress` hears the indexing move.

        Cancelling (the console closing, Ctrl+C) stops following it; the service finishes the import.
        """
        params: JobParams = {"directory": str(Path(directory).resolve())}
        if replaces is not None:
            params["replaces"] = str(Path(replaces).expanduser().absolute())  # it may be gone: not resolved
        result = self._follower.run("taskwizard.import", progress, params)
        return msgspec.convert(result, dict[str, ImportReport])

    def export_taskwizard(self, directory: Path) -> dict[str, dict[str, int]]:
        args = upkeep.DirectoryArgs(directory=str(Path(directory).resolve()))
        exported: type[dict[str, dict[str, int]]] = dict
        return self._wire.invoke_as(upkeep.EXPORT, args, exported, long=True)

    # -- change notices ------------------------------------------------------------------

    @property
    def notices(self) -> NoticeReader | None:
        """The reader of the service's change notices, once a listener asked for them."""
        return self._listeners.reader

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, generation)` (on the notice thread) after every change the service commits."""
        self._listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def close(self) -> None:
        """Close this side's connections; the service goes on serving."""
        self._listeners.stop()
        self._wire.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _whole(value: Json) -> int:
    """A whole number the service's `health` holds (a number, or its text)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise EnvironmentProblem(f"the service's health holds {value!r} where a number belongs")

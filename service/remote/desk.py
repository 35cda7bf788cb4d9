"""The desk memory's parts (seed 002) of a home that a running service owns: `RemoteDesk`,
`RemoteMaintenance`, `RemoteFacts`, `RemoteSkills`, `RemoteBundles`, the remote sides of `DeskService`,
`MaintenanceService`, `FactService`, `SkillService` and `BundleService` (`service/memory/`).

A facade method bound to its operation is `performed(Facade.method)` (`service/remote/calls.py`); the
others, which adapt, are written here, each a call of its declaration (`service.ops.desk`, `.maintenance`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.ops import desk
from service.ops import maintenance as maint
from service.remote.calls import Deferred, performed
from service.remote.channel import Wire
from service.wire.desk import Skill, Topic

if TYPE_CHECKING:  # the facade's classes as mypy reads them; at run time named only (see service/remote/calls.py)
    from service.memory.bundles import BundleService
    from service.memory.desk import DeskService
    from service.memory.facts import FactService
    from service.memory.maintenance import MaintenanceService
    from service.memory.skills import SkillService
else:
    BundleService = Deferred("service.memory.bundles", "BundleService")
    DeskService = Deferred("service.memory.desk", "DeskService")
    FactService = Deferred("service.memory.facts", "FactService")
    MaintenanceService = Deferred("service.memory.maintenance", "MaintenanceService")
    SkillService = Deferred("service.memory.skills", "SkillService")


class RemoteDesk:
    """Turns, task cards and desk recall (`service.ops.desk`)."""

    memory_recall = performed(DeskService.memory_recall)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_


class RemoteMaintenance:
    """The maintenance loop, topics, workdays and the consolidation log (`service.ops.maintenance`)."""

    maintenance_status = performed(MaintenanceService.maintenance_status)
    get_topic = performed(MaintenanceService.get_topic)
    list_workdays = performed(MaintenanceService.list_workdays)
    consolidation_log = performed(MaintenanceService.consolidation_log)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def list_topics(self, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[Topic]:
        return self._wire.invoke(maint.TOPIC_LIST, maint.TopicListArgs(text=text, limit=limit, offset=offset)).topics

    def workday_topics(self, workday: str) -> list[Topic]:
        return self._wire.invoke(maint.TOPIC_LIST, maint.TopicListArgs(workday=workday)).topics


class RemoteFacts:
    """The desk's facts (`service.ops.maintenance`)."""

    list_facts = performed(FactService.list_facts)
    set_fact_status = performed(FactService.set_fact_status)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_


class RemoteSkills:
    """The desk's skills (`service.ops.maintenance`)."""

    set_skill_status = performed(SkillService.set_skill_status)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def list_skills(self, status: str | None = None, *, limit: int = 200, offset: int = 0) -> list[Skill]:
        skills = self._wire.invoke(maint.SKILL_LIST, maint.SkillListArgs(status=status, audience="review")).skills
        return skills[offset : offset + limit]


class RemoteBundles:
    """The bundles and their documents (`service.ops.desk`)."""

    list_bundles = performed(BundleService.list_bundles)
    get_bundle = performed(BundleService.get_bundle)
    put_bundle_document = performed(BundleService.put_bundle_document)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def bundle_directory(self, bundle_id: str) -> str:
        return self._wire.invoke(desk.BUNDLE_DIRECTORY, desk.BundleArgs(bundle_id=bundle_id)).directory

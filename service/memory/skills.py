"""Skills (seed 002) as a part of the `Memory` facade: the procedures the consolidating agent drafts, which
the person approves, rejects or disables (and an agent activates only when the person asked for it)."""

from __future__ import annotations

from service.memory.parts import Parts, check_actor
from service.ops import maintenance as maintenance_ops
from service.ops.perform import lists, performs
from service.wire.desk import Skill
from service.wire.row import all_of, of
from store.core.errors import InvalidInput
from store.desk import skills
from store.desk.projection import DOMAIN as DESK


class SkillService:
    """The desk's skills: list, read, set their status."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.store, self.redactor = parts.store, parts.redactor

    def list_skills(self, status: str | None = None, *, limit: int = 200, offset: int = 0) -> list[Skill]:
        if status is not None and status not in skills.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(skills.STATUSES)}")
        return all_of(Skill, skills.list_skills(self.store, status, limit, offset))

    @lists(maintenance_ops.SKILL_LIST)
    def skills_for(self, status: str | None = None, audience: str = "executor") -> list[Skill]:
        """What `audience` reads: an executor the active skills only, a review those of `status` (any)."""
        return self.list_skills("active" if audience == "executor" else status)

    @performs(maintenance_ops.SKILL_GET)
    def get_skill(self, skill_id: str) -> Skill:
        return of(Skill, skills.get_skill(self.store, skill_id))

    @performs(maintenance_ops.SKILL_SET_STATUS)
    def set_skill_status(
        self,
        skill_id: str,
        status: str,
        *,
        user_request: str | None = None,
        interaction_id: str | None = None,
        actor: str = "user",
    ) -> Skill:
        """Approve, reject, disable or re-draft a skill (the person's decision). An agent may only activate a
        draft the user asked for in their latest turn: `interaction_id` names it, `user_request` quotes them."""
        check_actor(actor)
        with self.parts.writes:
            result = skills.set_status(
                self.store,
                skill_id,
                status,
                actor=actor,
                user_request=user_request,
                redactor=self.redactor,
                interaction_id=interaction_id,
            )
        self.parts.changed(DESK)
        return of(Skill, result)

"""Facts (seed 002) as a part of the `Memory` facade: what the consolidating agent learned about the person
and their work, listed and read, and confirmed or deactivated by the person."""

from __future__ import annotations

from service.memory.parts import Parts, check_actor
from service.ops import maintenance as maintenance_ops
from service.ops.perform import pages, performs
from service.wire.desk import Fact
from service.wire.row import all_of, of
from store.core.errors import InvalidInput
from store.desk import fact_terms, facts
from store.desk.projection import DOMAIN as DESK


class FactService:
    """The desk's facts: list, read, set their status."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.store, self.redactor = parts.store, parts.redactor

    @pages(maintenance_ops.FACT_LIST)
    def list_facts(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        text: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[Fact]:
        if scope is not None and scope not in fact_terms.SCOPES:
            raise InvalidInput(f"scope must be one of {', '.join(fact_terms.SCOPES)}")
        if status is not None and status not in fact_terms.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(fact_terms.STATUSES)}")
        return all_of(
            Fact, facts.list_facts(self.store, scope=scope, status=status, text=text, limit=limit, offset=offset)
        )

    def get_fact(self, fact_id: str) -> Fact:
        return of(Fact, facts.get_fact(self.store, fact_id))

    @performs(maintenance_ops.FACT_SET_STATUS, fixed={"actor": "user"})  # the person's alone (declared)
    def set_fact_status(self, fact_id: str, status: str, *, reason: str | None = "", actor: str = "user") -> Fact:
        """Confirm (active) or deactivate (inactive) a fact by hand; the reason is kept redacted."""
        check_actor(actor)
        with self.parts.writes:
            result = facts.set_status(self.store, fact_id, status, self.redactor.redact(reason or ""), actor=actor)
        self.parts.changed(DESK)
        return of(Fact, result)

"""What saving an alias did, as the facade answers it (`ops/appkb` turns it into the wire's `AliasLearned`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from store.appkb.results import LearnAliasResult


@dataclass
class LearnAliasOutcome:
    """A saved alias (the person's user alias, or an agent's learned one), on which known devices its package is
    installed, and `notes`: what else the reply says (a device's label it takes the place of; that it is learned)."""

    result: LearnAliasResult
    installed_on: list[str]
    missing_on: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [*self.notes, *self.installation()]

    def installation(self) -> list[str]:
        """What the installed lists say of its package (nothing when some device has it)."""
        package = self.result.entry.package
        if self.installed_on:
            return []
        if not self.missing_on:
            return [f"no device has synced its apps yet, so {package} could not be checked; saved anyway"]
        return [f"{package} is not installed on any known device; saved anyway"]

"""Each setting as a typed attribute of `Config` (a misspelt name fails mypy, not only at run time).

Generated from `service.config.SETTINGS` by hand-checked rule (each parser's result type);
`tests/unit/service/test_config.py` fails when a setting and its attribute here disagree in name or type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast


class TypedSettings:
    """The settings' values by name, each as the type its parser returns."""

    values: Mapping[str, Any]

    @property
    def home(self) -> str:
        return cast(str, self.values["home"])

    @property
    def memory_rag(self) -> str:
        return cast(str, self.values["memory_rag"])

    @property
    def app_kb(self) -> bool:
        return cast(bool, self.values["app_kb"])

    @property
    def implicit_alias(self) -> bool:
        return cast(bool, self.values["implicit_alias"])

    @property
    def alias_overwrite(self) -> bool:
        return cast(bool, self.values["alias_overwrite"])

    @property
    def alias_overwrite_notes(self) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self.values["alias_overwrite_notes"])

    @property
    def dream(self) -> str:
        return cast(str, self.values["dream"])

    @property
    def episode_keep(self) -> int:
        return cast(int, self.values["episode_keep"])

    @property
    def episode_archive_days(self) -> int:
        return cast(int, self.values["episode_archive_days"])

    @property
    def index_min_steps(self) -> int:
        return cast(int, self.values["index_min_steps"])

    @property
    def embed_model(self) -> str:
        return cast(str, self.values["embed_model"])

    @property
    def embed_url(self) -> str:
        return cast(str, self.values["embed_url"])

    @property
    def embed_model_name(self) -> str:
        return cast(str, self.values["embed_model_name"])

    @property
    def embed_timeout(self) -> int:
        return cast(int, self.values["embed_timeout"])

    @property
    def embed_key_file(self) -> str:
        return cast(str, self.values["embed_key_file"])

    @property
    def recall_max_contamination(self) -> float:
        return cast(float, self.values["recall_max_contamination"])

    @property
    def recall_scoring(self) -> str:
        return cast(str, self.values["recall_scoring"])

    @property
    def resolve_embedding(self) -> str:
        return cast(str, self.values["resolve_embedding"])

    @property
    def chroma_url(self) -> str:
        return cast(str, self.values["chroma_url"])

    @property
    def database_url(self) -> str:
        return cast(str, self.values["database_url"])

    @property
    def database_password_file(self) -> str:
        return cast(str, self.values["database_password_file"])

    @property
    def socket(self) -> str:
        return cast(str, self.values["socket"])

    @property
    def max_line_bytes(self) -> int:
        return cast(int, self.values["max_line_bytes"])

    @property
    def max_connections(self) -> int:
        return cast(int, self.values["max_connections"])

    @property
    def idle_timeout(self) -> int:
        return cast(int, self.values["idle_timeout"])

    @property
    def write_group(self) -> int:
        return cast(int, self.values["write_group"])

    @property
    def max_home_mb(self) -> int:
        return cast(int, self.values["max_home_mb"])

    @property
    def sensitive_words(self) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self.values["sensitive_words"])

    @property
    def launch_deny(self) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self.values["launch_deny"])

    @property
    def bundles(self) -> str:
        return cast(str, self.values["bundles"])

    @property
    def context_budget(self) -> int:
        return cast(int, self.values["context_budget"])

    @property
    def core_facts(self) -> int:
        return cast(int, self.values["core_facts"])

    @property
    def idle_minutes(self) -> int:
        return cast(int, self.values["idle_minutes"])

    @property
    def lease_seconds(self) -> int:
        return cast(int, self.values["lease_seconds"])

    @property
    def log_level(self) -> str:
        return cast(str, self.values["log_level"])

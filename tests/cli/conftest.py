"""The service tests' fixtures that the command tests need too: a short private folder and `jiyi serve`."""

from __future__ import annotations

from tests.service.conftest import launch, server, short_dir

__all__ = ["launch", "server", "short_dir"]

"""Shared fixtures: a fresh home per test, real SQLite files, the real registry."""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Config, load_config
from service.memory.memory import Memory
from store.appkb.entry import AppKbEntry
from store.core.database import Store
from store.core.redact import Redactor, default_words
from store.interchange.taskwizard_appkb import import_appkb
from store.projections import all_projections

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def config(home: Path) -> Config:
    return load_config(home=home, env={})


@pytest.fixture
def store(home: Path) -> Iterator[Store]:
    opened = Store.open(home, all_projections())
    yield opened
    opened.close()


@pytest.fixture
def memory(config: Config) -> Iterator[Memory]:
    opened = Memory.open(config)
    yield opened
    opened.close()


@pytest.fixture
def redactor() -> Redactor:
    return Redactor(default_words())


@pytest.fixture(autouse=True)
def _no_unexpected_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail a test that logs an ERROR it did not ask for (a swallowed failure is a bug)."""
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR and r.name.startswith("jiyi")]
    if errors and not getattr(caplog, "errors_expected", False):
        pytest.fail("unexpected error logged: " + "; ".join(r.getMessage() for r in errors))


def put_entries(store: Store, *entries: AppKbEntry, actor: str) -> None:
    """Put App-KB entries exactly as given (kind, confidence, dates, stale), the way a TaskWizard `kb.json` arrives."""
    with tempfile.TemporaryDirectory() as folder:
        kb = Path(folder) / "kb.json"
        kb.write_text(json.dumps([e.to_dict() for e in entries], ensure_ascii=False), "utf-8")
        report = import_appkb(store, Path(folder), actor=actor)
    assert (report.imported, report.skipped, report.already_imported) == (len(entries), 0, False)

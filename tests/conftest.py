"""Shared fixtures: a fresh home per test, real SQLite files, the real registry."""

from __future__ import annotations

import gc
import itertools
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Config, load_config, save_settings
from service.memory.memory import Memory
from store.appkb.entry import AppKbEntry
from store.core.database import Store
from store.core.redaction.redactor import Redactor, default_words
from store.interchange.taskwizard_appkb import import_appkb
from store.projections import all_projections
from tests.postgres_server import PostgresServer, start_postgres

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


# The modules that run on both back ends (the `backend` fixture's two values); the rest use SQLite.
BOTH_BACKENDS = ("tests/unit/store/", "tests/unit/service/", "tests/unit/learning/", "tests/service/")
_databases = itertools.count(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked `slow` first (in their order): on the workers the long ones start early and the
    short ones fill in around them, instead of one long test running alone at the end of the suite."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    where = Path(str(metafunc.definition.path)).relative_to(REPO).as_posix()
    # `sqlite_only` marks a test about the SQLite file itself (its permissions, result codes, pragmas);
    # `before_the_store` one whose answer is decided before any store is reached (a malformed line, a number out
    # of range): the back end cannot change it, and a PostgreSQL database for each case costs a second.
    one = ("sqlite_only", "before_the_store")
    both = where.startswith(BOTH_BACKENDS) and not any(metafunc.definition.get_closest_marker(m) for m in one)
    if metafunc.definition.get_closest_marker("postgresql_only") is not None:
        metafunc.parametrize("backend", ["postgresql"], indirect=True)
        return
    metafunc.parametrize("backend", ["sqlite", "postgresql"] if both else ["sqlite"], indirect=True)


@pytest.fixture(scope="session", autouse=True)
def _private_runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test process (each xdist worker) its own runtime directory: a default socket path is never
    another worker's, nor the developer's own running service's. And its own configuration directory: the
    console's settings (its window's size, its language) and Qt's are never the developer's own."""
    before = {name: os.environ.get(name) for name in ("XDG_RUNTIME_DIR", "XDG_CONFIG_HOME")}
    run = tmp_path_factory.mktemp("run")
    run.chmod(0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(run)
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole session (started on first use, stopped at the end).

    Under pytest-xdist the session is a worker's: each worker starts its own server, on its own port.
    """
    server = start_postgres()
    yield server
    server.stop()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Where the test's store lives: "sqlite" (the home's file) or "postgresql" (a fresh database on the server)."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """The test's database URL: empty for SQLite, a fresh PostgreSQL database (dropped afterwards) otherwise."""
    if backend == "sqlite":
        yield ""
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    name = f"jiyi_test_{os.getpid()}_{next(_databases)}"
    url = server.create_database(name)
    yield url
    server.drop_database(name)


@pytest.fixture
def home(tmp_path: Path, database_url: str, request: pytest.FixtureRequest) -> Path:
    """A fresh home; on PostgreSQL its config.toml points at the test's database (so every opener follows)."""
    path = tmp_path / "home"
    if database_url:
        server: PostgresServer = request.getfixturevalue("postgres")
        path.mkdir(mode=0o700)
        save_settings(path, {"database_url": database_url, "database_password_file": str(server.password_file)})
    return path


@pytest.fixture
def config(home: Path) -> Config:
    return load_config(home=home, env={})


def open_store(home: Path) -> Store:
    """Open the store of `home` where its config.toml says it lives (as `Memory.open` would)."""
    settings = load_config(home=home, env={})
    return Store.open(
        home, all_projections(), database_url=settings.database_url, password=settings.database_password()
    )


@pytest.fixture
def store(home: Path) -> Iterator[Store]:
    opened = open_store(home)
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


@pytest.fixture(scope="session", autouse=True)
def _garbage_collected_on_the_main_thread() -> Iterator[None]:
    """As in the console (gui/main_thread_gc.py): Python's collector never runs in a worker thread, where it
    could run a Qt object's destructor and deadlock with the main thread; each test's garbage is collected
    after it, here."""
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


@pytest.fixture(autouse=True)
def _collected_after_each_test() -> Iterator[None]:
    """Each test's garbage collected after it; what survives is frozen (`gc.freeze`), so the next collection
    walks only what the next test made, not the ~300k objects of the imported libraries (0.1-0.4 s a test)."""
    yield
    gc.collect()
    gc.freeze()


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

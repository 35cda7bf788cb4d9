"""The SQLite file opened by URI (`mode=rw`): any home path opens, and a file never appears by itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.core.connect import connect_sqlite
from store.core.database import Store
from store.core.errors import StorageProblem
from store.projections import all_projections

pytestmark = pytest.mark.sqlite_only


def test_a_home_whose_path_holds_uri_characters_opens(tmp_path: Path) -> None:
    home = tmp_path / "家 a#b?c%20d&mode=ro"
    store = Store.open(home, all_projections())
    try:
        assert store.path == home / "jiyi.sqlite3" and store.damaged is None
        with store.atomic():
            store.append("app_kb", "alias_learned", {"name": "x"}, actor="test")
        assert store.database_problem() is None
    finally:
        store.close()
    assert (home / "jiyi.sqlite3").stat().st_size > 0


def test_a_connection_opened_after_the_file_went_away_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "jiyi.sqlite3"
    db = connect_sqlite(path)  # creates the file, once
    db.close()
    path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(StorageProblem, match="cannot be opened"):
        db.execute_sql("SELECT 1")  # connects on first use, as each thread of the service does
    assert not path.exists()

"""The commands facing files and names: bad input exits 2, and one unwritable bundle file never fails a rebuild."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.cli.main import main
from service.config import load_config
from service.memory.memory import Memory
from store.core.database import Store
from store.desk.projection import DOMAIN
from store.projections import all_projections

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def run(home: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch):
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    Store.open(home, all_projections()).close()

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main([*args, "--home", str(home)])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def test_importing_through_a_symlinked_folder_exits_2_naming_it(run, tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "experience").symlink_to("/etc", target_is_directory=True)
    code, _, err = run("import", "taskwizard", str(root))
    assert code == 2 and f"{root / 'experience'} is a symlink" in err


def test_exporting_onto_a_file_exits_2_and_leaves_the_file(run, tmp_path: Path) -> None:
    target = tmp_path / "memory"
    target.write_text("mine", "utf-8")
    code, _, err = run("export", "taskwizard", str(target))
    assert code == 2 and f"jiyi: {target} is a file, not a folder; give a folder to export into" in err
    assert "Traceback" not in err and target.read_text("utf-8") == "mine"


def test_an_inventory_with_a_byte_order_mark_syncs(run, tmp_path: Path) -> None:
    path = tmp_path / "inventory.tsv"
    path.write_bytes("package\tlabel\ncom.tencent.mm\t微信\n".encode("utf-8-sig"))
    code, out, err = run("inventory", "sync", "--device", "p", str(path))
    assert code == 0 and "device p: 1 added" in out, err


def test_an_inventory_folder_exits_2_naming_it_a_folder(run, tmp_path: Path) -> None:
    code, _, err = run("inventory", "sync", "--device", "p", str(tmp_path))
    assert code == 2 and f"inventory file {tmp_path} is a folder" in err


def test_rebuild_writes_back_what_it_can_and_reports_what_it_cannot(run, home: Path) -> None:
    with Memory.open(load_config(home=home, env={})) as memory:
        memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
        folder = Path(memory.bundles.bundle_directory("schedule/weekly"))
        with memory.store.atomic():  # a run name an older Jiyi accepted, longer than a file name holds
            payload = {"bundle_id": "schedule/weekly", "path": f"runs/{'运' * 90}/summary.md", "revision": 1}
            memory.store.append(DOMAIN, "bundle_document_put", {**payload, "content": "旧"}, actor="system")
    (folder / "lessons.md").unlink()
    code, out, err = run("rebuild")
    # Opening the home wrote the missing file back already (the mirror's catch-up at start), before the rebuild.
    assert code == 0 and "integrity ok" in out
    assert "1 bundle files could not be written" in err
    assert (folder / "lessons.md").is_file()

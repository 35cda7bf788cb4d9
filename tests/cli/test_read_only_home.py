"""A read-only home serves reads and refuses writes, naming the read-only folder; an empty read-only folder is
told it is read-only (not to `chmod 700`).

The folders are made read-only by a read-only bind mount in a private mount
namespace (`read_only_scenario.py`): the tests run as root, whom no file mode
stops, and a read-only mount gives root EROFS too. Where mounting is not
permitted the test is skipped, with the kernel's reason.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli.main import main
from tests.service.conftest import JIYI
from tests.service.test_full_disk import UNSHARE, _can_mount

SCENARIO = Path(__file__).with_name("read_only_scenario.py")


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.slow
def test_a_read_only_home_serves_reads_and_refuses_writes(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home, empty, run = short_dir / "home", short_dir / "empty", short_dir / "run"
    for folder in (empty, run):
        folder.mkdir()
    empty.chmod(0o755)  # as a folder on a read-only mount would be: too open, and nothing can change it
    run.chmod(0o700)
    reason = _can_mount(empty)
    if reason:
        pytest.skip(reason)
    monkeypatch.setenv("JIYI_SOCKET", str(run / "nobody.sock"))
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    assert main(["alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(home)]) == 0
    capsys.readouterr()
    before = _digest(home)

    done = subprocess.run(
        [*UNSHARE, sys.executable, str(SCENARIO), str(home), str(empty), str(run), JIYI],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["touch"] != 0  # the mount is read-only for root too
    here, served, refused = seen["here"], seen["served"], f"home {home} is on a read-only file system"

    for answers in (here, served):  # reads: directly, and through a service serving the read-only home
        assert answers["health"]["code"] == 0, answers["health"]
        assert json.loads(answers["health"]["out"])["database_problem"].startswith(refused)
        assert json.loads(answers["health"]["out"])["read_only"] == refused  # what the console says 只读 by
        assert answers["resolve"]["code"] == 0 and answers["resolve"]["out"].startswith("resolved: com.tencent.mm")
        # a write: refused with the folder named, and what to do
        assert answers["learn"]["code"] == 3, answers["learn"]
        assert f"jiyi: {refused}: it serves reads, writes are refused" in answers["learn"]["err"]
        assert "Traceback" not in answers["learn"]["err"]
    assert json.loads(here["recall-stats"]["out"])["evaluations"] == 0
    assert "绿泡泡" in here["alias list"]["out"] and "1 entries" in here["alias list"]["out"]
    # Chroma cannot open its index there: recall goes by the task's words and says why; the desk by full text
    assert here["recall"]["code"] == 0 and f"by the task's words alone: {refused}" in here["recall"]["out"]
    assert (
        here["desk recall"]["code"] == 0 and json.loads(here["desk recall"]["out"])["retrieval"]["mode"] == "full_text"
    )
    # The maintenance status reads the planners' leases without clearing the expired ones (it wrote before).
    assert here["desk status"]["code"] == 0, here["desk status"]
    assert json.loads(here["desk status"]["out"])["leases"] == []
    doctor = {line.split()[1]: line for line in here["doctor"]["out"].splitlines()}
    assert doctor["database"].startswith("ok") and doctor["writes"].startswith("FAIL") and refused in doctor["writes"]
    assert f"jiyi: {refused}: it serves reads" in seen["serve_log"] and "Traceback" not in seen["serve_log"]
    assert seen["serve_exit"] == 0

    # An empty read-only folder is told what it is, never to chmod 700; nor is a home to be made inside it.
    learn = seen["empty"]["learn"]
    assert learn["code"] == 3 and "chmod" not in learn["err"]
    assert f"home {empty} is on a read-only file system, and it holds no Jiyi database to read" in learn["err"]
    below = seen["empty"]["new home below"]
    assert below["code"] == 3 and f"the folder {empty} is on a read-only file system" in below["err"]

    assert _digest(home) == before  # nothing in the home changed: no lock note, no WAL, no log
    assert main(["alias", "list", "--home", str(home)]) == 0  # writable again: the alias is there, alone
    out = capsys.readouterr().out
    assert "绿泡泡" in out and "小绿" not in out

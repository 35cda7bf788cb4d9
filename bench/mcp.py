"""Benchmark a `jiyi mcp` tool call beside the same operation over the socket, in one run.

A `jiyi serve` on a fresh temporary home (hashing embedder: this measures the
protocol layers, not the model) holds a few hundred turns. Then, alternating
call by call so that both see the same machine:

* socket — `service/client.py` (`JiyiClient.request`) on one connection;
* MCP — the official SDK's client driving `jiyi mcp` over stdio (`call_tool`),
  which reaches the same service over its own socket connection.

Both call `health` (`memory_status`: the cheapest operation, so the
difference is the MCP layer itself) and `memory.recall` (`memory_recall`).
The floor, measured in the same run: the SDK's own low-level server over
stdio answering a tool that does nothing (this script, `--floor-server`),
driven by the same client. Reported: p50/p99 of each, the difference MCP −
socket, and what is left of it above the SDK's floor — the part Jiyi's MCP
layer adds (goal: ≤ 2 ms at p50).

Run: `make bench` or `python -P bench/mcp.py [--calls 500] [--turns 300]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from service.client import JiyiClient
from service.evaluation.percentile import percentile

JIYI = str(Path(sys.executable).parent / "jiyi")
HASHED = {"JIYI_EMBED_MODEL": "hash"}
QUERIES = ["planning meeting", "上周的构建", "the Aurora room", "发布计划", "quarterly report draft"]


def floor_server() -> None:
    """The SDK's floor: its low-level server on stdio, one tool that does nothing."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="noop", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text="{}")], structured_content={})

    server: Server[Any] = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def start_serve(home: Path, sock: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | HASHED
    process = subprocess.Popen(
        [JIYI, "serve", "--home", str(home), "--socket", str(sock)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(sock))
            return process
        except OSError:
            time.sleep(0.05)
        finally:
            probe.close()
    process.kill()
    raise SystemExit("jiyi serve did not listen")


def seed(client: JiyiClient, turns: int) -> None:
    for i in range(turns):
        topic = QUERIES[i % len(QUERIES)]
        client.request(
            "interaction.remember",
            {"interaction_id": f"b-{i}", "user_text": f"{topic} #{i}?", "assistant_text": f"noted {topic} ({i})"},
        )


async def measure(home: Path, sock: Path, calls: int) -> dict[str, dict[str, list[float]]]:
    params = StdioServerParameters(
        command=JIYI, args=["mcp", "--home", str(home)], env={"JIYI_SOCKET": str(sock), **HASHED}
    )
    floor_params = StdioServerParameters(command=sys.executable, args=["-P", __file__, "--floor-server"])
    times: dict[str, dict[str, list[float]]] = {
        "health": {"socket": [], "mcp": [], "floor": []},
        "recall": {"socket": [], "mcp": [], "floor": []},
    }
    with JiyiClient(sock, timeout=30) as direct, open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as mcp,
            stdio_client(floor_params, errlog=errlog) as (floor_read, floor_write),
            ClientSession(floor_read, floor_write) as floor,
        ):
            await mcp.initialize()
            await floor.initialize()
            for warm in range(20):  # connections open, caches warm, both sides
                await mcp.call_tool("memory_status", {})
                await mcp.call_tool("memory_recall", {"query": QUERIES[warm % len(QUERIES)]})
                direct.request("health")
                await floor.call_tool("noop", {})
            for i in range(calls):
                query = QUERIES[i % len(QUERIES)]
                cases: list[tuple[str, str, Any]] = [
                    ("health", "socket", lambda: direct.request("health")),
                    ("recall", "socket", lambda q=query: direct.request("memory.recall", {"query": q})),
                ]
                for name, side, call in cases:
                    started = time.perf_counter()
                    answer = call()
                    times[name][side].append((time.perf_counter() - started) * 1000)
                    assert answer.get("ok"), answer
                for name, tool, arguments in (
                    ("health", "memory_status", {}),
                    ("recall", "memory_recall", {"query": query}),
                ):
                    started = time.perf_counter()
                    result = await mcp.call_tool(tool, arguments)
                    times[name]["mcp"].append((time.perf_counter() - started) * 1000)
                    assert not result.is_error, result
                    started = time.perf_counter()
                    await floor.call_tool("noop", {})
                    times[name]["floor"].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="calls of each kind on each side")
    parser.add_argument("--turns", type=int, default=300, help="turns in the home before measuring")
    parser.add_argument("--floor-server", action="store_true", help="(internal) serve the SDK's floor on stdio")
    args = parser.parse_args()
    if args.floor_server:
        floor_server()
        return
    folder = Path(tempfile.mkdtemp(prefix="jybench", dir="/tmp"))
    os.chmod(folder, 0o700)
    home, sock = folder / "home", folder / "jiyi.sock"
    serve = start_serve(home, sock)
    try:
        with JiyiClient(sock, timeout=30) as client:
            seed(client, args.turns)
        times = anyio.run(measure, home, sock, args.calls)
    finally:
        serve.send_signal(signal.SIGINT)
        serve.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"jiyi mcp beside the socket: {args.calls} calls each, {args.turns} turns in the home")
    print(
        f"{'operation':<15}{'socket p50':>11}{'p99':>8}{'MCP p50':>9}{'p99':>8}{'SDK floor p50':>14}{'p99':>8}", end=""
    )
    print(f"{'MCP-socket':>11}{'Jiyi layer':>11}")
    for name, label in (("health", "health"), ("recall", "memory.recall")):
        p50 = {side: percentile(values, 50) for side, values in times[name].items()}
        p99 = {side: percentile(values, 99) for side, values in times[name].items()}
        added = p50["mcp"] - p50["socket"]
        print(
            f"{label:<15}{p50['socket']:>9.2f}ms{p99['socket']:>6.2f}ms{p50['mcp']:>7.2f}ms{p99['mcp']:>6.2f}ms"
            f"{p50['floor']:>12.2f}ms{p99['floor']:>6.2f}ms{added:>9.2f}ms{added - p50['floor']:>9.2f}ms"
        )
    print("MCP-socket: what a tool call costs beyond the socket (the SDK's client and server, stdio, Jiyi's layer);")
    print("Jiyi layer: that minus the SDK's floor in the same run. Goal: Jiyi's MCP layer adds at most 2 ms at p50")


if __name__ == "__main__":
    main()

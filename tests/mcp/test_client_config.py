"""`jiyi mcp --print-config CLIENT`: each snippet parses as its client's format, and the command it holds starts
`jiyi mcp` with no environment but its own (as `env -i` would), which answers `initialize` and `tools/list`
and reaches the home's service. A client started without the user's PATH used to fail with
`FileNotFoundError: 'jiyi'`: the documented snippets said `"command": "jiyi"`."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.cli.mcp import CLIENTS as CLI_CLIENTS
from service.client import JiyiClient
from service.mcp.client_config import CLIENTS
from service.mcp.tools import TOOLS
from service.platform.address import home_socket_path
from tests.conftest import REPO
from tests.json_reads import dig
from tests.mcp.raw_stdio import RawSession
from tests.service.conftest import JIYI, Server, private_folder, start_server

HASHED = {"JIYI_EMBED_MODEL": "hash"}


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    with private_folder() as folder:
        running = start_server(folder / "home", folder / "run" / "jiyi.sock", env=HASHED)
        try:
            yield running
        finally:
            assert running.stop() == 0


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without Jiyi's settings, plus `extra`."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("JIYI_", "XDG_RUNTIME"))} | extra


def printed(client: str, home: Path, env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    program = list(command) or [JIYI]
    done = subprocess.run(
        [*program, "mcp", "--home", str(home), "--print-config", client],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def launch_of(client: str, text: str) -> dict[str, Any]:
    """The server entry a snippet holds, read as the client reads it: {command, args, env?}."""
    if client in ("claude-desktop", "cursor"):
        entry: dict[str, Any] = json.loads(text)["mcpServers"]["jiyi"]
    elif client == "vscode":
        entry = json.loads(text)["servers"]["jiyi"]
        assert entry["type"] == "stdio"
    elif client == "codex":
        entry = tomllib.loads(text)["mcp_servers"]["jiyi"]
    else:
        words = shlex.split(text)
        assert words[:6] == ["claude", "mcp", "add-json", "--scope", "user", "jiyi"] and len(words) == 7, words
        entry = json.loads(words[6])
        assert entry["type"] == "stdio"
    assert set(entry) <= {"type", "command", "args", "env"}, entry
    return entry


def converse(entry: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Start the entry's command with only the entry's environment (`env -i` and its `env`), and speak MCP on
    its stdin: initialize, tools/list, memory_status. The answers by id."""
    lines: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_status", "arguments": {}}},
    ]
    raw = RawSession(
        subprocess.Popen(
            [entry["command"], *entry["args"]],
            env=dict(entry.get("env", {})),
            cwd="/",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    answers: dict[int, dict[str, Any]] = {}
    try:
        for line in lines:
            if "id" in line:
                answer = raw.ask(json.dumps(line).encode())
                answers[answer["id"]] = answer
            else:
                raw.send(json.dumps(line).encode())
    finally:
        stderr = raw.finish()
    assert raw.process.returncode == 0, stderr
    return answers


@pytest.mark.parametrize("client", CLIENTS)
def test_each_snippet_parses_and_its_command_serves_with_an_empty_environment(served: Server, client: str) -> None:
    env = clean_env(JIYI_SOCKET=str(served.socket), JIYI_DATABASE_PASSWORD="never-printed", **HASHED)
    done = printed(client, served.home, env)
    assert "never-printed" not in done.stdout and "JIYI_DATABASE_PASSWORD" in done.stderr
    entry = launch_of(client, done.stdout)
    assert entry["command"] == JIYI and Path(entry["command"]).is_absolute()
    assert entry["args"] == ["mcp", "--home", str(served.home.resolve())]
    assert entry["env"] == {"JIYI_SOCKET": str(served.socket), **HASHED}  # what this command was given
    answers = converse(entry)
    assert answers[1]["result"]["serverInfo"]["name"] == "jiyi"
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == [tool.name for tool in TOOLS]
    status = answers[3]["result"]
    assert not status.get("isError"), status
    assert status["structuredContent"]["pid"] == served.process.pid  # the home's own service, not a new one


def test_two_homes_are_served_side_by_side_and_the_second_homes_snippet_reaches_its_own_service() -> None:
    """Each home has its own default socket (issue 39 §3): with `jiyi serve --home A` running, `jiyi serve --home B`
    used to exit 3 on the one shared socket, and `jiyi mcp --home B` answered "unavailable" for good. And a
    client that starts `jiyi mcp` with no XDG_RUNTIME_DIR would look for the service elsewhere than the console:
    the snippet carries the runtime folder the default socket is derived from."""
    with private_folder() as folder:
        runtime = folder / "runtime"
        runtime.mkdir(mode=0o700)
        env = clean_env(XDG_RUNTIME_DIR=str(runtime), **HASHED)
        homes = [folder / "a", folder / "b"]
        serves = [
            subprocess.Popen(
                [JIYI, "serve", "--home", str(home)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            for home in homes
        ]
        try:
            sockets = [home_socket_path(home, env) for home in homes]
            assert sockets[0] != sockets[1] and {path.parent for path in sockets} == {runtime / "jiyi"}
            deadline = time.monotonic() + 90
            while not all(path.is_socket() and answers(path) for path in sockets):
                assert all(serve.poll() is None for serve in serves), "jiyi serve exited (the other home's socket?)"
                assert time.monotonic() < deadline, "jiyi serve did not listen"
                time.sleep(0.1)
            for home, path, serve in zip(homes, sockets, serves, strict=True):
                with JiyiClient(path, timeout=30) as client:
                    result = client.request("health").get("result")
                assert dig(result, "home") == str(home.resolve()) and dig(result, "pid") == serve.pid
            entry = launch_of("codex", printed("codex", homes[1], env).stdout)
            assert entry["env"] == {"XDG_RUNTIME_DIR": str(runtime), **HASHED}
            status = converse(entry)[3]["result"]
            assert not status.get("isError"), status
            assert status["structuredContent"]["pid"] == serves[1].pid
        finally:
            for serve in serves:
                serve.terminate()
                serve.wait(30)


def answers(path: Path) -> bool:
    if sys.platform == "win32":
        pytest.skip("probes the service's Unix socket (Unix only)")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        return probe.connect_ex(str(path)) == 0


def test_run_as_a_module_it_names_the_installed_jiyi_script() -> None:
    """`python -m gui.main` has no `jiyi` in argv[0]: the snippet names the same interpreter's jiyi script."""
    with private_folder() as folder:
        done = printed("cursor", folder / "home", clean_env(), sys.executable, "-m", "gui.main")
    entry = launch_of("cursor", done.stdout)
    assert entry["command"] == JIYI and "env" not in entry


def test_the_command_and_the_module_offer_the_same_clients() -> None:
    assert CLI_CLIENTS == CLIENTS
    documented = (REPO / "docs" / "mcp.md").read_text("utf-8")
    for client in CLIENTS:
        assert f"--print-config {client}" in documented

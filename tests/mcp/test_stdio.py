"""`jiyi mcp` driven by the SDK's own client over stdio, against a real `jiyi serve` on a real socket."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.session import ClientSession, IncomingMessage, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from service.mcp.link import RECLAIM_S
from service.mcp.tools import TOOLS
from tests.mcp.raw_stdio import RawSession
from tests.secret_formats import FORMATS
from tests.service.conftest import JIYI, Server, private_folder, start_server

HASHED = {"JIYI_EMBED_MODEL": "hash"}  # these tests are about the protocol, not the model


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """One `jiyi serve` on a fresh home for the tests that only add to it."""
    with private_folder() as folder:
        running = start_server(folder / "home", folder / "run" / "jiyi.sock", env=HASHED, log=folder / "serve.log")
        try:
            yield running
        finally:
            assert running.stop() == 0


@pytest.fixture
def own_server() -> Iterator[Server]:
    """A `jiyi serve` of this test's own, which it may stop and start again."""
    with private_folder() as folder:
        running = start_server(folder / "home", folder / "run" / "jiyi.sock", env=HASHED)
        try:
            yield running
        finally:
            if running.alive():
                running.stop()


@asynccontextmanager
async def session(server: Server, handler: MessageHandlerFnT | None = None) -> AsyncIterator[ClientSession]:
    """A `jiyi mcp` process for the server's home, initialized, as an agent's MCP client starts it."""
    async with session_for(server.home, server.socket, handler) as client:
        yield client


@asynccontextmanager
async def session_for(home: Path, sock: Path, handler: MessageHandlerFnT | None = None) -> AsyncIterator[ClientSession]:
    """A `jiyi mcp` process for `home`, told to find its service on `sock`, initialized."""
    params = StdioServerParameters(
        command=JIYI, args=["mcp", "--home", str(home)], env={"JIYI_SOCKET": str(sock), **HASHED}
    )
    with open(home.parent / "mcp.log", "a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=handler) as client,
        ):
            await client.initialize()
            yield client


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def answer(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    loaded: dict[str, Any] = json.loads(text(result))
    assert result.structured_content == loaded
    return loaded


def stored_turns(home: Path) -> dict[str, int]:
    """Each stored turn's id and how many rows hold it, read from the home's SQLite file itself."""
    with sqlite3.connect(f"file:{home / 'jiyi.sqlite3'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT interaction_id, COUNT(*) FROM desk_interaction GROUP BY interaction_id")
        return dict(rows.fetchall())


def test_tools_resources_and_prompt_as_a_client_lists_them(served: Server) -> None:
    async def check() -> None:
        async with session(served) as client:
            assert client.initialize_result is not None
            assert client.initialize_result.server_info.name == "jiyi"
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert list(listed) == [tool.name for tool in TOOLS]
            for tool in TOOLS:
                assert listed[tool.name].input_schema == tool.input_schema()
                hints = listed[tool.name].annotations
                assert hints is not None
                assert hints.read_only_hint is (tool.operation.kind == "read")
                assert hints.idempotent_hint is tool.operation.idempotent
                assert hints.destructive_hint is False
            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            assert uris == {"jiyi://facts/active", "jiyi://skills/active", "jiyi://topics/recent"}
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["jiyi://bundles/{bundle_id}/{path}"]
            prompts = (await client.list_prompts()).prompts
            assert [p.name for p in prompts] == ["use-jiyi-memory"]
            prompt = await client.get_prompt("use-jiyi-memory")
            assert "memory_recall" in prompt.messages[0].content.text  # type: ignore[union-attr]
            health = answer(await client.call_tool("memory_status", {}))
            assert Path(health["home"]).resolve() == served.home.resolve()
            assert health["pid"] == served.process.pid  # attached to the running service, no private one

    anyio.run(check)


def test_remember_then_recall_and_a_retry_stores_the_turn_once(served: Server) -> None:
    turn = {"user_text": "Where does the quarterly planning meeting happen?", "assistant_text": "Room Aurora, 10:00"}

    async def check() -> None:
        async with session(served) as client:
            first = answer(await client.call_tool("remember_interaction", turn))
            again = answer(await client.call_tool("remember_interaction", turn))
            assert first["interaction_id"] == again["interaction_id"]
            recalled = answer(await client.call_tool("memory_recall", {"query": "quarterly planning Aurora"}))
            found = [i for i in recalled["interactions"] if i["interaction_id"] == first["interaction_id"]]
            assert found and "Aurora" in found[0]["assistant_text"]
            prepared = answer(await client.call_tool("context_prepare", {"query": "planning meeting", "budget": 2000}))
            assert "Aurora" in json.dumps(prepared, ensure_ascii=False)
            card = {"task_id": "t-plan", "title": "Book the planning room", "status": "succeeded", "result": "Aurora"}
            assert answer(await client.call_tool("complete_task", card))
            assert answer(await client.call_tool("list_skills", {}))["skills"] == []

    anyio.run(check)
    assert list(stored_turns(served.home).values()) == [1]


def test_a_stale_bundle_save_is_a_tool_error_carrying_the_current_revision(served: Server) -> None:
    doc = {"bundle_id": "project/launch", "path": "plan.md"}

    async def check() -> None:
        async with session(served) as client:
            saved = answer(
                await client.call_tool("save_bundle_document", {**doc, "content": "v1", "expected_revision": 0})
            )
            assert saved["revision"] == 1
            answer(await client.call_tool("save_bundle_document", {**doc, "content": "v2", "expected_revision": 1}))
            stale = await client.call_tool("save_bundle_document", {**doc, "content": "mine", "expected_revision": 1})
            assert stale.is_error
            assert "conflict" in text(stale) and "revision 2" in text(stale)
            assert stale.structured_content is not None
            error = stale.structured_content["error"]
            assert error["code"] == "conflict"
            assert error["data"]["revision"] == 2 and error["data"]["content"] == "v2"
            read = await client.read_resource("jiyi://bundles/project/launch/plan.md")
            assert read.contents[0].text == "v2"  # type: ignore[union-attr]

    anyio.run(check)


def test_bad_calls_are_tool_errors_and_the_server_goes_on(served: Server) -> None:
    async def check() -> None:
        async with session(served) as client:
            unknown = await client.call_tool("memory_recall", {"query": "x", "top_k": 3})
            assert unknown.is_error and "does not take top_k" in text(unknown)
            missing = await client.call_tool("save_bundle_document", {"bundle_id": "project/x", "path": "a.md"})
            assert missing.is_error and "needs content, expected_revision" in text(missing)
            wrong = await client.call_tool("memory_recall", {"query": "x", "limit": 500})
            assert wrong.is_error and "invalid_params" in text(wrong) and "limit" in text(wrong)
            assert "params." not in text(wrong)
            renamed = await client.call_tool("context_prepare", {"query": "x", "budget": 5})
            assert renamed.is_error and "budget" in text(renamed) and "budget_chars" not in text(renamed)
            nothing = await client.call_tool("forget_fact", {})
            assert nothing.is_error and "no tool 'forget_fact'" in text(nothing)
            missing_topic = await client.call_tool("get_topic", {"topic_id": "no-such-topic"})
            assert missing_topic.is_error and "not_found" in text(missing_topic)
            with pytest.raises(MCPError, match="not a Jiyi resource"):
                await client.read_resource("jiyi://nowhere")
            with pytest.raises(MCPError, match="not_found"):
                await client.read_resource("jiyi://bundles/project/none/plan.md")
            assert answer(await client.call_tool("memory_status", {}))["version"]

    anyio.run(check)


def test_resource_updates_follow_the_services_changes(served: Server) -> None:
    updated: list[str] = []
    arrived = anyio.Event()

    async def handler(message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            if "jiyi://topics/recent" in updated:
                arrived.set()

    async def check() -> None:
        async with session(served, handler) as client:
            # The handshake era's subscription (protocol 2025-11-25), which the desktop agents speak today;
            # the SDK warns that the 2026-07-28 revision replaces it by subscriptions/listen.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.subscribe_resource("jiyi://topics/recent")
            facts = json.loads((await client.read_resource("jiyi://facts/active")).contents[0].text)  # type: ignore[union-attr]
            assert facts["facts"] == []
            with anyio.fail_after(20):  # the notice reader subscribes in the background: write until it hears
                for note in range(40):
                    if arrived.is_set():
                        break
                    turn = {"user_text": f"note {note}", "assistant_text": "ok", "interaction_id": f"notice-{note}"}
                    answer(await client.call_tool("remember_interaction", turn))
                    with anyio.move_on_after(0.5):
                        await arrived.wait()

    anyio.run(check)
    assert "jiyi://topics/recent" in updated


def test_the_service_stopped_and_started_again_under_it(own_server: Server) -> None:
    async def check() -> None:
        async with session(own_server) as client:
            answer(await client.call_tool("remember_interaction", {"user_text": "a", "assistant_text": "b"}))
            assert own_server.stop() == 0
            down = await client.call_tool("memory_recall", {"query": "a"})
            assert down.is_error and "unavailable" in text(down)
            assert text(down).endswith("try again shortly"), text(down)  # the service may come back: it did
            refused = await client.call_tool("remember_interaction", {"user_text": "c", "assistant_text": "d"})
            assert refused.is_error and "unavailable" in text(refused)
            back = await anyio.to_thread.run_sync(lambda: start_server(own_server.home, own_server.socket, env=HASHED))
            own_server.process = back.process
            again = answer(await client.call_tool("remember_interaction", {"user_text": "c", "assistant_text": "d"}))
            assert again["interaction_id"]
            assert answer(await client.call_tool("memory_status", {}))["pid"] == back.process.pid
            # Gone for good (the agent window whose `jiyi mcp` had started it closed): after RECLAIM_S without
            # a service, the next call starts a private one, which writes to the same home.
            assert own_server.stop() == 0
            assert (await client.call_tool("memory_status", {})).is_error
            await anyio.sleep(RECLAIM_S + 0.5)
            private = answer(await client.call_tool("remember_interaction", {"user_text": "e", "assistant_text": "f"}))
            assert private["created"] is True
            health = answer(await client.call_tool("memory_status", {}))
            assert health["pid"] != back.process.pid and Path(health["home"]).resolve() == own_server.home.resolve()

    anyio.run(check)
    assert len(stored_turns(own_server.home)) == 3  # the private service stopped with `jiyi mcp`: the file is free


@pytest.mark.slow
def test_two_mcp_processes_write_200_turns_each_every_turn_exactly_once(own_server: Server) -> None:
    async def write(name: str) -> None:
        async with session(own_server) as client:
            for i in range(200):
                turn = {"interaction_id": f"{name}-{i}", "user_text": f"{name} asks {i}", "assistant_text": f"{i}"}
                answer(await client.call_tool("remember_interaction", turn))
                if i % 20 == 0:  # a client retrying after a lost answer: the same turn again
                    answer(await client.call_tool("remember_interaction", turn))

    async def both() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(write, "a")
            group.start_soon(write, "b")

    anyio.run(both)
    turns = stored_turns(own_server.home)
    assert set(turns) == {f"{name}-{i}" for name in "ab" for i in range(200)}
    assert set(turns.values()) == {1}


def test_a_listen_stream_of_the_2026_protocol_gets_the_updates_too(served: Server) -> None:
    params = StdioServerParameters(
        command=JIYI, args=["mcp", "--home", str(served.home)], env={"JIYI_SOCKET": str(served.socket), **HASHED}
    )
    heard: list[str] = []

    async def follow(stream: AsyncIterator[object]) -> None:
        async for event in stream:
            heard.append(str(getattr(event, "uri", "")))
            return

    async def check() -> None:
        async with Client(params) as client:  # `auto`: discovers the 2026-07-28 protocol, no handshake
            assert client.protocol_version == "2026-07-28"
            async with (
                client.listen(resource_subscriptions=["jiyi://facts/active"]) as stream,
                anyio.create_task_group() as group,
            ):
                group.start_soon(follow, stream)
                with anyio.fail_after(20):  # the notice reader subscribes in the background: write until heard
                    for note in range(40):
                        if heard:
                            break
                        answer(
                            await client.call_tool(
                                "remember_interaction", {"user_text": f"l{note}", "assistant_text": "ok"}
                            )
                        )
                        await anyio.sleep(0.5)
                group.cancel_scope.cancel()

    anyio.run(check)
    assert heard == ["jiyi://facts/active"]


def test_an_argument_or_uri_over_the_limit_is_refused_naming_the_limit_and_the_session_goes_on(
    served: Server,
) -> None:
    """A request longer than the service's line limit (1 MiB) used to come back as "unavailable … try again
    shortly" (the service closed the connection on it), which an agent retries for ever."""
    huge = "长" * 400_000  # 1.2 MB of UTF-8

    async def check() -> None:
        async with session(served) as client:
            for name, arguments in (
                ("remember_interaction", {"user_text": huge, "assistant_text": "ok"}),
                (
                    "save_bundle_document",
                    {"bundle_id": "project/big", "path": "a.md", "content": huge, "expected_revision": 0},
                ),
                ("memory_recall", {"query": huge}),
            ):
                refused = await client.call_tool(name, arguments)
                assert refused.is_error, name
                assert "invalid_params" in text(refused) and "1,048,576 bytes" in text(refused), text(refused)
                assert "try again" not in text(refused) and "unavailable" not in text(refused)
            with pytest.raises(MCPError, match="1,048,576 bytes") as uri:
                await client.read_resource(f"jiyi://bundles/project/big/{'a' * (1 << 20)}.md")
            assert "try again" not in str(uri.value)
            assert answer(await client.call_tool("memory_status", {}))["pid"] == served.process.pid

    anyio.run(check)


def test_a_stdio_line_nested_too_deep_or_holding_a_lone_surrogate_gets_a_json_rpc_error(served: Server) -> None:
    """Such lines used to get no answer and no log line: the client waited for ever. Raw bytes on a real
    `jiyi mcp`'s stdin, as a client (or an attacker) writes them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    env |= {"JIYI_SOCKET": str(served.socket), **HASHED}
    mcp = subprocess.Popen(
        [JIYI, "mcp", "--home", str(served.home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    raw = RawSession(mcp)
    ask = raw.ask
    nested = b'{"query":' + b"[" * 300 + b"]" * 300 + b"}"
    try:
        hello = ask(
            b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
        )
        assert hello["result"]["serverInfo"]["name"] == "jiyi"
        raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        call = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"memory_recall","arguments":%s}}'
        deep = ask(call % (b"7", nested))
        assert (
            deep["id"] == 7 and deep["error"]["code"] == -32600 and "nested more than 200" in deep["error"]["message"]
        )
        lone = ask(call % (b'"s-8"', b'{"query":"\\ud800 alone"}'))
        assert lone["id"] == "s-8" and lone["error"]["code"] == -32600 and "lone surrogate" in lone["error"]["message"]
        unclosed = ask(b"[" * 100_000)  # nothing can be read of it, not even an id
        assert unclosed["id"] is None and unclosed["error"]["code"] in (-32600, -32700)
        broken = ask(b'{"jsonrpc":"2.0","id":9,"method":')
        assert broken["id"] is None and broken["error"]["code"] == -32700
        fine = ask(b'{"jsonrpc":"2.0","id":10,"method":"ping"}')  # and the session goes on
        assert fine == {"jsonrpc": "2.0", "id": 10, "result": {}}
    finally:
        logged = raw.finish()
    assert "refused a request on stdin (id 7): the request is nested more than 200" in logged, logged
    assert 'refused a request on stdin (id "s-8"): the request holds a lone surrogate' in logged, logged


def test_try_again_is_said_only_where_a_retry_can_help(served: Server) -> None:
    """Every failure to reach the service used to end "unavailable right now; try again shortly", also where
    retrying never helps: the socket served another home, or the home's own service refused its socket."""
    with private_folder() as folder:
        other_home = folder / "other"

        async def check() -> None:
            async with session_for(other_home, served.socket) as client:  # the socket is the served home's
                for _ in range(2):
                    elsewhere = await client.call_tool("memory_status", {})
                    assert elsewhere.is_error and "try again" not in text(elsewhere), text(elsewhere)
                    assert f"serves the home {served.home}, not {other_home}" in text(elsewhere)
                    assert "JIYI_SOCKET" in text(elsewhere)
            occupied = folder / "run" / "not-a-socket"
            occupied.parent.mkdir(mode=0o700)
            occupied.write_text("a file where the socket goes\n")
            async with session_for(other_home, occupied) as client:
                refused = await client.call_tool("memory_status", {})
                assert refused.is_error and "try again" not in text(refused), text(refused)
                assert "is not a socket" in text(refused) and "does not help" in text(refused)
                with pytest.raises(MCPError) as unread:
                    await client.read_resource("jiyi://facts/active")
                assert "is not a socket" in str(unread.value) and "try again" not in str(unread.value)

        anyio.run(check)


def test_secrets_said_to_the_tools_reach_no_file_of_the_home(own_server: Server) -> None:
    """Every format through every writing tool of `jiyi mcp` (a turn, a task card, a bundle's Markdown and its
    `state.json`); once the index has embedded the turns and cards, and the service has stopped, no file of the
    home (`jiyi.sqlite3` and its WAL, `vectors/`, `bundles/`) holds a secret."""
    written: dict[str, int] = {}
    refused: list[tuple[str, str]] = []

    async def call(client: ClientSession, tool: str, arguments: dict[str, Any]) -> None:
        result = await client.call_tool(tool, arguments)
        written[tool] = written.get(tool, 0) + (not result.is_error)
        if result.is_error:
            refused.append((tool, text(result)))

    async def check() -> None:
        async with session(own_server) as client:
            for index, fmt in enumerate(FORMATS):
                said = fmt.make(0).text
                await call(client, "remember_interaction", {"user_text": f"记一下 {said}", "assistant_text": said})
                card = {"task_id": f"t-{index}", "title": f"备注 {said}", "status": "succeeded", "result": said}
                await call(client, "complete_task", card)
                bundle = {"bundle_id": f"project/p{index}", "expected_revision": 0}
                await call(client, "save_bundle_document", {**bundle, "path": "notes.md", "content": said})
                state = json.dumps({"note": said, "n": index}, ensure_ascii=False)
                await call(client, "save_bundle_document", {**bundle, "path": "state.json", "content": state})
            lag, deadline = None, time.monotonic() + 120
            while lag != 0 and time.monotonic() < deadline:
                lag = answer(await client.call_tool("memory_status", {}))["desk"]["index_lag"]
                await anyio.sleep(0.2)
            assert lag == 0, "the desk index did not embed the turns and cards"

    anyio.run(check)
    assert own_server.stop() == 0
    # Each tool stored every format (redacted): only a card's title is refused, where a private key is longer than
    # a title may be.
    assert [tool for tool, why in refused if "title" not in why] == [], refused
    assert written["remember_interaction"] == len(FORMATS) and written["save_bundle_document"] == 2 * len(FORMATS)
    files = {path: path.read_bytes().lower() for path in own_server.home.rglob("*") if path.is_file()}
    assert any(path.match("vectors/*/*") for path in files) and any(path.match("bundles/*/*/*") for path in files)
    found = sorted(
        (fmt.name, str(path.relative_to(own_server.home)))
        for fmt in FORMATS
        for needle in fmt.make(0).needles
        for path, data in files.items()
        if needle.lower().encode() in data
    )
    assert found == []

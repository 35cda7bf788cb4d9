"""What `jiyi mcp` keeps per client: a subscription ends with its session, the bundle documents followed are capped.

The server runs in-process on the SDK's own session loop over memory streams (what the streamable-HTTP
manager drives per session), with a real client; the tests never call the service.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.server.runner import serve_loop
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.memory import create_client_server_memory_streams

from service.config import load_config
from service.mcp.link import ServiceLink
from service.mcp.server import BUNDLES_FOLLOWED, JiyiMcp, bundle_uri


def jiyi_for(tmp_path: Path) -> JiyiMcp:
    return JiyiMcp(ServiceLink(load_config(home=tmp_path / "home", env={"JIYI_SOCKET": str(tmp_path / "no.sock")})))


def test_a_subscription_ends_with_its_clients_session(tmp_path: Path) -> None:
    jiyi = jiyi_for(tmp_path)
    uri = "jiyi://facts/active"

    async def one_session() -> None:
        async with (
            create_client_server_memory_streams() as (client_streams, server_streams),
            anyio.create_task_group() as group,
        ):
            group.start_soon(lambda: serve_loop(jiyi.server, *server_streams, lifespan_state={}))
            async with ClientSession(*client_streams) as client:
                await client.initialize()
                with warnings.catch_warnings():  # the handshake era's subscribe, as test_stdio's client
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await client.subscribe_resource(uri)
                    await client.subscribe_resource(uri)  # twice: still one subscriber, told once
                assert len(jiyi.subscribed[uri]) == 1
            group.cancel_scope.cancel()

    anyio.run(one_session)
    assert uri not in jiyi.subscribed  # the ended session's entry is gone, not kept for the server's life
    anyio.run(one_session)  # a second client, after the first has gone: only its own subscription counted
    assert jiyi.subscribed == {}


def test_the_bundle_documents_followed_are_the_most_recently_read(tmp_path: Path) -> None:
    jiyi = jiyi_for(tmp_path)
    uris = [bundle_uri("project/notes", f"day-{i}.md") for i in range(BUNDLES_FOLLOWED + 50)]
    for uri in uris:
        jiyi.note_read(uri)
    jiyi.note_read(uris[0])  # read again: followed again, the oldest others go
    assert len(jiyi.bundles_read) == BUNDLES_FOLLOWED
    assert list(jiyi.bundles_read)[-1] == uris[0]
    assert uris[50] not in jiyi.bundles_read and uris[51] in jiyi.bundles_read and uris[-1] in jiyi.bundles_read

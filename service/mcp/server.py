"""The MCP server: the tools of `tools.py`, a few resources, one prompt, and change notices, over stdio.

Built on the SDK's low-level `Server`, which takes each tool's JSON Schema
as given (the declaration's), where `MCPServer` would derive one from a
Python signature. Every failure of a call becomes a tool result with
`isError` and a message that says what to do; nothing a client sends ends
the server. Calls on the service run on worker threads (the socket client
is synchronous), so a slow recall never holds another call back.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from service import __version__
from service.mcp.link import NoService, ServiceAway, ServiceLink
from service.mcp.tools import BY_NAME, TOOLS, Tool
from service.mcp.unreadable import AnsweringReader
from service.memory.domain import Domain
from service.ops import desk, maintenance
from service.ops.declare import Operation
from service.remote.notices import NoticeReader
from store.core.errors import Conflict, InvalidInput, JiyiError, NotFound

log = logging.getLogger("jiyi.service.mcp")

Context = ServerRequestContext[Any, Any]

INSTRUCTIONS = (
    "Jiyi (记忆) is the user's local long-term memory. Before answering about past work, earlier "
    "conversations, preferences, projects or people, call memory_recall. After each finished turn, call "
    "remember_interaction. Forgetting, confirming facts and activating skills are the user's decisions, made "
    "in the Jiyi console: you cannot do them."
)

BUNDLE_PREFIX = "jiyi://bundles/"
FORGET_ON_CLOSE = "jiyi.forget_on_close"  # a connection's state: its subscriptions go when it closes
BUNDLES_FOLLOWED = 256  # the most recently read bundle documents a listen stream is told about


class Resource:
    """A readable view of memory: a fixed call of one operation."""

    def __init__(
        self, uri: str, name: str, description: str, operation: Operation[Any, Any], params: Mapping[str, object]
    ):
        self.uri, self.name, self.description = uri, name, description
        self.operation, self.params = operation, params


RESOURCES = (
    Resource(
        "jiyi://facts/active",
        "active-facts",
        "The user's active long-term facts, with their evidence (JSON).",
        maintenance.FACT_LIST,
        {"status": "active"},
    ),
    Resource(
        "jiyi://skills/active",
        "active-skills",
        "The skills the user activated, with their steps (JSON).",
        maintenance.SKILL_LIST,
        {"status": "active", "audience": "executor"},
    ),
    Resource(
        "jiyi://topics/recent",
        "recent-topics",
        "The 20 most recently active conversation topics (JSON).",
        maintenance.TOPIC_LIST,
        {"limit": 20},
    ),
)
STATIC = {resource.uri: resource for resource in RESOURCES}

PROMPT = types.Prompt(
    name="use-jiyi-memory",
    title="Use Jiyi memory",
    description="How to use the user's Jiyi memory in this conversation: recall first, remember each turn.",
)
PROMPT_TEXT = (
    "You have the user's long-term memory through the Jiyi tools.\n"
    "1. Before you answer anything about past work, earlier conversations, the user's preferences, projects, "
    "people or apps, call memory_recall with the question (or context_prepare for a prompt-ready summary), "
    "and use what comes back; say so when memory has nothing.\n"
    "2. When a turn is finished, call remember_interaction with the user's message and your answer. When a "
    "piece of work is done or has failed, call complete_task.\n"
    "3. To change a bundle document, read it with get_bundle, then save_bundle_document with the revision "
    "you read; on a conflict, merge with the current content it returns and save again.\n"
    "4. Forgetting, confirming facts, activating skills and approving lessons are the user's decisions in the "
    "Jiyi console; tell the user when one is needed."
)


def bundle_uri(bundle_id: str, path: str) -> str:
    """`jiyi://bundles/{bundle_id}/{path}`: a bundle's id is `<kind>/<key>`, so `jiyi://bundles/project/x/plan.md`."""
    return f"{BUNDLE_PREFIX}{quote(bundle_id, safe='/')}/{quote(path, safe='/')}"


def parse_bundle_uri(uri: str) -> tuple[str, str]:
    """(bundle_id, path) of a bundle document's URI (the id's slash may be written %2F); `InvalidInput` when
    it is not one."""
    rest = unquote(uri.removeprefix(BUNDLE_PREFIX)) if uri.startswith(BUNDLE_PREFIX) else ""
    parts = rest.split("/", 2)
    if len(parts) < 3 or not all(parts):
        raise InvalidInput(
            f"{uri!r} is not a Jiyi resource: jiyi://bundles/<kind>/<key>/<path> reads a bundle document "
            "(e.g. jiyi://bundles/project/notes/plan.md)"
        )
    return f"{parts[0]}/{parts[1]}", parts[2]


class JiyiMcp:
    """The server's state: the service link, the resource subscriptions, the change feed."""

    def __init__(self, link: ServiceLink) -> None:
        self.link = link
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        # uri -> the client connections subscribed to it (the handshake era's subscribe); a connection leaves
        # them all when it closes (HTTP sessions come and go for the server's lifetime)
        self.subscribed: dict[str, set[Connection]] = {}
        # bundle URIs clients read, most recent last: a listen stream may follow them (at most BUNDLES_FOLLOWED)
        self.bundles_read: OrderedDict[str, None] = OrderedDict()
        self.server: Server[Any] = Server(
            "jiyi",
            version=__version__,
            title="Jiyi 记忆",
            description="The user's local long-term memory (turns, task cards, topics, facts, skills, bundles).",
            instructions=INSTRUCTIONS,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_subscribe_resource=self._subscribe,
            on_unsubscribe_resource=self._unsubscribe,
            on_subscriptions_listen=self.listen,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
        )

    # -- tools -----------------------------------------------------------------------------

    async def _list_tools(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in TOOLS])

    async def _call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            return failure(f"there is no tool {params.name!r}; Jiyi's tools are {', '.join(BY_NAME)}")
        try:
            sent = tool.params(params.arguments)
            result = await self._call(tool.operation, sent)
        except JiyiError as exc:
            return tool_failure(tool, exc)
        except Exception:  # a bug here must not end the agent's session: logged, answered
            log.exception("%s failed", tool.name)
            return failure(f"{tool.name} failed inside jiyi mcp (internal error; see its stderr)")
        return success(result)

    async def _call(self, operation: Operation[Any, Any], params: Mapping[str, object]) -> Any:
        return await anyio.to_thread.run_sync(self.link.call, operation, params)

    # -- resources ---------------------------------------------------------------------------

    async def _list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        listed = [
            types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type="application/json")
            for r in RESOURCES
        ]
        return types.ListResourcesResult(resources=listed)

    async def _list_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=BUNDLE_PREFIX + "{bundle_id}/{path}",
            name="bundle-document",
            description="One document of a bundle folder, as text: bundle_id is `project/<name>` or "
            "`schedule/<id>` (jiyi://bundles/project/notes/plan.md). get_bundle lists a bundle's documents.",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def _read_resource(self, ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        try:
            return await self._read(str(params.uri))
        except JiyiError as exc:
            raise protocol_error(exc) from None

    async def _read(self, uri: str) -> types.ReadResourceResult:
        static = STATIC.get(uri)
        if static is not None:
            result = await self._call(static.operation, dict(static.params))
            text, mime = dumps(result), "application/json"
        else:
            bundle, path = parse_bundle_uri(uri)
            got = await self._call(desk.BUNDLE_GET, {"bundle_id": bundle, "path": path})
            self.note_read(uri)
            documents = [doc for doc in got.get("documents", []) if doc.get("path") == path]
            text = str(documents[0].get("content") or "") if documents else ""
            mime = "application/json" if path.endswith(".json") else "text/markdown"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    async def _subscribe(self, ctx: Context, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in STATIC:
            try:
                parse_bundle_uri(uri)  # refuses what is not a resource of Jiyi's
            except InvalidInput as exc:
                raise protocol_error(exc) from None
        follower = connection(ctx)
        if not follower.state.get(FORGET_ON_CLOSE):
            follower.state[FORGET_ON_CLOSE] = True
            follower.exit_stack.callback(self.forget, follower)
        self.subscribed.setdefault(uri, set()).add(follower)
        return types.EmptyResult()

    async def _unsubscribe(self, ctx: Context, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        followers = self.subscribed.get(uri)
        if followers is not None:
            followers.discard(connection(ctx))
            if not followers:
                del self.subscribed[uri]
        return types.EmptyResult()

    def forget(self, follower: Connection) -> None:
        """Drop the subscriptions of a client connection that ended."""
        for uri in list(self.subscribed):
            self.subscribed[uri].discard(follower)
            if not self.subscribed[uri]:
                del self.subscribed[uri]

    def note_read(self, uri: str) -> None:
        """Remember that a client read bundle document `uri` (the least recently read forgotten past the cap)."""
        self.bundles_read[uri] = None
        self.bundles_read.move_to_end(uri)
        while len(self.bundles_read) > BUNDLES_FOLLOWED:
            self.bundles_read.popitem(last=False)

    async def resources_changed(self, domains: list[str]) -> None:
        """Tell subscribers that the resources of the changed domains may read differently now."""
        if Domain.DESK not in domains:
            return
        uris = set(STATIC) | set(self.subscribed) | set(self.bundles_read)
        for uri in sorted(uris):
            await self.bus.publish(ResourceUpdated(uri=uri))
            for follower in list(self.subscribed.get(uri, ())):
                try:
                    await follower.send_resource_updated(uri)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    self.subscribed[uri].discard(follower)  # that client went away

    # -- the prompt ----------------------------------------------------------------------------

    async def _list_prompts(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[PROMPT])

    async def _get_prompt(self, ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT.name:
            raise protocol_error(InvalidInput(f"there is no prompt {params.name!r}; Jiyi's prompt is {PROMPT.name}"))
        message = types.PromptMessage(role="user", content=types.TextContent(text=PROMPT_TEXT))
        return types.GetPromptResult(description=PROMPT.description, messages=[message])

    # -- its life --------------------------------------------------------------------------------

    @asynccontextmanager
    async def _lifespan(self, server: Server[Any]) -> AsyncIterator[dict[str, object]]:
        """Reach the service in the background (a private one takes a second to start; `initialize` does not
        wait for it), and follow its change notices for as long as the server runs."""
        token = anyio.lowlevel.current_token()

        def changed(domains: list[str], generation: int) -> None:
            with contextlib.suppress(RuntimeError):  # the server's loop has ended
                anyio.from_thread.run(self.resources_changed, domains, token=token)

        async with anyio.create_task_group() as group:
            group.start_soon(self._connect)
            reader = NoticeReader(self.link.socket_path, changed)
            reader.start()
            try:
                yield {}
            finally:
                self.listen.close()
                await anyio.to_thread.run_sync(reader.stop)
                group.cancel_scope.cancel()

    async def _connect(self) -> None:
        try:
            await anyio.to_thread.run_sync(self.link.connect)
        except NoService as exc:
            log.warning("%s", exc)
        except JiyiError as exc:
            log.warning("%s (tools answer an error until it is up)", exc)

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(NotificationOptions())


def connection(ctx: Context) -> Connection:
    """The client connection of a request: the SDK builds a `ServerSession` per request, so a subscription
    is held by the connection it proxies (one per client session, closed when the session ends)."""
    return ctx.session._connection  # the SDK's session offers no public accessor for it


def mcp_tool(tool: Tool) -> types.Tool:
    hints = tool.annotations()
    return types.Tool(
        name=tool.name,
        title=tool.name.replace("_", " "),
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=hints["readOnlyHint"],
            destructive_hint=hints["destructiveHint"],
            idempotent_hint=hints["idempotentHint"],
            open_world_hint=hints["openWorldHint"],
        ),
    )


def protocol_error(exc: JiyiError) -> MCPError:
    """A failure outside a tool call (reading a resource, a prompt) as a JSON-RPC error with its message (the
    SDK answers any other exception "Internal server error", which says nothing)."""
    code = INVALID_PARAMS if isinstance(exc, InvalidInput | NotFound) else INTERNAL_ERROR
    return MCPError(code, f"{exc.code}: {exc}{retry_hint(exc)}")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def success(result: Any) -> types.CallToolResult:
    structured = result if isinstance(result, dict) else {"value": result}
    return types.CallToolResult(content=[types.TextContent(text=dumps(result))], structured_content=structured)


def failure(message: str, error: dict[str, object] | None = None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=message)],
        structured_content={"error": error} if error is not None else None,
        is_error=True,
    )


def tool_failure(tool: Tool, exc: JiyiError) -> types.CallToolResult:
    """A failed call as the model should read it: what went wrong, in the tool's own argument names, and
    for a conflict the current revision and content to merge with."""
    message = str(exc)
    for param, name in ((param, tool.argument_name(param)) for param in tool.fields.values()):
        message = message.replace(f"params.{param}", name)
    message = message.replace("params.", "")
    error: dict[str, object] = {"code": exc.code, "message": message}
    if isinstance(exc, Conflict) and exc.details:
        error["data"] = exc.details
        current = exc.details.get("current_revision", exc.details.get("revision"))
        if current is not None:
            message += f" (current revision: {current}; read it, merge, and save with expected_revision={current})"
    return failure(f"{tool.name}: {exc.code}: {message}{retry_hint(exc)}", error)


def retry_hint(exc: JiyiError) -> str:
    """ " — try again shortly" where a retry can help (the service is starting, restarting or busy), and only
    there: a request refused, a home refused or a socket that serves another home stay as they are."""
    return " — try again shortly" if isinstance(exc, ServiceAway) else ""


async def serve_stdio(jiyi: JiyiMcp) -> None:
    """Serve one client on this process's stdin and stdout until it closes stdin."""
    async with stdio_server() as (read_stream, write_stream):
        # A line the SDK cannot read is answered (a JSON-RPC error) instead of dropped without a word.
        answering = AnsweringReader(read_stream, write_stream)
        await jiyi.server.run(answering, write_stream, jiyi.initialization_options())


def run_stdio(link: ServiceLink, serve: Callable[[JiyiMcp], Any] = serve_stdio) -> None:
    """Run the stdio server to its end; the link (and a private service it started) is closed after."""
    jiyi = JiyiMcp(link)
    try:
        anyio.run(serve, jiyi)
    finally:
        link.close()

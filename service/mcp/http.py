"""`jiyi mcp --http 127.0.0.1:PORT`: the same server over streamable HTTP, for agents that cannot start a process.

Loopback only: any other address is refused (the memory never listens on a
network). Every request must carry `Authorization: Bearer <token>`, the token
read from `<home>/mcp-token` (0600; created with a random token when missing,
its path printed to stderr). The SDK's DNS-rebinding protection is on: a
request whose Host or Origin is not the loopback address is refused, so a web
page cannot reach the server through a name that resolves to 127.0.0.1.
"""

from __future__ import annotations

import errno
import hmac
import logging
import os
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from service.mcp.http_guard import guarded_protocol
from service.mcp.link import ServiceLink
from service.mcp.server import JiyiMcp
from store.core.errors import EnvironmentProblem, InvalidInput, os_problem
from store.core.home import platform

log = logging.getLogger("jiyi.service.mcp")

LOOPBACK = ("127.0.0.1", "::1", "localhost")
TOKEN_NAME = "mcp-token"
PATH = "/mcp"


def parse_address(text: str) -> tuple[str, int]:
    """(host, port) of `HOST:PORT` (`[::1]:PORT` for IPv6); `InvalidInput` for anything but a loopback address."""
    host, sep, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise InvalidInput(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765, not {text!r}")
    if host not in LOOPBACK:
        raise InvalidInput(
            f"--http listens on loopback only (127.0.0.1, [::1] or localhost), not {host!r}: the memory is not "
            "served to a network"
        )
    return host, int(port)


def read_token(home: Path) -> tuple[Path, str]:
    """The bearer token of `<home>/mcp-token`, created (0600, random) when missing; a token file that is a
    link, not a regular file, not the user's, or readable by others is refused, and a home it cannot be
    written in or read from is an `EnvironmentProblem` naming the path."""
    path = home / TOKEN_NAME
    if not path.exists() and not path.is_symlink():
        try:
            home.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = platform.open_file(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(32) + "\n")
        except FileExistsError:
            pass  # another `jiyi mcp --http` made it first: read theirs
        except OSError as exc:
            raise os_problem(exc, f"the MCP token file {path}") from None
    try:
        fd = platform.open_file(path, os.O_RDONLY | platform.NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise EnvironmentProblem(f"{path} must be a regular file, not a link") from None
        raise EnvironmentProblem(f"cannot read the MCP token file {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as held:  # checked and read through one descriptor: no link swapped in between
        info = os.fstat(held.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise EnvironmentProblem(f"{path} must be a regular file, not a link")
        if platform.not_yours(info) or platform.open_to_others(info):
            raise EnvironmentProblem(f"{path} must be yours and readable by you only (chmod 600 {path})")
        token = held.read(4096).decode("utf-8", "replace").strip()
    if len(token) < 16:
        raise EnvironmentProblem(f"{path} holds no token of at least 16 characters")
    return path, token


class BearerGate:
    """ASGI middleware: a request without `Authorization: Bearer <token>` gets 401 and reaches nothing. The
    scheme is matched in any case (`bearer`, `BEARER`: RFC 9110 §11.1), the token exactly."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, credentials = given.strip().partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credentials.strip(b" "), self.expected):
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"a bearer token is required (see docs/mcp.md)\n"})
                return
        await self.app(scope, receive, send)


def run_http(link: ServiceLink, address: str) -> None:
    """Serve MCP over streamable HTTP on the loopback `address` until interrupted."""
    import uvicorn

    try:
        host, port = parse_address(address)
        token_path, token = read_token(link.config.home_path)
        jiyi = JiyiMcp(link)
        bracketed = f"[{host}]" if ":" in host else host
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{bracketed}:{port}", f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"],
            allowed_origins=[f"http://{bracketed}:{port}", f"http://localhost:{port}", f"http://127.0.0.1:{port}"],
        )
        app = BearerGate(jiyi.server.streamable_http_app(host=host, transport_security=security), token)
        url = f"http://{bracketed}:{port}{PATH}"
        print(f"jiyi mcp: {url} (bearer token in {token_path})", file=sys.stderr, flush=True)
        # h11 with a deadline for each request to arrive whole and a cap on those arriving (slowloris).
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on", http=guarded_protocol())
    finally:
        link.close()

"""Find the service that owns a home, and open the home's memory through it or here.

One process owns a home at a time (its lock). When that process is a service
listening on the configured socket, the console and the commands attach to it
instead of refusing; otherwise they open the home themselves.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from service.client import JiyiClient, JsonObject
from service.platform.address import home_socket_path, may_be_listening, socket_address

if TYPE_CHECKING:  # a command through a running service needs neither the store nor recall (docs/cli.md)
    from service.config import Config
    from service.memory.api import MemoryApi

log = logging.getLogger("jiyi.service.remote")

PROBE_TIMEOUT_S = 2.0


def configured_socket(config: Config, flag: Path | None = None) -> Path:
    """--socket, else JIYI_SOCKET / config.toml's `socket`, else the home's own (`service/platform/address.py`)."""
    if flag:
        return socket_address(str(flag))
    if config.socket:
        return socket_address(config.socket)
    return home_socket_path(config.home_path)


def find_service(config: Config) -> tuple[Path, JsonObject] | None:
    """The socket of a live service that serves `config`'s home, and its health; None when there is none."""
    found = service_on_socket(config)
    if found is None:
        return None
    path, result = found
    if not serves(result, config):
        log.debug("the service on %s serves %s, not %s", path, result.get("home"), config.home_path)
        return None
    return found


def service_on_socket(config: Config) -> tuple[Path, JsonObject] | None:
    """The configured socket and the health of the live service answering on it, whatever home it serves;
    None when none answers."""
    path = configured_socket(config)
    if not may_be_listening(path):
        return None
    with JiyiClient(path, timeout=PROBE_TIMEOUT_S, hello="command") as client:  # a probe, never an agent
        response = client.request("health")
    result = response.get("result")
    if not response.get("ok") or not isinstance(result, dict):
        return None
    return path, result


def serves(health: JsonObject, config: Config) -> bool:
    """Whether the service whose health this is serves `config`'s home."""
    try:
        return Path(str(health.get("home"))).resolve() == Path(config.home_path).resolve()
    except OSError:
        return False


def open_memory(config: Config) -> MemoryApi:
    """The home's memory: through the service that owns it when one runs, else opened here."""
    found = find_service(config)
    if found is not None:
        path, health = found
        from service.remote.memory import RemoteMemory

        return RemoteMemory(config, path, health, client="command")
    from service.memory.memory import Memory  # the store, recall and their models: only when opened here

    return Memory.open(config)

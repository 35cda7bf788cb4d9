"""Find the service that owns a home, and open the home's memory through it or here.

One process owns a home at a time (its lock). When that process is a service
listening on the configured socket, the console and the commands attach to it
instead of refusing; otherwise they open the home themselves.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from service.client import JiyiClient, JsonObject, default_socket_path

if TYPE_CHECKING:  # a command through a running service needs neither the store nor recall (docs/cli.md)
    from service.config import Config
    from service.memory.api import MemoryApi

log = logging.getLogger("jiyi.service.remote")

PROBE_TIMEOUT_S = 2.0


def configured_socket(config: Config, flag: Path | None = None) -> Path:
    """--socket, else JIYI_SOCKET / config, else the runtime directory's default."""
    return Path(flag) if flag else Path(config.socket) if config.socket else default_socket_path()


def find_service(config: Config) -> tuple[Path, JsonObject] | None:
    """The socket of a live service that serves `config`'s home, and its health; None when there is none."""
    path = configured_socket(config)
    if not path.exists():
        return None
    with JiyiClient(path, timeout=PROBE_TIMEOUT_S, hello="command") as client:  # a probe, never an agent
        response = client.request("health")
    result = response.get("result")
    if not response.get("ok") or not isinstance(result, dict):
        return None
    try:
        same = Path(str(result.get("home"))).resolve() == Path(config.home_path).resolve()
    except OSError:
        same = False
    if not same:
        log.debug("the service on %s serves %s, not %s", path, result.get("home"), config.home_path)
        return None
    return path, result


def open_memory(config: Config) -> MemoryApi:
    """The home's memory: through the service that owns it when one runs, else opened here."""
    found = find_service(config)
    if found is not None:
        path, health = found
        from service.remote.memory import RemoteMemory

        return RemoteMemory(config, path, health, client="command")
    from service.memory.memory import Memory  # the store, recall and their models: only when opened here

    return Memory.open(config)

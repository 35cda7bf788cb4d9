"""`jiyi screenshots --attach`: the pictures are taken by a console attached to a real `jiyi serve`."""

from __future__ import annotations

import os

import pytest

from gui.screenshots import _attached
from service.config import load_config
from service.demo.fill import make_demo
from service.remote.memory import RemoteMemory
from tests.service.conftest import private_folder


def test_attach_starts_a_service_on_the_home_and_stops_it_afterwards() -> None:
    with private_folder() as folder:
        config = load_config(home=folder / "home", env={"JIYI_EMBED_MODEL": "hash"})
        make_demo(config, runs=30, embed_model="hash")
        with _attached(config, folder, demo=True) as memory:
            assert isinstance(memory, RemoteMemory)
            assert memory.attached_to == folder / "jiyi.sock"
            pid = memory.service_pid
            assert pid and pid != os.getpid()
            os.kill(pid, 0)  # the service runs while the pictures are taken
            assert memory.runs.count_episodes() == 30  # the demo home, read over the socket
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # stopped (and reaped) afterwards
        assert not (folder / "jiyi.sock").exists()  # it stopped cleanly and removed its socket


def test_attach_says_why_the_service_did_not_start() -> None:
    from service.errors import JiyiError

    with private_folder() as folder:
        home = folder / "home"
        home.mkdir(mode=0o700)
        (folder / "elsewhere.sqlite3").write_bytes(b"")
        (home / "jiyi.sqlite3").symlink_to(folder / "elsewhere.sqlite3")  # the service refuses a symlinked database
        config = load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})
        with (
            pytest.raises(JiyiError, match=r"jiyi serve exited \(3\): .*symlink"),
            _attached(config, folder, demo=True),
        ):
            pass

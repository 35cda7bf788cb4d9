"""The console's private service: with no service on the home, the console starts a `jiyi serve` child for it,
works through it, and stops it on closing; a child that cannot start refuses the console with its reason."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.opening import Opened, close_home, open_home
from service.client import JiyiClient
from service.config import load_config
from service.errors import ChangesMissing, HomeLocked, exit_code
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.remote.private import PRIVATE_NICE, ServiceDidNotStart
from store.core.connect import connect_database
from store.core.home import HomeLock, prepare_home
from tests.json_reads import dig

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip(
        "looks at the private service's Unix process group, priority and signals (Unix only)", allow_module_level=True
    )

JIYI = str(Path(sys.executable).parent / "jiyi")


def gone(pid: int) -> bool:
    """Whether `pid` has ended (a zombie nobody reaped yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as status:
            return status.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(condition: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator,unused-ignore]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture
def child_env(monkeypatch: pytest.MonkeyPatch, socket_path: Path) -> Path:
    """The settings the console and its child read: the hash embedder, the test's socket."""
    for name in [n for n in os.environ if n.startswith("JIYI_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    monkeypatch.setenv("JIYI_SOCKET", str(socket_path))
    return socket_path


@pytest.fixture
def opened(tmp_path: Path, child_env: Path) -> Iterator[Opened]:
    """The home opened as `jiyi` opens it: no service runs, so through a private child."""
    result = open_home(load_config(home=tmp_path / "home"))
    try:
        yield result
    finally:
        close_home(result)


def test_the_console_works_through_a_private_child_and_stops_it_on_closing(
    qtbot: QtBot, opened: Opened, lanes: Lanes, child_env: Path, tmp_path: Path
) -> None:
    private = opened.private
    assert private is not None and isinstance(opened.memory, RemoteMemory)
    assert private.pid != os.getpid() and opened.memory.service_pid == private.pid
    with JiyiClient(child_env, timeout=10, strict=True) as agent:  # an agent on the configured socket
        assert agent.call("health", {})["pid"] == private.pid
        agent.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}])
        assert agent.learn_alias("绿泡泡", "com.tencent.mm")["stored"] is True
    assert opened.memory.appkb.resolve_app("绿泡泡", device="phone1").package == "com.tencent.mm"

    window = MainWindow(opened.memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    window.private_service = private
    window.update_service_status()
    assert window.mode_label.text() == "私有服务" and str(private.pid) in window.service_label.text()
    about = window.open_about()
    assert "私有服务" in about.text() and str(private.pid) in about.text()
    about.close()
    window.close()

    opened.memory.close()
    assert private.stop() == 0  # SIGTERM: it drained and stopped by itself
    assert gone(private.pid) and not child_env.exists()
    assert _lock_free(tmp_path / "home")  # nobody holds the home any more


def thread_nices(pid: int) -> dict[str, int]:
    """Each thread of `pid` by name: its nice value (field 19 of its /proc stat)."""
    nices = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
            name = (task / "comm").read_text().strip()
            nices[f"{name} ({task.name})"] = int((task / "stat").read_text().rsplit(")", 1)[1].split()[16])
    return nices


def test_the_private_child_runs_every_thread_below_the_consoles_priority(
    qtbot: QtBot, opened: Opened, child_env: Path
) -> None:
    """Its rebuilds and imports must not keep the console's GUI thread waiting for a CPU."""
    private = opened.private
    assert private is not None
    with JiyiClient(child_env, timeout=10, strict=True) as agent:  # work for its request workers
        agent.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}])
        agent.call("episode.list", {"limit": 5})
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    nices = thread_nices(private.pid)
    assert len(nices) > 2, nices  # the main thread, the parent's follower, the workers that served the agent
    assert all(nice == min(19, ours + PRIVATE_NICE) for nice in nices.values()), nices
    # Nice orders threads within their session's CPU group (Linux autogroups): the child is in the console's
    # session, so its threads come after the GUI thread, and in a process group of its own (Ctrl+C in the
    # console's terminal reaches only the console, which stops the child in order).
    assert os.getsid(private.pid) == os.getsid(0) and os.getpgid(private.pid) == private.pid != os.getpgid(0)
    group = Path(f"/proc/{private.pid}/autogroup")
    if group.exists():
        assert group.read_text() == Path("/proc/self/autogroup").read_text()


def test_a_private_service_that_dies_is_said_so_and_its_socket_removed(
    qtbot: QtBot, opened: Opened, lanes: Lanes, child_env: Path, tmp_path: Path
) -> None:
    private = opened.private
    assert private is not None
    window = MainWindow(opened.memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    window.private_service = private
    qtbot.waitUntil(lambda: not any(group.pending for group in lanes._groups), timeout=30_000)  # pages loaded
    os.kill(private.pid, signal.SIGKILL)
    private.process.wait(timeout=30)
    window.update_service_status()
    assert window.service_label.text().startswith("私有服务已退出（-9）")  # its exit, then its log's last lines
    assert "serving" in window.service_label.text()
    window.close()
    assert stat.S_ISSOCK(child_env.lstat().st_mode)  # killed, it could not remove its socket
    close_home(opened)
    assert not child_env.exists()  # the console did


def test_a_console_whose_service_went_away_starts_a_private_one_in_its_place(
    qtbot: QtBot, opened: Opened, lanes: Lanes, child_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gui import service_keeper

    monkeypatch.setattr(service_keeper, "TAKE_OVER_AFTER_S", 0.5)
    first, memory = opened.private, opened.memory
    assert first is not None and isinstance(memory, RemoteMemory)
    # This console is attached to a service it did not start (another console's private service, say).
    window = MainWindow(opened.memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    assert window.keeper is not None and window.private_service is None
    qtbot.waitUntil(lambda: not any(group.pending for group in lanes._groups), timeout=30_000)
    first.stop()  # the other console closed, and its service with it
    opened.private = None

    def replaced() -> bool:
        window.update_service_status()
        return window.private_service is not None and memory.connected

    qtbot.waitUntil(replaced, timeout=60_000)
    second = window.private_service
    assert second is not None and second.pid != first.pid and second.running
    opened.private = second  # closing the console stops the service it started
    with JiyiClient(child_env, timeout=10, strict=True) as agent:  # agents find the home served again
        assert agent.call("health", {})["pid"] == second.pid
        agent.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}])
    qtbot.waitUntil(lambda: opened.memory.appkb.devices() == ["phone1"], timeout=30_000)  # the console reads it
    window.update_service_status()
    assert window.mode_label.text() == "私有服务"
    window.close()


def _lock_free(home: Path) -> bool:
    lock = HomeLock(home)
    try:
        lock.acquire()
    except HomeLocked:
        return False
    lock.release()
    return True


def test_a_child_that_cannot_start_refuses_the_console_with_its_reason(tmp_path: Path, child_env: Path) -> None:
    """There is no in-process fallback: the console refuses with the child's own words (exit 3), the home
    is not left open, and what was on the socket's path is left alone."""
    child_env.write_text("not a socket")  # the child refuses the configured socket path, naming it
    home = tmp_path / "home"
    with pytest.raises(ServiceDidNotStart) as refused:
        open_home(load_config(home=home))
    assert "jiyi serve exited (3)" in str(refused.value) and refused.value.exit_code == 3
    assert f"{child_env} exists and is not a socket" in str(refused.value)  # the child's own words
    assert exit_code(refused.value) == 3
    assert _lock_free(home)  # opened only to find the home's own cause, and closed again
    assert child_env.read_text() == "not a socket"


def test_the_removed_in_process_setting_is_ignored_saying_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`console_service` (child | inprocess) is gone: a file or an environment that still sets it opens, with
    a warning naming where; an unknown setting is still refused."""
    from service.config import ConfigError

    home = prepare_home(tmp_path / "home")
    (home / "config.toml").write_text('console_service = "inprocess"\n')
    with caplog.at_level("WARNING", logger="jiyi.service.config"):
        config = load_config(home=home, env={"JIYI_CONSOLE_SERVICE": "inprocess"})
    assert [m.split(" is no longer")[0] for m in caplog.messages] == [
        "JIYI_CONSOLE_SERVICE",
        f"{home}/config.toml: console_service",
    ]
    assert all("inprocess" in m and "was removed" in m for m in caplog.messages)
    assert "console_service" not in {name for name, *_ in config.describe()}
    with pytest.raises(ConfigError, match="unknown setting JIYI_CONSOLE_SERVIC "):
        load_config(home=home, env={"JIYI_CONSOLE_SERVIC": "child"})


def test_a_home_whose_database_lost_acknowledged_changes_is_refused_saying_so(tmp_path: Path, child_env: Path) -> None:
    """The private child refuses (exit 3); the console finds the home's own cause and refuses with it."""
    home = tmp_path / "home"
    with Memory.open(load_config(home=home)) as memory:
        for i in range(5):
            memory.appkb.learn_alias(f"别名{i}", "com.tencent.mm", actor="user")
    db = connect_database(home, "", None)
    try:
        db.execute_sql("DELETE FROM event WHERE seq IN (SELECT seq FROM event ORDER BY seq DESC LIMIT 3)")
    finally:
        db.close()
    with pytest.raises(ChangesMissing, match="3 of the") as refused:
        open_home(load_config(home=home))
    assert refused.value.missing == 3
    assert "3 of the" in (home / "console-service.log").read_text()  # the child said it too


def test_a_home_another_process_holds_is_refused(tmp_path: Path, child_env: Path) -> None:
    home = prepare_home(tmp_path / "home")
    lock = HomeLock(home)
    lock.acquire()  # this test's process holds the home and serves nothing
    try:
        with pytest.raises(HomeLocked, match=f"in use by pid {os.getpid()}"):
            open_home(load_config(home=home))
        assert "in use by pid" in (home / "console-service.log").read_text()  # the child was refused too
        console = subprocess.run(
            [JIYI, "--home", str(home)],
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")},
            capture_output=True,
            timeout=120,
        )
        assert console.returncode == 3 and f"in use by pid {os.getpid()}" in console.stderr.decode()
    finally:
        lock.release()
    assert not child_env.exists()


def console(home: Path, tmp_path: Path) -> subprocess.Popen[bytes]:
    """`jiyi` on `home`, offscreen; its stderr in `tmp_path/console.err`."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    with open(tmp_path / "console.err", "wb") as stderr:
        return subprocess.Popen([JIYI, "--home", str(home)], env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def service_pid(sock: Path, process: subprocess.Popen[bytes], err: Path) -> int:
    """The pid that answers `health` on `sock` once the console's child serves."""
    deadline = time.monotonic() + 90
    while True:
        assert process.poll() is None, err.read_text(errors="replace")
        assert time.monotonic() < deadline, "the console's service never answered"
        if sock.exists():
            with JiyiClient(sock, timeout=5) as client:
                answer = client.request("health")
            if answer.get("ok"):
                return int(str(dig(answer.get("result"), "pid")))
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["SIGTERM", "SIGKILL"])
def test_the_real_console_ends_its_child_however_it_ends(tmp_path: Path, child_env: Path, ending: str) -> None:
    process = console(tmp_path / "home", tmp_path)
    try:
        pid = service_pid(child_env, process, tmp_path / "console.err")
        assert pid != process.pid
        with open(f"/proc/{pid}/stat", encoding="ascii") as status:
            assert int(status.read().rsplit(")", 1)[1].split()[1]) == process.pid  # the console's own child
        process.send_signal(getattr(signal, ending))
        process.wait(timeout=60)
        if ending == "SIGTERM":
            err = (tmp_path / "console.err").read_text(errors="replace")
            assert process.returncode == 0 and "Traceback" not in err, err
            assert gone(pid)  # the console stopped it before exiting
        else:
            wait_until(lambda: gone(pid), 15, "the child outlived the killed console")
        wait_until(lambda: not child_env.exists(), 5, "the child's socket was left behind")  # it drained and stopped
        assert _lock_free(tmp_path / "home")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

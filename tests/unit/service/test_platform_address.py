"""Where a home's service listens: one socket per home, its name from the home's real path (issue 39 §3), the
Windows pipe's name, and the agent client's copy of the derivation kept equal to the service's.

Pure functions, every platform's branch checked here on Linux; the sockets themselves are tested in
tests/cli/test_two_services.py.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

from service import client
from service.platform import address

DIGEST = re.compile(r"[0-9a-f]{12}")


def env(run: Path | str | None = None, **more: str) -> dict[str, str]:
    values = {"XDG_RUNTIME_DIR": str(run)} if run is not None else {}
    return {**values, **more}


def test_two_homes_get_two_sockets_in_the_runtime_folder_and_one_home_always_the_same(tmp_path: Path) -> None:
    run = Path("/run/user/4242")  # short, as a real one is: the names are kept whole
    first = address.home_socket_path(tmp_path / "work", env(run))
    second = address.home_socket_path(tmp_path / "personal", env(run))
    assert first != second
    assert first.parent == second.parent == run / "jiyi"
    assert re.fullmatch(r"work-[0-9a-f]{12}\.sock", first.name), first
    assert re.fullmatch(r"personal-[0-9a-f]{12}\.sock", second.name), second
    assert address.home_socket_path(tmp_path / "work", env(run)) == first  # the same every time
    assert address.home_socket_path(str(tmp_path / "work") + "/", env(run)) == first


def test_a_home_reached_through_a_link_is_served_on_its_real_paths_socket(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    run = tmp_path / "run"
    assert address.home_socket_path(tmp_path / "link", env(run)) == address.home_socket_path(
        tmp_path / "real", env(run)
    )


def test_the_name_keeps_only_safe_characters_and_says_home_when_none_is_left() -> None:
    run = "/run/user/1000"
    assert address.socket_for("/data/我的 记忆!", env(run)).name.startswith("home-")
    assert address.socket_for("/data/agent memory (2)", env(run)).name.startswith("agentmemory2-")
    assert address.socket_for("/", env(run)).name.startswith("home-")
    long = address.socket_for("/x/" + "a" * 80, env(run)).name
    assert long == "a" * address.NAME_CHARS + long[address.NAME_CHARS :] and DIGEST.search(long)


@pytest.mark.parametrize("depth", [20, 60, 76, 77, 78, 79, 120])
def test_the_socket_path_stays_within_the_unix_limit_however_long_the_runtime_folder(depth: int) -> None:
    run = "/r" + "x" * depth
    path = address.socket_for("/home/someone/.local/share/jiyi-with-a-long-name", env(run))
    assert len(os.fsencode(str(path))) <= address.SOCKET_PATH_LIMIT, path
    assert DIGEST.search(path.name)
    if depth <= 76:  # room for the name, or some of it
        assert path.parent == Path(run) / "jiyi" and path.name.startswith("jiyi-with-a-long"[: 77 - depth] + "-")
    elif depth <= 78:  # room for the digest only
        assert path.parent == Path(run) / "jiyi" and DIGEST.fullmatch(path.name.removesuffix(".sock"))
    else:
        assert path.parent == address.runtime_folders({})[0]  # the temp folder's, where the runtime one is too long


def test_without_a_runtime_folder_the_socket_is_in_the_users_temp_folder() -> None:
    path = address.socket_for("/home/someone/jiyi", {})
    assert path.parent.parent == Path(tempfile.gettempdir()) and re.fullmatch(r"jiyi-\d+", path.parent.name)
    assert address.legacy_socket_path({}) == path.parent / "jiyi.sock"


def test_on_windows_a_home_is_a_named_pipe_per_user_and_case_folded_path() -> None:
    pipe = address.socket_for(r"C:\Users\Alice\AppData\Local\jiyi", {"USERNAME": "Alice"}, "win32")
    assert re.fullmatch(r"\\\\\.\\pipe\\jiyi-alice-jiyi-[0-9a-f]{12}", str(pipe)) is None  # the user keeps case
    assert re.fullmatch(r"\\\\\.\\pipe\\jiyi-Alice-jiyi-[0-9a-f]{12}", str(pipe)), pipe
    assert address.socket_for(r"c:\users\alice\appdata\local\JIYI", {"USERNAME": "Alice"}, "win32") == pipe
    assert address.socket_for(r"C:\Users\Alice\AppData\Local\jiyi", {"USERNAME": "Bob"}, "win32") != pipe
    assert str(address.socket_for("D:\\", {}, "win32")).startswith("\\\\.\\pipe\\jiyi-user-home-")
    assert address.is_pipe(pipe) and not address.is_pipe(Path("/run/user/1000/jiyi/x.sock"))


def test_a_socket_named_by_a_person_is_a_path_on_unix_and_a_pipe_on_windows() -> None:
    assert address.socket_address("~/jiyi.sock", "linux") == Path.home() / "jiyi.sock"
    assert address.socket_address("jiyi-work", "win32") == Path("\\\\.\\pipe\\jiyi-work")
    assert address.socket_address("\\\\.\\pipe\\mine", "win32") == Path("\\\\.\\pipe\\mine")
    assert address.socket_address("//./pipe/mine", "win32") == Path("//./pipe/mine")


@pytest.mark.parametrize(
    ("home", "environ", "platform"),
    [
        ("/home/a/.local/share/jiyi", {"XDG_RUNTIME_DIR": "/run/user/1000"}, "linux"),
        ("/Users/a/Library/Application Support/jiyi", {}, "darwin"),
        ("/h/" + "n" * 100, {"XDG_RUNTIME_DIR": "/r" + "x" * 85}, "linux"),
        (r"C:\Users\A\AppData\Local\jiyi", {"USERNAME": "A"}, "win32"),
    ],
)
def test_the_agent_client_derives_the_same_socket_as_the_service(
    home: str, environ: dict[str, str], platform: str
) -> None:
    # service/client.py imports nothing of Jiyi (agents copy the file); the service takes the derivation from it.
    assert address.socket_for is client.socket_for and address.home_socket_path is client.home_socket_path
    assert client.socket_for(home, environ, platform) == address.socket_for(home, environ, platform)
    assert client.runtime_folders(environ) == address.runtime_folders(environ)
    for text in ("jiyi-x", "/tmp/x.sock"):
        assert client.socket_address(text, platform) == address.socket_address(text, platform)
    assert (client.SOCKET_PATH_LIMIT, client.PIPE_PREFIX, client.LEGACY_NAME) == (
        address.SOCKET_PATH_LIMIT,
        address.PIPE_PREFIX,
        address.LEGACY_NAME,
    )


def test_the_client_finds_the_socket_of_jiyi_socket_else_jiyi_home_else_the_default_home(tmp_path: Path) -> None:
    run = env(tmp_path / "run")
    assert client.default_socket_path(environ={**run, "JIYI_SOCKET": "/x/y.sock"}) == Path("/x/y.sock")
    work = tmp_path / "work"
    assert client.default_socket_path(environ={**run, "JIYI_HOME": str(work)}) == address.home_socket_path(work, run)
    home = {**run, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    assert client.default_home(home, "linux") == tmp_path / "data" / "jiyi"
    assert client.default_socket_path(environ=home) == address.home_socket_path(tmp_path / "data" / "jiyi", run)
    assert client.default_socket_path(work, run) == address.home_socket_path(work, run)


def test_the_default_home_per_system_is_where_platformdirs_puts_it() -> None:
    assert client.default_home({"LOCALAPPDATA": "C:\\Users\\A\\AppData\\Local"}, "win32") == Path(
        "C:\\Users\\A\\AppData\\Local", "jiyi"
    )
    assert client.default_home({}, "darwin") == Path.home() / "Library" / "Application Support" / "jiyi"
    assert client.default_home({"XDG_DATA_HOME": "relative"}, "linux") == Path.home() / ".local" / "share" / "jiyi"
    assert client.default_home({"JIYI_HOME": "~/elsewhere"}, "win32") == Path.home() / "elsewhere"


def test_the_clients_default_home_is_the_services() -> None:
    from service.config import default_home

    assert client.default_home({k: v for k, v in os.environ.items() if k != "JIYI_HOME"}) == default_home()


def test_a_client_set_up_with_the_old_shared_socket_is_told_where_the_service_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("JIYI_HOME", str(tmp_path / "home"))
    old = tmp_path / "jiyi" / "jiyi.sock"
    answer = client.JiyiClient(old, timeout=0.5).request("health")
    message = answer["error"]["message"]
    assert answer["error"]["code"] == "unavailable"
    assert "was the socket of every home" in message and str(address.home_socket_path(tmp_path / "home")) in message
    assert "try again" not in message
    other = client.JiyiClient(tmp_path / "elsewhere.sock", timeout=0.5).request("health")["error"]["message"]
    assert "every home" not in other and "try again" not in other

"""The user service `jiyi install-desktop` writes on each system (a systemd unit, a launchd plist, a Task
Scheduler task) and how the private service is started and stopped there: the texts checked on Linux for every
branch (`service/platform/user_service.py`, `service/platform/process.py`)."""

from __future__ import annotations

import plistlib
import signal
import xml.etree.ElementTree as ET
from pathlib import Path, PureWindowsPath

from service.desktop_files import Folders, planned_files
from service.platform import process
from service.platform.user_service import LAUNCH_AGENT_LABEL, TASK_NAME, user_service

TASK = "{http://schemas.microsoft.com/windows/2004/02/mit/task}"


def test_linux_gets_a_systemd_user_unit_in_the_xdg_config_folder(tmp_path: Path) -> None:
    unit = user_service(["/opt/My Apps/jiyi"], "linux", {"HOME": str(tmp_path), "XDG_CONFIG_HOME": "relative"})
    assert unit.path == tmp_path / ".config" / "systemd" / "user" / "jiyi.service"
    text = unit.content.decode("utf-8")
    assert "ExecStart='/opt/My Apps/jiyi' serve\n" in text and "KillSignal=SIGTERM" in text
    assert "systemctl --user enable --now jiyi" in unit.enable and "disable" in unit.disable
    elsewhere = user_service(["jiyi"], "linux", {"HOME": str(tmp_path), "XDG_CONFIG_HOME": "/cfg"})
    assert elsewhere.path == Path("/cfg/systemd/user/jiyi.service")


def test_macos_gets_a_launch_agent_that_restarts_the_service_only_when_it_fails(tmp_path: Path) -> None:
    agent = user_service(["/Applications/Jiyi.app/Contents/MacOS/jiyi", "--x"], "darwin", {"HOME": str(tmp_path)})
    assert agent.path == tmp_path / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"
    plist = plistlib.loads(agent.content)
    assert plist["Label"] == LAUNCH_AGENT_LABEL
    assert plist["ProgramArguments"] == ["/Applications/Jiyi.app/Contents/MacOS/jiyi", "--x", "serve"]
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plist["Umask"] == 0o077 and plist["StandardErrorPath"] == str(tmp_path / "Library/Logs/jiyi/serve.log")
    assert agent.enable.endswith(f"launchctl bootstrap gui/$(id -u) {agent.path}")
    assert agent.disable == f"launchctl bootout gui/$(id -u) {agent.path}"


def test_windows_gets_a_logon_task_in_utf16_with_the_program_and_its_arguments_quoted() -> None:
    env = {"LOCALAPPDATA": r"C:\Users\A & B\AppData\Local", "USERNAME": "a&b", "USERDOMAIN": "HOME"}
    task = user_service([r"C:\Program Files\Jiyi\jiyi.exe", "-m", "x y"], "win32", env)
    assert task.path == PureWindowsPath(r"C:\Users\A & B\AppData\Local\jiyi\jiyi-serve-task.xml")
    assert task.content.startswith(b"\xff\xfe")  # UTF-16 with its byte-order mark, as Task Scheduler reads it
    root = ET.fromstring(task.content.decode("utf-16").replace('encoding="UTF-16"', ""))
    exec_ = root.find(f"{TASK}Actions/{TASK}Exec")
    assert exec_ is not None
    assert exec_.findtext(f"{TASK}Command") == r"C:\Program Files\Jiyi\jiyi.exe"
    assert exec_.findtext(f"{TASK}Arguments") == '-m "x y" serve'
    assert root.findtext(f"{TASK}Triggers/{TASK}LogonTrigger/{TASK}UserId") == "HOME\\a&b"
    assert root.findtext(f"{TASK}Settings/{TASK}ExecutionTimeLimit") == "PT0S"  # runs as long as the session
    assert root.find(f"{TASK}Settings/{TASK}RestartOnFailure") is not None
    assert task.enable == f'schtasks /Create /TN "{TASK_NAME}" /XML "{task.path}"'
    anyone = user_service(["jiyi.exe"], "win32", {})
    text = anyone.content.decode("utf-16")
    assert "<UserId>" not in text and r"AppData\Local\jiyi\jiyi-serve-task.xml" in str(anyone.path)


def test_install_desktop_writes_only_the_user_service_on_macos_and_windows(tmp_path: Path) -> None:
    folders = Folders(tmp_path / "data", tmp_path / "config")
    linux = planned_files(["jiyi"], folders, "linux")
    assert tmp_path / "config" / "systemd" / "user" / "jiyi.service" in linux and len(linux) > 3
    for system in ("darwin", "win32"):
        [(path, content)] = planned_files(["jiyi"], folders, system).items()
        assert content == user_service(["jiyi"], system).content and str(path) == str(
            user_service(["jiyi"], system).path
        )


def test_the_private_service_gets_its_own_process_group_and_a_stop_it_can_drain_on() -> None:
    assert process.own_group("linux") == process.Group(creationflags=0, process_group=0)
    assert process.own_group("darwin") == process.Group(0, 0)
    assert process.own_group("win32") == process.Group(process.CREATE_NEW_PROCESS_GROUP, None)
    assert process.stop_signal("linux") == signal.SIGTERM
    assert process.stop_signal("win32") == 1  # CTRL_BREAK_EVENT
    assert process.stop_signals() == (signal.SIGINT, signal.SIGTERM)

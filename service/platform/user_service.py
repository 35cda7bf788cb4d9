"""How `jiyi serve` starts at login, per system: the file `jiyi install-desktop` writes, where, and how to enable it.

- Linux: a systemd user unit, `$XDG_CONFIG_HOME/systemd/user/jiyi.service` (`systemctl --user enable --now jiyi`).
- macOS: a launchd LaunchAgent, `~/Library/LaunchAgents/io.github.jiyi.serve.plist`
  (`launchctl bootstrap gui/<uid> <plist>`); its log goes to `~/Library/Logs/jiyi/serve.log`.
- Windows: a Task Scheduler task that starts at the user's logon, `%LOCALAPPDATA%\\jiyi\\jiyi-serve-task.xml`
  (`schtasks /Create /TN "Jiyi\\serve" /XML <file>`), restarted on failure. Task Scheduler reads its XML as
  UTF-16, so the file is written so.

Each starts the same program (`service.program.program_command`) with `serve`, restarts it when it fails, and
stops it with the signal that lets it drain (SIGTERM on Unix). The texts are pure functions of the command and
the folders, so every branch is tested on Linux (tests/unit/service/test_user_service.py); only the unit is
verified running here (docs/install.md).
"""

from __future__ import annotations

import os
import plistlib
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath, PureWindowsPath
from xml.sax.saxutils import escape

UNIT_NAME = "jiyi.service"
LAUNCH_AGENT_LABEL = "io.github.jiyi.serve"
TASK_NAME = "Jiyi\\serve"
TASK_FILE = "jiyi-serve-task.xml"

USER_UNIT = """\
# systemd user unit for the headless Jiyi service ({how}).
#   enable:   systemctl --user daemon-reload && systemctl --user enable --now jiyi
#   logs:     journalctl --user -u jiyi
# Start it before your agents; it can restart without them (clients degrade while it is down).
# Documentation: docs/service.md (this unit) and docs/protocol.md (the socket) in Jiyi's source;
# `jiyi serve --help` on the machine.
[Unit]
Description=Jiyi (记忆) memory service for personal AI agents
# A service that keeps failing (a missing program, a home it may not use) stops being restarted.
StartLimitIntervalSec=120
StartLimitBurst=5

[Service]
Type=simple
ExecStart={exec} serve
# Optional: Environment=JIYI_HOME=%h/.local/share/jiyi (the socket follows the home: docs/protocol.md)
Restart=on-failure
RestartSec=2
# Bad settings (2), an unusable home (3) or a refusal (6) do not mend by restarting: say so and stop.
RestartPreventExitStatus=2 3 6
# SIGTERM lets the requests under way commit, then removes the socket.
KillSignal=SIGTERM
TimeoutStopSec=30
UMask=0077
NoNewPrivileges=true

[Install]
WantedBy=default.target
"""

TASK_XML = """\
<?xml version="1.0" encoding="UTF-16"?>
<!-- Task Scheduler task for the headless Jiyi service ({how}).
     enable:  schtasks /Create /TN "{task}" /XML "{file}"
     remove:  schtasks /Delete /TN "{task}" /F -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Jiyi (记忆) memory service for personal AI agents</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>{trigger_user}
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">{principal_user}
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Hidden>true</Hidden>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>5</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{command}</Command>
      <Arguments>{arguments}</Arguments>
    </Exec>
  </Actions>
</Task>
"""


@dataclass(frozen=True)
class UserService:
    """The file that starts the service at login on one system: where it goes, what it holds, how to enable it."""

    path: PurePath
    content: bytes
    enable: str
    """The command that enables it, to show the person (nothing is enabled without them)."""
    disable: str
    """The command that disables it, for after `jiyi install-desktop --uninstall`."""


def user_service(
    command: Sequence[str], platform: str = sys.platform, environ: Mapping[str, str] | None = None
) -> UserService:
    """The user service for `platform` that runs `command serve` (`command`: the program, as
    `service.program.program_command` names it)."""
    env = os.environ if environ is None else environ
    how = "written by jiyi install-desktop for " + " ".join(command)
    if platform == "win32":
        return _task(command, env, how)
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        return _launch_agent(command, home)
    config = env.get("XDG_CONFIG_HOME", "")
    folder = Path(config) if config and Path(config).is_absolute() else home / ".config"  # relative ones are invalid
    return UserService(
        folder / "systemd" / "user" / UNIT_NAME,
        USER_UNIT.format(exec=unit_exec(command), how=how.replace("%", "%%")).encode("utf-8"),
        "systemctl --user daemon-reload && systemctl --user enable --now jiyi",
        "systemctl --user disable --now jiyi; systemctl --user daemon-reload",
    )


def unit_exec(command: Sequence[str]) -> str:
    """`command` as a systemd ExecStart value (shell-like quoting; `%` doubled, `$` escaped)."""
    return " ".join(shlex.quote(arg).replace("%", "%%").replace("$", "$$") for arg in command)


def _launch_agent(command: Sequence[str], home: Path) -> UserService:
    path = home / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"
    log = home / "Library" / "Logs" / "jiyi" / "serve.log"
    agent = {
        "Label": LAUNCH_AGENT_LABEL,
        "ProgramArguments": [*command, "serve"],
        "RunAtLoad": True,
        # Restarted when it fails, not when it stopped because it was asked to (exit 0).
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 10,
        "ProcessType": "Background",
        "Umask": 0o077,
        "ExitTimeOut": 30,  # SIGTERM, then this many seconds to commit what is under way
        "StandardErrorPath": str(log),
    }
    target = f"gui/$(id -u) {shlex.quote(str(path))}"
    return UserService(
        path,
        plistlib.dumps(agent, sort_keys=False),
        f"mkdir -p {shlex.quote(str(log.parent))} && launchctl bootstrap {target}",
        f"launchctl bootout {target}",
    )


def _task(command: Sequence[str], env: Mapping[str, str], how: str) -> UserService:
    local = env.get("LOCALAPPDATA") or str(
        PureWindowsPath(env.get("USERPROFILE", "C:\\Users\\Default"), "AppData", "Local")
    )
    path = PureWindowsPath(local, "jiyi", TASK_FILE)
    domain, name = env.get("USERDOMAIN", ""), env.get("USERNAME", "")
    user = escape(f"{domain}\\{name}" if domain else name)  # unknown: the user who registers the task
    text = TASK_XML.format(
        how=escape(how.replace("--", "- -")),  # no "--" inside an XML comment
        task=TASK_NAME,
        file=escape(str(path)),
        trigger_user=f"\n      <UserId>{user}</UserId>" if user else "",
        principal_user=f"\n      <UserId>{user}</UserId>" if user else "",
        command=escape(command[0]),
        arguments=escape(subprocess.list2cmdline([*command[1:], "serve"])),
    )
    return UserService(
        path,
        text.encode("utf-16"),  # with its byte-order mark, as Task Scheduler expects
        f'schtasks /Create /TN "{TASK_NAME}" /XML "{path}"',
        f'schtasks /Delete /TN "{TASK_NAME}" /F',
    )

"""`jiyi install-desktop`: the desktop entry, the icon and the systemd user unit, in the user's XDG folders.

Every file points at the `jiyi` that writes it (`service.program.program_command`), so the launcher and the
unit start the program the person installed, wherever that is. `packaging/` holds the same files for
distribution packagers, with `jiyi` on the PATH; a test keeps the two in step.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from store.core.errors import EnvironmentProblem

DESKTOP_ID = "jiyi.desktop"
UNIT_NAME = "jiyi.service"
ICON_NAME = "jiyi"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)

DESKTOP_ENTRY = """\
[Desktop Entry]
Type=Application
Name=Jiyi
Name[zh_CN]=记忆
GenericName=Agent memory console
GenericName[zh_CN]=智能体记忆控制台
Comment=See, correct and measure what your AI agents remember
Comment[zh_CN]=查看、纠正和度量智能体的记忆
Exec={exec}
Icon=jiyi
Terminal=false
Categories=Utility;
Keywords=memory;agent;AI;recall;记忆;智能体;
StartupNotify=true
"""

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
# Optional: Environment=JIYI_HOME=%h/.local/share/jiyi JIYI_SOCKET=%t/jiyi/jiyi.sock
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


@dataclass(frozen=True)
class Folders:
    """Where the files go: the XDG data home (applications, icons) and config home (systemd user units)."""

    data: Path
    config: Path

    @classmethod
    def of_user(cls, environ: dict[str, str] | None = None) -> Folders:
        env = os.environ if environ is None else environ
        home = Path(env.get("HOME") or Path.home())

        def xdg(name: str, default: Path) -> Path:
            value = env.get(name, "")
            return Path(value) if value and Path(value).is_absolute() else default  # relative ones are invalid

        return cls(xdg("XDG_DATA_HOME", home / ".local" / "share"), xdg("XDG_CONFIG_HOME", home / ".config"))

    def desktop_entry(self) -> Path:
        return self.data / "applications" / DESKTOP_ID

    def unit(self) -> Path:
        return self.config / "systemd" / "user" / UNIT_NAME

    def icons(self) -> list[Path]:
        theme = self.data / "icons" / "hicolor"
        pngs = [theme / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png" for size in ICON_SIZES]
        return [theme / "scalable" / "apps" / f"{ICON_NAME}.svg", *pngs]


def desktop_exec(command: Sequence[str]) -> str:
    """`command` as a desktop entry's Exec value (the Desktop Entry spec's quoting; `%` doubled)."""
    reserved = set(" \t\n\"'\\><~|&;$*?#()`")

    def quote(arg: str) -> str:
        if arg and not reserved & set(arg):
            return arg.replace("%", "%%")
        escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        return '"' + escaped.replace("%", "%%") + '"'

    return " ".join(quote(arg) for arg in command)


def unit_exec(command: Sequence[str]) -> str:
    """`command` as a systemd ExecStart value (shell-like quoting; `%` doubled, `$` escaped)."""
    return " ".join(shlex.quote(arg).replace("%", "%%").replace("$", "$$") for arg in command)


def planned_files(command: Sequence[str], folders: Folders) -> dict[Path, bytes]:
    """Every file `install` writes, with its content."""
    how = "written by jiyi install-desktop for " + " ".join(command)
    files = {
        folders.desktop_entry(): DESKTOP_ENTRY.format(exec=desktop_exec(command)).encode("utf-8"),
        folders.unit(): USER_UNIT.format(exec=unit_exec(command), how=how.replace("%", "%%")).encode("utf-8"),
    }
    icons = resources.files("resources.icons")
    [svg, *pngs] = folders.icons()
    files[svg] = icons.joinpath("jiyi.svg").read_bytes()
    for size, path in zip(ICON_SIZES, pngs, strict=True):
        files[path] = icons.joinpath(f"jiyi-{size}.png").read_bytes()
    return files


def install(command: Sequence[str], folders: Folders) -> list[Path]:
    """Write the desktop entry, the icons and the user unit (folders made as needed); the paths written.

    A file is replaced whole (written beside it, then renamed), never followed through a symlink.
    """
    written = []
    for path, content in planned_files(command, folders).items():
        _write(path, content)
        written.append(path)
    return written


def uninstall(folders: Folders) -> list[Path]:
    """Remove what `install` wrote (what is not there is skipped); the paths removed."""
    removed = []
    for path in [folders.desktop_entry(), folders.unit(), *folders.icons()]:
        if path.is_symlink() or path.exists():
            path.unlink()
            removed.append(path)
    return removed


def _write(path: Path, content: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            raise EnvironmentProblem(f"{path} is a symbolic link: remove it first (Jiyi writes only its own files)")
        temporary = path.with_name(f".{path.name}.jiyi-new")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.replace(temporary, path)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot write {path}: {exc.strerror or exc}") from None

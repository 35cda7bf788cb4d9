"""`jiyi install-desktop`: the desktop entry, its AppStream metainfo and the icon in the user's XDG folders (Linux),
and on every system the user service that starts `jiyi serve` at login (`service/platform/user_service.py`: a
systemd user unit, a launchd LaunchAgent on macOS, a Task Scheduler task on Windows).

Every file points at the `jiyi` that writes it (`service.program.program_command`), so the launcher and the
unit start the program the person installed, wherever that is. `packaging/` holds the same files for
distribution packagers, with `jiyi` on the PATH; a test keeps the two in step.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from service.platform.user_service import UNIT_NAME, USER_UNIT, UserService, unit_exec, user_service
from store.core.errors import EnvironmentProblem
from store.core.home import platform

__all__ = ["USER_UNIT", "unit_exec"]  # the unit's text, kept with the other systems' (packaging/ is compared to it)

DESKTOP_ID = "jiyi.desktop"
ICON_NAME = "jiyi"
COMPONENT_ID = "io.github.jiyi.Jiyi"  # the AppStream component's id, which names its metainfo file
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

METAINFO = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- AppStream metadata for software centres (appstreamcli validate packaging/jiyi.metainfo.xml). -->
<component type="desktop-application">
  <id>io.github.jiyi.Jiyi</id>
  <metadata_license>CC0-1.0</metadata_license>
  <project_license>Apache-2.0</project_license>
  <name>Jiyi</name>
  <name xml:lang="zh-CN">记忆</name>
  <summary>See, correct and measure what your AI agents remember</summary>
  <summary xml:lang="zh-CN">查看、纠正和度量智能体的记忆</summary>
  <description>
    <p>
      Jiyi is a desktop memory console and a local memory service for personal AI agents. It keeps what
      your agents learn on your own machine: which app a name means, what happened on past runs, what a
      desktop assistant was told, and the facts, lessons and skills learned from that work.
    </p>
    <p>
      In the console you can correct an app alias, browse past runs with their tool timelines, watch recall
      quality on charts, read and edit bundle folders, and approve what was learned. Agents reach the same
      operations over a local socket. Nothing leaves the machine.
    </p>
  </description>
  <launchable type="desktop-id">jiyi.desktop</launchable>
  <icon type="stock">jiyi</icon>
  <categories>
    <category>Utility</category>
  </categories>
  <keywords>
    <keyword>memory</keyword>
    <keyword>agent</keyword>
    <keyword>AI</keyword>
  </keywords>
  <provides>
    <binary>jiyi</binary>
  </provides>
  <content_rating type="oars-1.1"/>
  <releases>
    <release version="0.1.0" date="2026-12-01"/>
  </releases>
</component>
"""
"""AppStream metadata (software centres read the id, the summary, the launchable desktop entry); installed as
`<data>/metainfo/<component id>.metainfo.xml`, shipped as `packaging/jiyi.metainfo.xml`."""


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

    def metainfo(self) -> Path:
        return self.data / "metainfo" / f"{COMPONENT_ID}.metainfo.xml"

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


def service_file(command: Sequence[str], folders: Folders, platform: str = sys.platform) -> UserService:
    """The user service for this system; on Linux, the unit in `folders`' config folder."""
    if platform in ("win32", "darwin"):
        return user_service(command, platform)
    return user_service(command, platform, {"XDG_CONFIG_HOME": str(folders.config)})


def planned_files(command: Sequence[str], folders: Folders, platform: str = sys.platform) -> dict[Path, bytes]:
    """Every file `install` writes, with its content: on Linux the desktop entry, metainfo, icons and systemd
    user unit; on macOS and Windows only the user service (the app bundle carries its own icon and entry)."""
    unit = service_file(command, folders, platform)
    if platform in ("win32", "darwin"):
        return {Path(str(unit.path)): unit.content}
    files = {
        folders.desktop_entry(): DESKTOP_ENTRY.format(exec=desktop_exec(command)).encode("utf-8"),
        folders.metainfo(): METAINFO.encode("utf-8"),
        Path(str(unit.path)): unit.content,
    }
    icons = resources.files("resources.icons")
    [svg, *pngs] = folders.icons()
    files[svg] = icons.joinpath("jiyi.svg").read_bytes()
    for size, path in zip(ICON_SIZES, pngs, strict=True):
        files[path] = icons.joinpath(f"jiyi-{size}.png").read_bytes()
    return files


def planned_paths(folders: Folders, platform: str = sys.platform) -> list[Path]:
    """Where `install` writes, whatever program it was run for."""
    return list(planned_files(["jiyi"], folders, platform))


def install(command: Sequence[str], folders: Folders) -> list[Path]:
    """Write the desktop entry, the metainfo, the icons and the user unit (folders made as needed); the paths
    written.

    A file is replaced whole (written beside it, then renamed), never followed through a symlink.
    """
    written = []
    for path, content in planned_files(command, folders).items():
        _write(path, content)
        written.append(path)
    return written


def uninstall(folders: Folders, platform: str = sys.platform) -> list[Path]:
    """Remove what `install` wrote (what is not there is skipped); the paths removed."""
    removed = []
    for path in planned_paths(folders, platform):
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
        fd = platform.open_file(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.replace(temporary, path)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot write {path}: {exc.strerror or exc}") from None

"""`jiyi mcp --print-config CLIENT`: the snippet that adds Jiyi to an MCP client, ready to paste.

Each snippet starts this very `jiyi` by its absolute path, for the absolute
home, so a client that starts its servers without the user's PATH (or with
no environment at all) still finds both. The settings this command got from
the environment (`JIYI_*`, and `XDG_RUNTIME_DIR`, from which the default
socket is derived) are written into the snippet's `env`, so `jiyi mcp`
reaches the same service the console and the commands use. A password is
never written.

Each client's own format (docs/mcp.md says where each goes):
- Claude Desktop and Cursor: JSON, `{"mcpServers": {"jiyi": {command, args, env}}}`;
- Claude Code: `claude mcp add-json --scope user jiyi '<json>'` (its `-e` option swallows the name that
  follows it, so the JSON form is the one that always works);
- Codex: TOML, `[mcp_servers.jiyi]` in `~/.codex/config.toml`;
- VS Code: JSON, `{"servers": {"jiyi": {"type": "stdio", command, args, env}}}`.
"""

from __future__ import annotations

import json
import os
import shlex
import site
import sys
from dataclasses import dataclass, field
from pathlib import Path

from service.config import PASSWORD_ENV, SETTINGS, Config
from service.program import program_command

NAME = "jiyi"

WHERE = {
    "claude-desktop": "paste it into claude_desktop_config.json (Settings → Developer → Edit Config; in "
    "~/Library/Application Support/Claude/ on macOS, %APPDATA%\\Claude\\ on Windows, ~/.config/Claude/ on Linux), "
    "merging the entry into its mcpServers; then restart Claude Desktop",
    "claude-code": "run it in a terminal (--scope user: in every project; --scope project writes the project's "
    ".mcp.json instead)",
    "cursor": "paste it into ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project, merging the entry "
    "into its mcpServers",
    "codex": "paste it into ~/.codex/config.toml (or .codex/config.toml in a trusted project)",
    "vscode": "paste it into .vscode/mcp.json in a workspace, or into your user mcp.json (command palette: MCP: Open "
    "User Configuration), merging the entry into its servers",
}
CLIENTS = tuple(WHERE)


@dataclass(frozen=True)
class Launch:
    """How a client starts `jiyi mcp`: an absolute program, its arguments, and the environment it needs."""

    command: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def entry(self, *, typed: bool = False) -> dict[str, object]:
        """The server's entry as the JSON formats hold it (`type: stdio` where the client asks for it)."""
        entry: dict[str, object] = {"type": "stdio"} if typed else {}
        entry |= {"command": self.command, "args": self.args}
        if self.env:
            entry["env"] = self.env
        return entry


def launch(config: Config, environ: dict[str, str] | None = None) -> Launch:
    """How to start `jiyi mcp` for `config`'s home from a client, with nothing from the client's environment."""
    env = dict(os.environ if environ is None else environ)
    program, program_env = this_program()
    home = str(Path(config.home_path).resolve())
    pinned = dict(program_env)
    for setting in SETTINGS:
        if setting.name != "home" and config.sources.get(setting.name) == "env" and setting.env in env:
            pinned[setting.env] = env[setting.env]
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and config.sources.get("socket") is None:  # the default socket lives there: the same one
        pinned["XDG_RUNTIME_DIR"] = runtime
    return Launch(program[0], [*program[1:], "mcp", "--home", home], pinned)


def this_program() -> tuple[list[str], dict[str, str]]:
    """The absolute command line that runs this `jiyi`, and what its environment must hold for it to.

    An installed `jiyi` (a venv's script, pipx, `make install`'s link) or a frozen build is called by its
    absolute path. Run as `python -m gui.main`, the same interpreter's `jiyi` script is used when there is
    one; else the interpreter itself with `-m`, and PYTHONPATH naming where this Jiyi's packages are when
    they are not installed in a site folder (a checkout).
    """
    command = program_command()
    if command[1:2] != ["-m"]:
        return [os.path.abspath(command[0])], {}
    beside = Path(sys.executable).parent / "jiyi"
    if _runs_with(beside, sys.executable):
        return [os.path.abspath(beside)], {}
    root = Path(__file__).resolve().parents[2]  # the folder holding the packages (service/, gui/, …)
    sites = {Path(folder).resolve() for folder in [*site.getsitepackages(), site.getusersitepackages()]}
    return [os.path.abspath(sys.executable), *command[1:]], ({} if root in sites else {"PYTHONPATH": str(root)})


def _runs_with(script: Path, interpreter: str) -> bool:
    """Whether `script` is an executable file whose `#!` line names `interpreter` (a venv's console script)."""
    try:
        if not (script.is_file() and os.access(script, os.X_OK)):
            return False
        with open(script, "rb") as read:
            first = read.readline(4096)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return False
    named = first[2:].strip().decode("utf-8", "replace")
    return os.path.realpath(named) == os.path.realpath(interpreter)


def snippet(client: str, started: Launch) -> str:
    """The text to paste into `client`'s configuration (or, for Claude Code, to run)."""
    if client in ("claude-desktop", "cursor"):
        return json.dumps({"mcpServers": {NAME: started.entry()}}, ensure_ascii=False, indent=2) + "\n"
    if client == "vscode":
        return json.dumps({"servers": {NAME: started.entry(typed=True)}}, ensure_ascii=False, indent=2) + "\n"
    if client == "claude-code":
        entry = json.dumps(started.entry(typed=True), ensure_ascii=False, separators=(",", ":"))
        return shlex.join(["claude", "mcp", "add-json", "--scope", "user", NAME, entry]) + "\n"
    if client == "codex":
        return _codex(started)
    raise ValueError(f"no MCP client {client!r}; Jiyi writes for {', '.join(CLIENTS)}")


def _codex(started: Launch) -> str:
    import tomlkit  # the style-keeping TOML writer Jiyi uses for config.toml

    server = tomlkit.table()
    server["command"] = started.command
    server["args"] = started.args
    if started.env:
        server["env"] = started.env
    servers = tomlkit.table(is_super_table=True)
    servers[NAME] = server
    document = tomlkit.document()
    document["mcp_servers"] = servers
    return tomlkit.dumps(document)


def notes(client: str, config: Config, environ: dict[str, str] | None = None) -> list[str]:
    """What the person should know beside the snippet (for stderr: the snippet itself stays pasteable)."""
    env = os.environ if environ is None else environ
    said = [f"jiyi mcp: {WHERE[client]}"]
    if env.get(PASSWORD_ENV):
        said.append(
            f"jiyi mcp: {PASSWORD_ENV} is not written into the snippet; give the database's password in a file "
            "instead (database_password_file in config.toml)"
        )
    if not Path(config.home_path).exists():
        said.append(f"jiyi mcp: the home {config.home_path} does not exist yet; jiyi mcp creates it when it starts")
    return said

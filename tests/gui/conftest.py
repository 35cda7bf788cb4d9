"""GUI tests run offscreen on a real `Memory` over a temporary home."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def socket_path() -> Iterator[Path]:
    """A socket path in a short private folder (socket paths must stay under ~100 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="jyg", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder / "jiyi.sock"
    shutil.rmtree(folder, ignore_errors=True)

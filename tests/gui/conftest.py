"""GUI tests run offscreen on a real `Memory` over a temporary home."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

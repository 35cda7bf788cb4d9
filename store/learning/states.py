"""The states of a learning intent and of a learned record: plain names, light to import (the operation
declarations name them without loading the store)."""

from __future__ import annotations

PENDING = ("queued", "extracting", "candidate", "reviewing", "approved")
TERMINAL = ("noop", "rejected", "adopted", "refused", "failed", "stopped")
INTENT_STATES = (*PENDING, *TERMINAL)
RECORD_STATES = ("active", "removed", "revoked", "expired")

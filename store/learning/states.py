"""The states of a learning intent and of an adopted record, by name (no database needed to check one)."""

from __future__ import annotations

PENDING = ("queued", "extracting", "candidate", "reviewing", "approved")
"""An intent's states while it is still on its way: queued, in extraction, awaiting or in review, approved."""
TERMINAL = ("noop", "rejected", "adopted", "refused", "failed", "stopped")
"""Where an intent ends."""
INTENT_STATES = (*PENDING, *TERMINAL)
RECORD_STATES = ("active", "removed", "revoked", "expired")
TARGET_KINDS = ("fact", "lesson", "skill")
"""What an adopted record's `target_ref` (`<kind>:<id>`) names: a desk fact, a lesson or a desk skill."""

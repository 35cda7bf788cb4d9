"""The scopes and statuses a desk fact takes: plain names, light to import (the operation declarations name
them without loading the store)."""

from __future__ import annotations

SCOPES = ("profile", "project", "environment")
STATUSES = ("candidate", "active", "inactive")

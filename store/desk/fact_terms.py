"""The words a fact is filed under (its scope, a profile fact's kind, its status): checkable without the database."""

from __future__ import annotations

SCOPES = ("profile", "project", "environment")
PROFILE_KINDS = ("identity", "communication", "work_style")
STATUSES = ("candidate", "active", "inactive")

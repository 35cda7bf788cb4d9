"""Making a home private again, for the console's 修复 and `jiyi doctor --fix-permissions` (which sit above the
store): `store.core.home.permissions` does it."""

from store.core.home.permissions import ModeChange, fix_permissions

__all__ = ["ModeChange", "fix_permissions"]

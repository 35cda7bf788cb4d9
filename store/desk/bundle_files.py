"""The mirror of the bundles on disk: one folder per bundle, one file per document.

Writing never follows a link and never overwrites a file edited outside
Jiyi: that version is kept beside it (`<name>.outside-<time>`) and the
write says so. A name longer than the file system holds is refused before
anything is written.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from store.core.atomic_file import make_private, make_private_dirs, write_text
from store.core.errors import UnsafePath

log = logging.getLogger("jiyi.store.desk")

NAME_MAX = 255  # bytes in one file or folder name (ext4, APFS, NTFS in UTF-16 units)


class BundleFiles:
    """The mirror of the bundles under one directory (default `<home>/bundles`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_of(self, bundle_id: str, path: str = "") -> Path:
        """The file (or the bundle's folder) of a document, checked: no link on the way, every name fits.

        Raises `UnsafePath` for a link, `OSError` (ENAMETOOLONG) for a name the file
        system cannot hold, `ValueError` for one it cannot encode.
        """
        target = self.root / bundle_id / path if path else self.root / bundle_id
        parts = target.relative_to(self.root).parts
        for part in parts:
            if len(os.fsencode(part)) > NAME_MAX:
                raise OSError(errno.ENAMETOOLONG, f"the name {part[:40]!r}… is longer than {NAME_MAX} bytes")
        here = self.root
        if here.is_symlink():
            raise UnsafePath(f"the bundles directory {here} is a symlink; Jiyi does not write through links")
        for part in parts:
            here = here / part
            if here.is_symlink():
                raise UnsafePath(f"{here} is a symlink; Jiyi does not write bundle files through links")
        return target

    def make_private(self) -> None:
        """Take group and other permissions off the mirror (folders made by an older Jiyi were 0755)."""
        if self.root.is_dir() and not self.root.is_symlink():
            make_private(self.root)

    def read(self, bundle_id: str, path: str) -> str | None:
        target = self.path_of(bundle_id, path)
        try:
            return target.read_text("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            return "\x00unreadable"

    def write(
        self,
        bundle_id: str,
        path: str,
        content: str,
        previous: str | None,
        stored_before: Callable[[str], bool] | None = None,
    ) -> str | None:
        """Mirror one document; returns where an outside edit was kept, if the file had one.

        `stored_before(text)` tells whether `text` was once a stored revision: on a store
        several hosts share, this host's file may lag behind what another host wrote, and
        an older revision on disk is a stale mirror, not an outside edit.
        """
        target = self.path_of(bundle_id, path)
        make_private_dirs(target.parent)
        on_disk = self.read(bundle_id, path)
        kept = None
        stale = on_disk is not None and stored_before is not None and stored_before(on_disk)
        if on_disk is not None and on_disk not in (previous, content) and not stale:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
            keep = target.with_name(f"{target.name}.outside-{stamp}")
            target.replace(keep)
            os.chmod(keep, 0o600)  # an editor may have saved it readable by others; it is ours now
            kept = str(keep.relative_to(self.root / bundle_id))
            log.warning("%s/%s was edited outside Jiyi; kept that version as %s", bundle_id, path, kept)
        write_text(target, content)
        return kept

    def state(self, bundle_id: str, path: str, content: str) -> str:
        """How the file compares with the stored document: same, missing, edited_outside, unsafe or unwritable."""
        try:
            on_disk = self.read(bundle_id, path)
        except UnsafePath:
            return "unsafe"
        except (OSError, ValueError):
            return "unwritable"  # a name the file system refuses (stored by an older Jiyi), or an unreadable folder
        if on_disk is None:
            return "missing"
        return "same" if on_disk == content else "edited_outside"

"""Catching a host's bundle mirror up with a shared store, after notices were missed.

On a shared store each host mirrors other hosts' document puts when their
change notice arrives (`bundles.mirror_since`). Notices sent while a host's
LISTEN connection was down, or while the host was stopped, never arrive; so
the mirror keeps a mark, `<bundles>/.jiyi-mirror.json`: the database it
mirrors and the desk event up to which its files hold every put. When the
host starts, and whenever its notice connection comes back, it mirrors the
puts after the mark (the same rules as a notice: a file left at an older
revision is refreshed, an outside edit is kept beside it, never overwritten)
and writes every document whose file is missing. Files of documents no put
touched since the mark are not read at all; a missing file costs a `stat`.

Jiyi never deletes a bundle document, so no file is ever removed here: a file
under the bundles folder with no document is the person's, and stays.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from store.core.atomic_file import write_text
from store.core.database import Store
from store.core.errors import UnsafePath
from store.desk import bundles
from store.desk.models import BundleDocument
from store.desk.projection import DOMAIN

log = logging.getLogger("jiyi.store.desk")

MARK_NAME = ".jiyi-mirror.json"


def digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


@dataclass
class MirrorMark:
    """How far a host's mirror is: every put of `database` up to desk event `desk_seq` is in its files.

    `written` holds the documents this host wrote itself after that event (`bundle_id/path` -> the
    SHA-256 of the content): when the mark passes their puts they are not written again, so an
    outside edit made since stays where it is (as it would without the catch-up) until the next put.
    """

    database: str
    desk_seq: int = 0
    written: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, store: Store, files: bundles.BundleFiles) -> MirrorMark:
        """The mark in `files`' folder; a missing, unreadable or foreign one counts from event 0 (mirror everything)."""
        fresh = cls(store.location)
        try:
            data = json.loads(_mark_file(files).read_text("utf-8"))
            seq, written = data["desk_seq"], data.get("written", {})
            valid = isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 and isinstance(written, dict)
            if data["database"] != store.location or not valid:
                return fresh  # another database (a migrated home), or a mark edited by hand
        except FileNotFoundError:
            return fresh
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the bundle mirror's mark is unreadable (%s); mirroring every document again", exc)
            return fresh
        if seq > store.last_seq(DOMAIN):
            return fresh  # a database rebuilt or restored behind the mark: its event numbers are not the ones counted
        return cls(store.location, seq, {str(k): str(v) for k, v in written.items()})

    def wrote(self, bundle_id: str, path: str, content: str) -> None:
        """This host wrote `content` to the document's file itself (its own put)."""
        self.written[f"{bundle_id}/{path}"] = digest(content)

    def save(self, files: bundles.BundleFiles) -> None:
        """Write the mark beside the mirror (best effort: logged if it cannot be, and checked again next time)."""
        if files.root.is_symlink():
            return  # BundleFiles refuses to write through a link; so does the mark
        data = {"database": self.database, "desk_seq": self.desk_seq, "written": self.written}
        try:
            write_text(_mark_file(files), json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")
        except OSError as exc:
            log.warning("could not record how far the bundle mirror is (%s); it will be checked again", exc)


def _mark_file(files: bundles.BundleFiles) -> Path:
    return files.root / MARK_NAME


def follow(store: Store, files: bundles.BundleFiles, mark: MirrorMark, seq: int) -> None:
    """Another host committed desk event `seq`: mirror the puts after the mark (the notice path)."""
    if seq <= mark.desk_seq:
        return
    newest, _ = bundles.mirror_since(store, files, mark.desk_seq, mark.written)
    mark.desk_seq = max(seq, newest)  # puts committed since the notice are mirrored already
    mark.save(files)


def catch_up(store: Store, files: bundles.BundleFiles, mark: MirrorMark) -> bundles.MirrorReport:
    """Mirror the puts after the mark and every document whose file is missing, then move the mark.

    The caller holds the host's write lock (as for a notice). A file that could not be written is
    logged and counted; if it is missing, the next catch-up tries it again.
    """
    last = store.last_seq(DOMAIN)  # read first: a put committed after it is mirrored now or next time
    newest, report = bundles.mirror_since(store, files, mark.desk_seq, mark.written)
    missing = _missing(files)
    if missing:
        for doc in BundleDocument.select(BundleDocument.bundle_id, BundleDocument.path, BundleDocument.content).where(
            BundleDocument.id.in_(missing)
        ):
            report.count(bundles.mirror_document(files, doc.bundle_id, doc.path, doc.content, None)[1])
    if report.written or report.failed:
        log.info("bundle mirror caught up: %d file(s) written, %d failed", report.written, report.failed)
    mark.desk_seq = max(mark.desk_seq, last, newest)
    mark.save(files)
    return report


def _missing(files: bundles.BundleFiles) -> list[int]:
    """The documents whose file is missing (their contents are not read)."""
    out = []
    for doc in BundleDocument.select(BundleDocument.id, BundleDocument.bundle_id, BundleDocument.path):
        try:
            if not files.path_of(doc.bundle_id, doc.path).exists():
                out.append(doc.id)
        except (OSError, UnsafePath, ValueError):
            continue  # a path the file system refuses or a link: `jiyi doctor`/`bundle.get` report it
    return out

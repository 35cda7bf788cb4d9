"""Catching a host's bundle mirror up with its store: after missed notices, a crash or a full disk.

On a shared store each host mirrors other hosts' document puts when their
change notice arrives (`bundles.mirror_since`). Notices sent while a host's
LISTEN connection was down, or while the host was stopped, never arrive; and
on any store, a `kill -9` between a put's commit and its file, or a disk
that was full when the file was written, leaves a file behind its document
(at an older revision, or missing). So the mirror keeps a mark, `<bundles>/.jiyi-mirror.json`: the database it
mirrors and the desk event up to which its files hold every put. When the
host starts, and whenever its notice connection comes back, it mirrors the
puts after the mark (the same rules as a notice: a file left at an older
revision is refreshed, an outside edit is kept beside it, never overwritten)
and writes every document whose file is missing; on a local store too, so
that a put after a crash finds its file at the revision it replaces and
makes no false "edited outside" copy. Files of documents no put touched
since the mark are not read at all; a missing file costs a `stat`. A file
a put could not write is tried again at the next bundle write (`retry`).
Names read back from the log are checked again (`bundle_names.refusal`):
a document that could lead outside the bundles folder is never written.

On a shared store the mark is saved after each of this host's own puts.
On a local store, which has no other writer, the mark moves to the log's
end after each put whose files are all written, and is saved every few
seconds and when the home closes: after a crash the catch-up looks at the
puts since the last save, and leaves alone every file already at its put.

Jiyi never deletes a bundle document, so no file is ever removed here: a file
under the bundles folder with no document is the person's, and stays.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field

from store.core.database import Store
from store.core.errors import UnsafePath
from store.desk import bundles
from store.desk.bundle_files import BundleFiles
from store.desk.models import BundleDocument
from store.desk.projection import DOMAIN

log = logging.getLogger("jiyi.store.desk")

MARK_NAME = ".jiyi-mirror.json"
MARK_BYTES = 64 << 20  # a mark past this is no mark of Jiyi's (a host's own puts: ~130 bytes a document)


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
    def load(cls, store: Store, files: BundleFiles) -> MirrorMark:
        """The mark in `files`' folder; a missing, unreadable or foreign one counts from event 0 (mirror everything)."""
        fresh = cls(store.location)
        try:
            text = files.read_file([MARK_NAME], MARK_BYTES)  # a regular file only, bounded, never blocking
            if text is None:
                return fresh
            data = json.loads(text)
            seq, written = data["desk_seq"], data.get("written", {})
            valid = isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 and isinstance(written, dict)
            if data["database"] != store.location or not valid:
                return fresh  # another database (a migrated home), or a mark edited by hand
        except (OSError, ValueError, KeyError, TypeError, UnsafePath) as exc:
            log.warning("the bundle mirror's mark is unreadable (%s); mirroring every document again", exc)
            return fresh
        if seq > store.last_seq(DOMAIN):
            return fresh  # a database rebuilt or restored behind the mark: its event numbers are not the ones counted
        return cls(store.location, seq, {str(k): str(v) for k, v in written.items()})

    def wrote(self, bundle_id: str, path: str, content: str) -> None:
        """This host wrote `content` to the document's file itself (its own put)."""
        self.written[f"{bundle_id}/{path}"] = digest(content)

    def save(self, files: BundleFiles) -> None:
        """Write the mark beside the mirror (best effort: logged if it cannot be, and checked again next time)."""
        if not files.root.exists() and not self.desk_seq and not self.written:
            return  # nothing mirrored yet: no bundles folder is made for the mark alone
        data = {"database": self.database, "desk_seq": self.desk_seq, "written": self.written}
        try:
            # Not fsynced: a mark lost or behind after a power cut only makes the next catch-up look at more
            # puts (a file already at its put is left as it is); its files were fsynced before it.
            text = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
            files.write_file([MARK_NAME], text, durable=False)
        except (OSError, UnsafePath) as exc:
            log.warning("could not record how far the bundle mirror is (%s); it will be checked again", exc)


def follow(store: Store, files: BundleFiles, mark: MirrorMark, seq: int) -> None:
    """Another host committed desk event `seq`: mirror the puts after the mark (the notice path)."""
    if seq <= mark.desk_seq:
        return
    newest, _ = bundles.mirror_since(store, files, mark.desk_seq, mark.written)
    mark.desk_seq = max(seq, newest)  # puts committed since the notice are mirrored already
    mark.save(files)


def catch_up(store: Store, files: BundleFiles, mark: MirrorMark) -> bundles.MirrorReport:
    """Mirror the puts after the mark and every document whose file is missing, then move the mark.

    The caller holds the host's write lock (as for a notice). A file that could not be written is
    logged and counted; if it is missing, the next catch-up tries it again.
    """
    last = store.last_seq(DOMAIN)  # read first: a put committed after it is mirrored now or next time
    newest, report = bundles.mirror_since(store, files, mark.desk_seq, mark.written)
    missing = _missing(files, report)
    if missing:
        for doc in BundleDocument.select(BundleDocument.bundle_id, BundleDocument.path, BundleDocument.content).where(
            BundleDocument.id.in_(missing)
        ):
            problem = bundles.mirror_document(files, doc.bundle_id, doc.path, doc.content, None)[1]
            report.count(problem, (doc.bundle_id, doc.path))
    if report.written or report.failed or report.refused:
        log.info(
            "bundle mirror caught up: %d file(s) written, %d failed, %d refused",
            report.written,
            report.failed,
            report.refused,
        )
    mark.desk_seq = max(mark.desk_seq, last, newest)
    mark.save(files)
    return report


def retry(store: Store, files: BundleFiles, documents: set[tuple[str, str]]) -> bundles.MirrorReport:
    """Write the files of documents (bundle id, path) that could not be mirrored before (a full disk, a
    folder without write permission), as their current revision; an older stored revision on disk is
    refreshed, an outside edit kept beside it."""
    report = bundles.MirrorReport()
    for bundle_id, path in sorted(documents):
        doc = BundleDocument.get_or_none((BundleDocument.bundle_id == bundle_id) & (BundleDocument.path == path))
        if doc is None or bundles.refused_names(bundle_id, path, "the view"):
            continue
        earlier = lambda text, b=bundle_id, d=path: bundles.stored_before(store, b, d, text)  # noqa: E731
        report.count(bundles.mirror_document(files, bundle_id, path, doc.content, None, earlier)[1], (bundle_id, path))
    return report


def _missing(files: BundleFiles, report: bundles.MirrorReport) -> list[int]:
    """The documents whose file is missing (their contents are not read); refused names are counted."""
    out = []
    for doc in BundleDocument.select(BundleDocument.id, BundleDocument.bundle_id, BundleDocument.path):
        if bundles.refused_names(doc.bundle_id, doc.path, "the view"):
            report.refused += 1
            continue
        try:
            if not files.path_of(doc.bundle_id, doc.path).exists():
                out.append(doc.id)
        except (OSError, UnsafePath, ValueError):
            continue  # a path the file system refuses or a link: `jiyi doctor`/`bundle.get` report it
    return out

"""This host's bundle files kept in step with the bundle documents in the log.

The store commits a put first and mirrors it to a file after; a crash, a full
disk or another host's put can leave a file behind its document. A
`BundleMirror` remembers how far the files are (`MirrorMark`, saved in the
bundles folder), retries the files it could not write at the next bundle
write, and catches up at start and on other hosts' notices. Every method is
called under the write lock (`Parts.writes`).
"""

from __future__ import annotations

import logging
import time

from store.core.database import Store
from store.desk import bundle_catch_up, bundles
from store.desk.bundle_files import BundleFiles
from store.desk.projection import DOMAIN as DESK

log = logging.getLogger("jiyi.service.memory")

MARK_SECONDS = 5.0  # how often a local store's mirror mark is saved while puts go on


class BundleMirror:
    """How far this host's bundle files are, and bringing them up to date."""

    def __init__(self, store: Store, files: BundleFiles) -> None:
        self.store, self.files = store, files
        # How far the puts in the log are in this host's files (`catch_up` brings them up to date: other
        # hosts' puts on a shared store, and on any store a put whose file a crash or a full disk kept from it).
        self._mark = bundle_catch_up.MirrorMark.load(store, files)
        # Documents whose file this host could not write since it started: tried again at the next bundle write.
        self._unmirrored: set[tuple[str, str]] = set()
        self._mark_saved, self._mark_dirty = time.monotonic(), False

    def follow(self, seq: int) -> None:
        """Another host committed desk event `seq`: mirror the documents it (or others) put since the last call."""
        bundle_catch_up.follow(self.store, self.files, self._mark, seq)

    def catch_up(self) -> bundles.MirrorReport:
        """Mirror what the files missed (see `DeskService.catch_up_mirror`)."""
        report = bundle_catch_up.catch_up(self.store, self.files, self._mark)  # saves the mark
        self._unmirrored = set(report.not_written)
        self._mark_saved, self._mark_dirty = time.monotonic(), False
        return report

    def mirrored(self, bundle_id: str, paths: list[str], report: bundles.MirrorReport) -> None:
        """After a bundle write mirrored `paths`: the documents whose file failed are remembered, and those
        that failed before are tried again (a full disk that has room again)."""
        earlier = self._unmirrored - {(bundle_id, path) for path in paths}
        self._unmirrored = set(report.not_written)
        if earlier:
            again = bundle_catch_up.retry(self.store, self.files, earlier)
            self._unmirrored |= set(again.not_written)
            if again.written:
                log.info("%d bundle file(s) that could not be written before are written now", again.written)

    def wrote(self, bundle_id: str, documents: dict[str, str]) -> None:
        """This host mirrored its own puts: the mark remembers them, see `MirrorMark`.

        A local store has no other writer: when no file is left unwritten, every put in the log is in the
        files, and the mark moves to the log's end instead (it stays small however many documents are put).
        """
        if not documents:
            return
        if not self.store.target.shared and not self._unmirrored:
            self._mark.desk_seq = self.store.last_seq(DESK)
            self._mark.written.clear()
            # Saved every few seconds and at close, not at every put (a rename costs about an fsync): after a
            # crash the catch-up looks at the puts since, and leaves the files that are at their put alone.
            if time.monotonic() - self._mark_saved < MARK_SECONDS:
                self._mark_dirty = True
                return
        else:
            for path, content in documents.items():
                self._mark.wrote(bundle_id, path, content)
        self._save_mark()

    def close(self) -> None:
        """Save the mark if puts moved it since it was last saved."""
        if self._mark_dirty:
            self._save_mark()

    def _save_mark(self) -> None:
        self._mark.save(self.files)
        self._mark_saved, self._mark_dirty = time.monotonic(), False

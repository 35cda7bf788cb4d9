"""This host's bundle files kept in step with the bundle documents in the log.

The store commits a put first and mirrors it to a file after; a crash, a full
disk or another host's put can leave a file behind its document. A
`BundleMirror` remembers how far the files are (`MirrorMark`, saved in the
bundles folder) and catches up at start and on other hosts' notices. The
files it could not write are tried again at the next bundle write and,
without one, on a thread of its own: every 2 s it looks whether the disk has
room and, when it has, tries them (then less and less often while they still
fail, up to once a minute: a folder it may not write is not retried and
logged without end). Every method but `stop_retrying` is called under the
write lock (`Parts.writes`), which the retrying thread takes too.
"""

from __future__ import annotations

import logging
import threading
import time

from store.core import model_binding
from store.core.database import Store
from store.core.home import platform
from store.desk import bundle_catch_up, bundles
from store.desk.bundle_files import BundleFiles
from store.desk.projection import DOMAIN as DESK

log = logging.getLogger("jiyi.service.memory")

MARK_SECONDS = 5.0  # how often a local store's mirror mark is saved while puts go on
RETRY_FIRST = 2.0  # seconds before the files that could not be written are tried again without a write
RETRY_MOST = 60.0  # the longest wait between two tries (each wait doubles the one before)


class BundleMirror:
    """How far this host's bundle files are, and bringing them up to date."""

    def __init__(self, store: Store, files: BundleFiles, writes: threading.RLock) -> None:
        self.store, self.files = store, files
        self._writes = writes  # the host's write lock (`Parts.writes`): the retrying thread takes it
        self._retrier: threading.Thread | None = None
        self._closing = threading.Event()
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
        """Mirror what the files missed (see `BundleService.catch_up_mirror`)."""
        report = bundle_catch_up.catch_up(self.store, self.files, self._mark)  # saves the mark
        self._unmirrored = set(report.not_written)
        self._mark_saved, self._mark_dirty = time.monotonic(), False
        self._retry_later()
        return report

    def mirrored(self, bundle_id: str, paths: list[str], report: bundles.MirrorReport) -> None:
        """After a bundle write mirrored `paths`: the documents whose file failed are remembered, and those
        that failed before are tried again (a full disk that has room again)."""
        earlier = self._unmirrored - {(bundle_id, path) for path in paths}
        self._unmirrored = set(report.not_written)
        if earlier:
            self._retry(earlier)
        self._retry_later()

    @property
    def unwritten(self) -> int:
        """How many documents' files could not be written and wait to be tried again."""
        return len(self._unmirrored)

    def _retry(self, documents: set[tuple[str, str]]) -> None:
        again = bundle_catch_up.retry(self.store, self.files, documents)
        self._unmirrored |= set(again.not_written)
        if again.written:
            log.info("%d bundle file(s) that could not be written before are written now", again.written)

    def _retry_later(self) -> None:
        """With files left unwritten, make sure a thread tries them again, though no bundle write comes."""
        if self._unmirrored and self._retrier is None and not self._closing.is_set():
            self._retrier = threading.Thread(target=self._retrying, name="jiyi-bundle-retry", daemon=True)
            self._retrier.start()

    def _retrying(self) -> None:
        """Try the unwritten files again, waiting longer each time, until none is left or the home closes.
        While the folder's disk has no room at all, only that is looked at (no warning per file each time)."""
        wait = RETRY_FIRST
        while not self._closing.wait(wait):
            with self._writes:
                if not self._unmirrored:
                    self._retrier = None  # under the lock: a failure after this starts a new thread
                    return
                if not self._has_room():
                    wait = RETRY_FIRST  # looking costs a `statvfs`: space that returns is seen within seconds
                    continue
                wait = min(wait * 2, RETRY_MOST)
                model_binding.hold(self.store)  # reads through the models: this home's (see `model_binding`)
                earlier, self._unmirrored = self._unmirrored, set()
                try:
                    self._retry(earlier)
                except Exception:
                    self._unmirrored |= earlier
                    log.exception("the bundle files that could not be written were not tried again")
                if not self._unmirrored:
                    self._retrier = None
                    return

    def _has_room(self) -> bool:
        """Whether the bundles folder's file system has a free block (True when that cannot be told)."""
        folder = self.files.root
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        try:
            return not platform.out_of_space(folder)
        except OSError:
            return True

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

    def stop_retrying(self) -> None:
        """End the retrying thread (called without the write lock, which that thread may be waiting for)."""
        self._closing.set()
        retrier = self._retrier
        if retrier is not None:
            retrier.join()

    def close(self) -> None:
        """Save the mark if puts moved it since it was last saved (after `stop_retrying`)."""
        if self._mark_dirty:
            self._save_mark()

    def _save_mark(self) -> None:
        self._mark.save(self.files)
        self._mark_saved, self._mark_dirty = time.monotonic(), False

"""Bundles (seed 002) as a part of the `Memory` facade: a schedule's or a project's folder of documents,
listed, read and written against the revision the caller read, and mirrored to files in the home
(`bundle_mirror.py`). The desk files a scheduled task's run into its bundle through this part."""

from __future__ import annotations

from service.memory.bundle_mirror import BundleMirror
from service.memory.parts import Parts, check_actor
from service.ops import desk as desk_ops
from service.ops.perform import pages, performs
from service.wire.desk import Bundle, BundleDetail
from service.wire.results import DocumentWritten
from service.wire.row import all_of, of
from store.core.errors import InvalidInput
from store.desk import bundle_names, bundles
from store.desk.bundle_files import BundleFiles
from store.desk.projection import DOMAIN as DESK


class BundleService:
    """The bundles, their documents, and their files kept in step with the log (`mirror`)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.store, self.redactor = parts.store, parts.redactor
        self.bundle_files = BundleFiles(parts.config.bundles_path)
        self.mirror = BundleMirror(self.store, self.bundle_files, parts.writes)

    @pages(desk_ops.BUNDLE_LIST)
    def list_bundles(self, *, kind: str | None = None, limit: int = 200, offset: int = 0) -> list[Bundle]:
        if kind is not None and kind not in bundle_names.KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(bundle_names.KINDS)}")
        return all_of(Bundle, bundles.list_bundles(self.store, kind, limit, offset))

    @performs(desk_ops.BUNDLE_GET)
    def get_bundle(
        self, bundle_id: str | None, path: str | None = None, *, schedule_id: str | None = None
    ) -> BundleDetail:
        """A bundle (named by its id, or by its schedule's) with its documents, or with one document's content."""
        bundle_id = desk_ops.bundle_named(bundle_id, schedule_id)
        return of(BundleDetail, bundles.get_bundle(self.store, self.bundle_files, bundle_id, path))

    @performs(desk_ops.DOCUMENT_PUT)
    def put_bundle_document(
        self,
        bundle_id: str | None,
        path: str,
        content: str,
        *,
        expected_revision: int,
        actor: str = "agent",
        schedule_id: str | None = None,
    ) -> DocumentWritten:
        """Write a document if `expected_revision` is current; a stale one is a conflict carrying the current one."""
        bundle_id = desk_ops.bundle_named(bundle_id, schedule_id)
        check_actor(actor)
        with self.parts.writes:
            result = bundles.put_document(
                self.store,
                self.bundle_files,
                self.redactor,
                bundle_id=bundle_id,
                path=path,
                content=content,
                expected_revision=expected_revision,
                actor=actor,
            )
            report = bundles.MirrorReport()
            if result.changed:
                report.count(result.mirror_problem, (result.bundle_id, result.path))
            # An unchanged put writes no file of its own; a file that failed before (its own too) is tried again.
            self.mirror.mirrored(result.bundle_id, [result.path] if result.changed else [], report)
            if result.changed and result.mirror_problem is None:
                self.mirror.wrote(result.bundle_id, {result.path: result.content})
        if result.changed:
            self.parts.changed(DESK)
        return {
            "bundle_id": result.bundle_id,
            "path": result.path,
            "revision": result.revision,
            "changed": result.changed,
            "content": result.content,
            "outside_edit_kept": result.outside_edit_kept,
            "mirror_problem": result.mirror_problem,
        }

    def mirror_committed(self, bundle_id: str, pending: bundles.Pending) -> None:
        """Write the files of the documents a commit just put in `bundle_id` (a scheduled task's run filed by
        `DeskService.complete_task`); the caller holds the write lock."""
        report = bundles.mirror(self.bundle_files, bundle_id, pending)
        failed = {path for _bundle, path in report.not_written}
        self.mirror.mirrored(bundle_id, list(pending), report)
        self.mirror.wrote(bundle_id, {path: text for path, (text, _old) in pending.items() if path not in failed})

    def mirror_remote(self, seq: int) -> None:
        """Another host committed desk event `seq`: mirror the documents it (or others) put since the last call."""
        with self.parts.writes:
            self.mirror.follow(seq)

    def catch_up_mirror(self) -> bundles.MirrorReport:
        """Mirror what the files missed: puts of other hosts while this host did not hear their notices
        (stopped, or reconnecting), and a put whose file a crash or a full disk kept from it (at start)."""
        with self.parts.writes:
            return self.mirror.catch_up()

    def close(self) -> None:
        """Record how far the mirror is (the mark a local store saves every few seconds only)."""
        self.mirror.stop_retrying()
        with self.parts.writes:
            self.mirror.close()

    def restore_bundle_files(self) -> bundles.MirrorReport:
        """Mirror every document whose file is missing (a crash between commit and mirror, a wiped folder)."""
        return bundles.mirror_all(self.store, self.bundle_files)

    def bundle_directory(self, bundle_id: str) -> str:
        """The folder a bundle is mirrored to (it may not exist yet)."""
        bundle_names.split_bundle_id(bundle_id)
        return str(self.bundle_files.root / bundle_id)

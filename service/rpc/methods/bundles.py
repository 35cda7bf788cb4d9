"""Bundle folders: list them, read a document, write one against the revision the caller read
(declared in `service/ops/desk.py`)."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.results import DocumentWritten
from service.memory.rows import BundleDetail
from service.ops import desk
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("bundles")


@TABLE.op(desk.BUNDLE_GET)
def bundle_get(memory: Memory, args: desk.BundleGetArgs, _context: CallContext) -> BundleDetail:
    return memory.desk.get_bundle(args.bundle, args.path)


@TABLE.op(desk.DOCUMENT_PUT)
def bundle_document_put(memory: Memory, args: desk.DocumentPutArgs, _context: CallContext) -> DocumentWritten:
    assert args.expected_revision is not None  # DocumentPutArgs.check
    return memory.desk.put_bundle_document(
        args.bundle, args.path, args.content, expected_revision=args.expected_revision, actor=args.actor
    )


@TABLE.op(desk.BUNDLE_DIRECTORY)
def bundle_directory(memory: Memory, args: desk.BundleArgs, _context: CallContext) -> desk.BundleDirectory:
    return desk.BundleDirectory(bundle_id=args.bundle, directory=memory.desk.bundle_directory(args.bundle))

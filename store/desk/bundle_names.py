"""What a bundle id and a document path may be, checked at the socket and again when the log is replayed.

A bundle id is `<kind>/<key>` and a document path is a top-level `name.md`,
`state.json` or `runs/<run_id>/summary.md`; the key and the run id are ids
(no slashes, backslashes or control characters, never `.` or `..`). So a
stored name is always one file or folder name below `bundles/<kind>/`, and
nothing Jiyi writes can land outside the bundles folder.

The socket checks every name before it is stored (`split_bundle_id`,
`check_path`, with the file system's byte limits). An event in the log has
not necessarily passed those checks: a restored or migrated database, or
another host on a shared PostgreSQL store, may hold any text. Replaying
(the desk projection, the mirror's catch-up, `jiyi rebuild`) therefore asks
`refusal` again and refuses an event whose names fail: it is counted and
reported (`jiyi doctor`, `health`), never written to a file or the view.
Names too long for a file system are not refused there: an older Jiyi
stored some, and they stay readable, reported as the file state
`unwritable` (see `bundles`).
"""

from __future__ import annotations

import re

from store.core.errors import InvalidInput
from store.desk.common import NAME_BYTES, check_id, check_name

KINDS = ("schedule", "project")
MAX_DOCUMENT_CHARS = 256_000
MAX_DOCUMENT_BYTES = 4 * MAX_DOCUMENT_CHARS  # UTF-8 takes at most 4 bytes a character
_TOP = re.compile(r"[\w\u3400-\u9fff][\w\u3400-\u9fff.-]{0,80}\.md")  # matched whole (fullmatch)
_RUN = re.compile(r"runs/([^/]+)/summary\.md")  # the run id is checked as a name (check_name)


def split_bundle_id(bundle_id: object) -> tuple[str, str]:
    """(kind, key) of `<kind>/<key>`; `InvalidInput` for another kind or a key that is not an id."""
    if not isinstance(bundle_id, str) or "/" not in bundle_id:
        raise InvalidInput("bundle_id must look like schedule/<schedule_id> or project/<name>")
    kind, key = bundle_id.split("/", 1)
    if kind not in KINDS:
        raise InvalidInput(f"bundle kind must be one of {', '.join(KINDS)}, not {kind[:40]!r}")
    check_id(key, "the bundle key")
    return kind, key


def check_path(path: object, *, stored: bool = False) -> str:
    """A document path inside a bundle: a top-level `.md`, `state.json` or `runs/<run_id>/summary.md`.

    Matched whole; the run id follows the rules of a name (`check_name`), and a
    top-level name is at most `NAME_BYTES` bytes. With `stored`, a path read back
    from the log: the same shapes, without the byte limits (see the module docstring).
    """
    if not isinstance(path, str):
        raise InvalidInput("path must be a string")
    why = "a top-level name.md, state.json or runs/<run_id>/summary.md"
    if path == "state.json":
        return path
    if _TOP.fullmatch(path):
        if stored or len(path.encode("utf-8")) <= NAME_BYTES:
            return path
        why = f"a document name is at most {NAME_BYTES} bytes in UTF-8"
    elif run := _RUN.fullmatch(path):
        try:
            (check_id if stored else check_name)(run.group(1), "the run id")
            return path
        except InvalidInput as exc:
            why = str(exc)
    raise InvalidInput(f"{path[:80]!r} is not a bundle document path ({why})")


def refusal(bundle_id: object, path: object = None) -> str | None:
    """Why a bundle event read from the log must not be replayed (None: its names are ones Jiyi writes).

    `path` None checks the bundle id alone (a `bundle_created` event).
    """
    try:
        split_bundle_id(bundle_id)
        if path is not None:
            check_path(path, stored=True)
    except InvalidInput as exc:
        return str(exc)
    return None

"""The base of the typed rows the store answers: frozen msgspec Structs, built where the store reads them.

These are the store's own: the protocol's rows are the service's (`service/wire/`), which the facade builds
from these by field name (`service.wire.row.of`), so a change here reaches the wire only through an edit
there. A field a row may lack is `UNSET`.
"""

from __future__ import annotations

import msgspec


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """A row the store reads: frozen, built once where it reads it."""

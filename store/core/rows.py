"""The base of the typed rows the store answers: frozen msgspec Structs, built where the store reads them.

A row's field names and order are the wire's (`service/memory/rows.py` re-exports each domain's rows
beside the facade's own): encoding one gives the bytes of the JSON object the store built before rows were
typed. A field a row may lack is `UNSET` (left out of its JSON).
"""

from __future__ import annotations

import msgspec


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """A row the console shows: frozen, built once (by the store, or decoded at the socket)."""

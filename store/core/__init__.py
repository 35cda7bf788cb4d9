"""What every domain of the store stands on: the `Store` (database, event log, views), migrations,
the private home and its lock, atomic files, the clock, errors by cause and the redaction filter."""

"""The store: the SQLite database, its event log and the domain rules. No Qt here."""

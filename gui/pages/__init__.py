"""One module per console page."""

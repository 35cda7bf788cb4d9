"""The `jiyi` commands: `main` builds the parser and runs what was parsed; one module per
command group declares its words with their handlers; `output` prints tables, JSON and progress."""

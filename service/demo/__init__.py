"""`jiyi demo`: a home filled with realistic memory, to try the console without an agent."""

"""The desktop-assistant memory (docs/protocol.md): interactions, task cards, topics and workdays,
maintenance, facts, skills and bundles, in the event domain `desk`."""

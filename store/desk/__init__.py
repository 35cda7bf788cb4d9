"""The desktop-assistant memory (seed 002): interactions, task cards, topics and workdays,
maintenance, facts, skills and bundles, in the event domain `desk`."""

"""Phone-agent runs: the episode archive and tool events, folding, lessons, and the recall log
with its statistics and term counts (docs/recall.md)."""

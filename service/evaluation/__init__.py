"""Measuring Jiyi on labelled files: name resolution (`resolve_eval`), shadow recall (`recall_eval`),
and the one percentile definition they and the bench scripts report (`percentile`)."""

"""Data files shipped with Jiyi (app registry, word lists, translations)."""

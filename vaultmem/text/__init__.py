"""Pure readers of markdown text and words: the standard library and the markdown readers
only (tests/test_boundaries.py checks it)."""

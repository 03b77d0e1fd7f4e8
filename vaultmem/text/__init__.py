"""Pure readers of markdown text: standard library only (see tests/test_boundaries.py)."""

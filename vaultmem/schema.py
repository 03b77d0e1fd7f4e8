"""The version of every `--json` document's shape (SPEC 1).

Each document carries `"schema": SCHEMA`. Changing, renaming or removing a key of any
document bumps it; adding a key does not. The README lists every document's keys.
"""

SCHEMA = 2

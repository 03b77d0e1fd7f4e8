"""The one exception family. Messages are for users: say what is wrong and what to do."""

import shutil


class VaultmemError(Exception):
    """A domain failure: the CLI prints the message on one line and exits 1."""


class NoIndexError(VaultmemError):
    """The store does not exist yet."""

    def __init__(self, db_path, vault):
        super().__init__(f"no index at {db_path}: run `vaultmem index {vault}` first")


class ConfigError(VaultmemError):
    """The configuration file or an environment override is unusable."""


class ModelError(VaultmemError):
    """The embedding model could not be assembled or loaded."""


class BusyError(VaultmemError):
    """Another writer holds the store."""


class UsageError(VaultmemError):
    """The caller asked for something malformed: the CLI exits 2, as for a bad option."""


class NotFoundError(VaultmemError):
    """A named note, entry or item does not exist."""


class StoreDamagedError(VaultmemError):
    """SQLite reports the store's file as damaged."""

    def __init__(self, path, detail: str = ""):
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"the store {path} is damaged{why}: run `vaultmem index --rebuild` to move it "
            "aside (it is kept) and rebuild it from the vault, with the history that can "
            "still be read")


class StoreReadOnlyError(VaultmemError):
    """The store can be read but not written."""

    def __init__(self, path, what: str = "this"):
        super().__init__(
            f"the store {path} is read-only (its file or folder cannot be written): queries "
            f"work, but {what} needs write access")


class NewerStoreError(VaultmemError):
    """The store was made by a newer vaultmem: nothing is read or written."""

    def __init__(self, path, schema: int, known: int, unknown: list[str] = ()):
        names = f"; migrations unknown here: {', '.join(unknown)}" if unknown else ""
        super().__init__(
            f"the store {path} was made by a newer vaultmem (schema {schema} > {known}"
            f"{names}): upgrade vaultmem (`pip install -U vaultmem`) to use it, or point "
            "`db` at another store")


class VaultGoneError(VaultmemError):
    """The vault folder went away (deleted, moved, unmounted) before or during a run."""

    def __init__(self, path):
        super().__init__(
            f"the vault disappeared at {path} (deleted, moved or unmounted) during the index "
            "run: what the index held is kept; run `vaultmem index` again once the folder "
            "is back")


class DiskFullError(VaultmemError):
    """The disk under the store (or the vault) has no room left for a write."""

    def __init__(self, folder):
        try:
            free = f"{shutil.disk_usage(folder).free / 1e6:.0f} MB free"
        except OSError:
            free = "free space unknown"
        super().__init__(f"the disk is full ({free} at {folder}): free some space, then run "
                         "the command again (what was written before is kept)")


# Core messages name a parameter or a call the way the library spells it, in backticks
# (`folders`, `ledger(include_closed=True)`); each face says it in its own words, once,
# where it prints the message: the CLI's flags and commands, the MCP server's tools.
TERMS = {
    "cli": {
        "now": "--now", "folders": "--in", "not_folders": "--not-in", "tags": "--tag",
        "not_tags": "--not-tag", "where": "--where", "changed_since": "--changed-since",
        "changed_before": "--changed-before", "depth": "--depth",
        "edit": "--edit", "snooze": "--for",
        "links": "--link", "when": "--when", "due": "--due", "start": "--start",
        "scheduled": "--scheduled", "keywords": "--keywords", "project": "--project",
        "on": "--on", "limit": "-k/--limit", "horizon": "--horizon", "weight": "--weight",
        "db": "--db", "cands": "CAND",
        "ledger(include_closed=True)": "`vaultmem ledger --all`",
        "suggestions()": "`vaultmem ledger suggest`", "index()": "`vaultmem index`",
        "query()": "`vaultmem query`", "status()": "`vaultmem status --json`",
    },
    "mcp": {
        "ledger(include_closed=True)": "the `ledger` tool with include_closed",
        "query()": "`search`", "index()": "indexing", "status()": "the `status` tool",
        # no tool lists candidates: they are the user's to review
        "suggestions()": "the user's `vaultmem ledger suggest`",
    },
}


def in_terms(message: str, face: str) -> str:
    """`message` with the library's terms said as `face` ("cli", "mcp") says them."""
    import re

    words = TERMS.get(face, {})
    return re.sub(r"`([^`]+)`", lambda m: words.get(m.group(1), m.group(0)), message)

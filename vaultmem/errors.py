"""The one exception family. Messages are for users: say what is wrong and what to do."""


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

"""vaultmem: a forward-looking memory for a markdown notes vault."""

__version__ = "0.1.0"

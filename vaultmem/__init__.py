"""vaultmem: a forward-looking memory for a markdown notes vault.

    from vaultmem import Vault

    with Vault.open("~/notes") as vault:
        vault.index()
        for hit in vault.query("guests arrive saturday").results:
            print(hit.rank, hit.path)

`Vault` is imported on first use, so `vaultmem --help` stays light.
"""

__version__ = "0.1.0"
__all__ = ["Vault", "__version__"]


def __getattr__(name: str):
    if name == "Vault":
        from .api import Vault

        return Vault
    raise AttributeError(f"module 'vaultmem' has no attribute {name!r}")

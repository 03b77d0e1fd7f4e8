"""Shell completion of the values only the vault knows: note names for `get` and
`related`, entry ids for `ledger show`. Typer calls these while the user presses Tab
(`vaultmem --install-completion` sets it up for bash, zsh or fish).

A completion must answer fast and never fail: it reads the store as it is (no index run,
no model) and returns nothing at all when the vault or its store cannot be opened.
"""

from __future__ import annotations

import posixpath


def _vault(ctx):
    """The vault the command line names so far (`--vault`, `--db`, or the defaults)."""
    from ..api import Vault

    params: dict = {}
    while ctx is not None:  # options given to `ledger` reach `ledger show`
        params = {**ctx.params, **{k: v for k, v in params.items() if v is not None}}
        ctx = ctx.parent
    return Vault.open(params.get("vault"), params.get("db"))


def _safely(answer):
    try:
        return answer()
    except Exception:  # noqa: BLE001 - a Tab press must never print a traceback
        return []


def note_names(ctx, incomplete: str) -> list[tuple[str, str]]:
    """What `get` and `related` take, starting with what is typed (the shell keeps only
    those): vault-relative paths, and names as a link writes them; each with its title.
    A name two notes share is offered once (it opens the one a link would)."""
    def answer():
        with _vault(ctx) as vault:
            titles = vault.store.note_titles()
        found: dict[str, str] = {}
        for path, title in sorted(titles.values(), key=lambda pt: (len(pt[0]), pt[0])):
            name = posixpath.splitext(posixpath.basename(path))[0]
            for offer in (path, name):
                if offer.startswith(incomplete) and offer not in found:
                    found[offer] = title or path
        return sorted(found.items(), key=lambda item: (len(item[0]), item[0]))
    return _safely(answer)


def entry_ids(ctx, incomplete: str) -> list[tuple[str, str]]:
    """Ledger entry ids starting with what is typed: (id, its action), open ones first."""
    def answer():
        with _vault(ctx) as vault:
            rows = vault.ledger(include_closed=True).results
        return [(r["id"], r["action"]) for r in sorted(rows, key=lambda r: r["status"] != "open")
                if r["id"].startswith(incomplete)]
    return _safely(answer)

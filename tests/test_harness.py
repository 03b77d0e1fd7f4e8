"""The shared vault harness (conftest `make_vault`) builds what it is asked for: files,
a ledger, a config file, mtimes, an index run, and the embedder the test kind calls for."""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from vaultmem import Vault

from .conftest import FakeEmbedder


def test_a_unit_test_gets_an_open_indexed_vault_on_the_fake_embedder(make_vault):
    vault = make_vault({"notes/a.md": "# A\nThe boiler.\n"},
                       ledger="- [ ] Service the boiler [[a]]\n", config_toml="weight = 0.5\n",
                       mtime=datetime(2026, 8, 1, 12), index_at=datetime(2026, 8, 2))
    assert isinstance(vault, Vault) and isinstance(vault.embedder, FakeEmbedder)
    assert vault.settings.weight == 0.5
    root = vault.settings.vault
    assert os.path.getmtime(root / "notes/a.md") == datetime(2026, 8, 1, 12).timestamp()
    assert sorted(vault.store.path_ids()) == ["Ledger.md", "notes/a.md"]
    assert [e["id"] for e in vault.ledger().as_dict()["results"]] == ["c-service-boiler"]
    assert vault.embedder.embedded > 0


def test_each_vault_gets_its_own_folder_and_settings_pass_through(make_vault):
    first, second = make_vault(), make_vault(mode="dense")
    assert first.settings.vault != second.settings.vault
    assert (first.settings.mode, second.settings.mode) == ("hybrid", "dense")
    assert first.store.path_ids() == {}  # nothing indexed unless index_at is given


@pytest.mark.integration
def test_an_integration_test_gets_the_real_model(make_vault):
    vault = make_vault({"a.md": "# A\n"})
    assert vault._embedder is None  # the bundled model, loaded on first use

"""Opening a note where its user reads it: in Obsidian, by its `obsidian://` URI, or in
`$EDITOR`. An interface module: only the CLI calls it.

`launch` is the one function that starts a program; tests replace it (and the test
suite's conftest makes any other call fail), so nothing is ever opened by a test.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from .errors import VaultmemError


def obsidian_uri(vault: Path, path: str) -> str:
    """Obsidian's own link to a note: the vault is named by its folder's name, the file
    by its vault-relative path, both percent-encoded."""
    return f"obsidian://open?vault={quote(vault.name, safe='')}&file={quote(path, safe='')}"


def command(vault: Path, path: str, *, editor: bool = False, environ=None,
            platform: str | None = None) -> list[str]:
    """The argv that opens `path`: `$EDITOR` on the file, or the platform's URI opener
    (open, start, xdg-open) on its Obsidian link."""
    environ = os.environ if environ is None else environ
    platform = platform or sys.platform
    if editor:
        chosen = environ.get("EDITOR", "").strip()
        if not chosen:
            raise VaultmemError("$EDITOR is not set: set it (e.g. `export EDITOR=nano`), or "
                                "leave out --editor to open the note in Obsidian")
        return [*shlex.split(chosen), str(vault / path)]
    uri = obsidian_uri(vault, path)
    if platform == "darwin":
        return ["open", uri]
    if platform.startswith("win"):
        return ["cmd", "/c", "start", "", uri]
    return ["xdg-open", uri]


def launch(argv: list[str], wait: bool) -> None:
    """Start `argv`: an editor in the foreground (it takes the terminal until closed),
    a URI opener detached, its chatter discarded."""
    try:
        if wait:
            subprocess.run(argv, check=False)
        else:
            subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise VaultmemError(f"cannot run {argv[0]} ({exc.strerror or exc}): open "
                            f"{argv[-1]} yourself") from None


def open_note(vault: Path, path: str, *, editor: bool = False) -> str:
    """Open `path` (vault-relative); returns where ("Obsidian", or the editor's name)."""
    argv = command(vault, path, editor=editor)
    launch(argv, wait=editor)
    return Path(argv[0]).name if editor else "Obsidian"

"""Resolve links to vault note paths the way Obsidian does (pure, no I/O)."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Sequence

from vaultmem.parse import Link

# A name ending like "image.png" or "file.pdf" names an attachment, not a note;
# "Release v1.2" still resolves when a note of that name exists.
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})$")
_DRIVE = re.compile(r"^[A-Za-z]:/")


def _fold(text: str) -> str:
    """Case- and normalization-insensitive key: macOS stores names decomposed (NFD)."""
    return unicodedata.normalize("NFC", text).lower()


def _stem(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def _shortest(paths: Iterable[str]) -> str:
    return min(paths, key=lambda p: (len(p), p))


class Resolver:
    """Maps link targets to note paths; lookups are built once, each resolve is O(1)-ish."""

    def __init__(self, notes: dict[str, Sequence[str]]):
        self._paths = set(notes)
        self._by_path: dict[str, str] = {}
        self._by_suffix: dict[str, str] = {}
        self._by_name: dict[str, str] = {}
        self._by_alias: dict[str, str] = {}
        for path, aliases in notes.items():
            self._index(path, aliases)

    def _index(self, path: str, aliases: Sequence[str]) -> None:
        _keep(self._by_path, _fold(path), path)
        parts = _fold(_stem(path)).split("/")
        for i in range(1, len(parts)):
            _keep(self._by_suffix, "/".join(parts[i:]), path)
        _keep(self._by_name, parts[-1], path)
        for alias in aliases:
            if isinstance(alias, str) and alias.strip():
                _keep(self._by_alias, _fold(alias.strip()), path)

    def resolve(self, link: Link, source: str) -> str | None:
        """The path of the note `link` (written in note `source`) points to, or None."""
        target = link.target.strip().replace("\\", "/")
        if not target:
            return source
        if escapes_vault(target, source):
            return None
        # Obsidian writes "../x" wiki-links too when set to relative link paths.
        if link.kind == "markdown" or target.startswith(("./", "../")):
            return self._resolve_relative(target, source)
        return self._resolve_name(target)

    def _resolve_relative(self, target: str, source: str) -> str | None:
        folder = posixpath.dirname(source)
        for candidate in (posixpath.join(folder, target), target):
            found = self._exact(posixpath.normpath(candidate))
            if found:
                return found
        # Obsidian falls back to matching by name; "../" no longer means anything then.
        parts = [part for part in target.split("/") if part not in ("", ".", "..")]
        return self._resolve_name("/".join(parts)) if parts else None

    def _resolve_name(self, target: str) -> str | None:
        target = target.removeprefix("./")
        if self._is_attachment(target):
            return None
        found = self._exact(target)
        if found:
            return found
        key = _fold(_stem(target))
        table = self._by_suffix if "/" in key else self._by_name
        return table.get(key) or self._by_alias.get(_fold(target))

    def _exact(self, target: str) -> str | None:
        """The note at exactly this path (".md" optional), else the same path ignoring case."""
        for candidate in (target, target + ".md"):
            if candidate in self._paths:
                return candidate
        folded = _fold(target)
        return self._by_path.get(folded) or self._by_path.get(folded + ".md")

    def _is_attachment(self, target: str) -> bool:
        match = _EXTENSION.search(target)
        if match is None or match.group(1).lower() == "md":
            return False
        key = _fold(target)
        return key not in self._by_name and key not in self._by_suffix and not self._exact(target)


def _keep(table: dict[str, str], key: str, path: str) -> None:
    """Store path under key unless a shorter path (Obsidian's tie-break) already holds it."""
    held = table.get(key)
    table[key] = path if held is None else _shortest((held, path))


def escapes_vault(target: str, source: str) -> bool:
    """True when target, read relative to source's folder, points outside the vault."""
    target = target.strip().replace("\\", "/")
    if target.startswith("/") or _DRIVE.match(target):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    return joined == ".." or joined.startswith("../")

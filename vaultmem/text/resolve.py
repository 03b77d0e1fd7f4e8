"""Resolve links to vault note paths the way Obsidian does (pure, no I/O)."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable

from .rows import Link

# A name ending like "image.png" or "file.pdf" names an attachment, not a note;
# "Release v1.2" still resolves when a note of that name exists.
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})$")
_DRIVE = re.compile(r"^[A-Za-z]:/")


def fold(text: str) -> str:
    """Case- and normalization-insensitive key: macOS stores names decomposed (NFD)."""
    return unicodedata.normalize("NFC", text).lower()


_fold = fold


def names_attachment(target: str) -> bool:
    """Whether an unresolved link target names a file that is not a note ("x.png")."""
    match = _EXTENSION.search(target.strip())
    return match is not None and match.group(1).lower() != "md"


def _stem(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


class Resolver:
    """Maps link targets to note paths; lookups are built once, each resolve is O(1)-ish.

    Aliases are not link targets (Obsidian's help on aliases: they serve search and
    autocomplete), so a link written with an alias stays unresolved; `status` names the
    notes carrying it (`Store.alias_paths`).
    """

    def __init__(self, paths: Iterable[str]):
        """`paths`: the live notes' vault-relative paths."""
        paths = list(paths)
        self._paths = set(paths)
        self._by_path: dict[str, str] = {}
        self._by_suffix: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = {}
        for path in paths:
            self._index(path)
        for found in self._by_name.values():
            found.sort(key=_path_order)

    def _index(self, path: str) -> None:
        _keep(self._by_path, _fold(path), path)
        parts = _fold(_stem(path)).split("/")
        for i in range(1, len(parts)):
            _keep(self._by_suffix, "/".join(parts[i:]), path)
        self._by_name.setdefault(parts[-1], []).append(path)

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
        return self._resolve_name(target, source)

    def _resolve_relative(self, target: str, source: str) -> str | None:
        folder = posixpath.dirname(source)
        for candidate in (posixpath.join(folder, target), target):
            found = self._exact(posixpath.normpath(candidate))
            if found:
                return found
        # Obsidian falls back to matching by name; "../" no longer means anything then.
        parts = [part for part in target.split("/") if part not in ("", ".", "..")]
        return self._resolve_name("/".join(parts), source) if parts else None

    def _resolve_name(self, target: str, source: str) -> str | None:
        """By path from the vault root, then from the linking note's folder, else by
        path suffix (shortest path), else by file name: in the linking note's own
        folder first, then the shortest path (SPEC 2)."""
        target = target.removeprefix("./")
        if self._is_attachment(target):
            return None
        folder = posixpath.dirname(source)
        found = self._exact(target) or (folder and self._exact(posixpath.join(folder, target)))
        if found:
            return found
        key = _fold(_stem(target))
        if "/" in key:
            return self._by_suffix.get(key)
        paths = self._by_name.get(key)
        if not paths:
            return None
        beside = [p for p in paths if _fold(posixpath.dirname(p)) == _fold(folder)]
        return (beside or paths)[0]

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


def _path_order(path: str) -> tuple[int, str]:
    """Obsidian's tie-break among notes of one name: the shortest path, then by name."""
    return (len(path), path)


def _keep(table: dict[str, str], key: str, path: str) -> None:
    """Store path under key unless a shorter path (Obsidian's tie-break) already holds it."""
    held = table.get(key)
    table[key] = path if held is None else min((held, path), key=_path_order)


def escapes_vault(target: str, source: str) -> bool:
    """True when target, read relative to source's folder, points outside the vault."""
    target = target.strip().replace("\\", "/")
    if target.startswith("/") or _DRIVE.match(target):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    return joined == ".." or joined.startswith("../")

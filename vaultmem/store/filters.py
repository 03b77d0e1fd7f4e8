"""The notes table read as the structural filters ask (filters.py in the domain turns a
caller's options into these calls, and owns the messages).

Folders, tags and change dates are one statement over the notes table and its indexes,
built step by step (`NoteSelect`); front-matter conditions read the values one key
holds, cheapest first (`column_values`, `key_values`, `key_items`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store

# Front-matter keys the notes table also holds as a column (their scalar values).
COLUMNS = ("type", "status", "importance", "project", "created", "updated", "date")


def folder_range(folder: str) -> list[str]:
    """A folder as written ("area1/") is the path index range up to "area10" ("0"
    follows "/")."""
    return [folder, folder[:-1] + "0"]


def tag_range(tag: str) -> list[str]:
    """The tag itself and the tags nested under it: stored in lower case, they are the
    index range from "project/" up to "project0" ("0" follows "/")."""
    return [tag, tag + "/", tag + "0"]


def has_notes_under(store: Store, folder: str) -> bool:
    """Whether a live note's path starts with `folder` exactly as written."""
    return store.execute("SELECT 1 FROM notes WHERE deleted = 0 AND path >= ? AND path < ? "
                         "LIMIT 1", folder_range(folder)).fetchone() is not None


def tag_exists(store: Store, tag: str) -> bool:
    """Whether any note carries `tag` or a tag nested under it."""
    return store.execute("SELECT 1 FROM tags WHERE tag = ? OR (tag >= ? AND tag < ?) LIMIT 1",
                         tag_range(tag)).fetchone() is not None


class NoteSelect:
    """`SELECT id FROM notes WHERE deleted = 0`, narrowed one filter at a time."""

    def __init__(self) -> None:
        self._sql = ["SELECT id FROM notes WHERE deleted = 0"]
        self._params: list = []

    def folders(self, exact: list[str], ids: list[list[int]], negate: bool) -> None:
        """Under any of the `exact` folders (path ranges) or among any of the `ids` lists
        (a folder found in another case), or under none of them (`negate`)."""
        terms = []
        for folder in exact:
            terms.append("(path >= ? AND path < ?)")
            self._params += folder_range(folder)
        terms += [f"id IN ({','.join(map(str, group))})" if group else "0" for group in ids]
        self._sql.append(f"AND {'NOT ' if negate else ''}({' OR '.join(terms)})")

    def tag(self, tag: str, negate: bool) -> None:
        self._sql.append(f"AND id {'NOT ' if negate else ''}IN (SELECT note_id FROM tags "
                         "WHERE tag = ? OR (tag >= ? AND tag < ?))")
        self._params += tag_range(tag)

    def changed(self, low_ns: int, high_ns: float) -> None:
        self._sql.append("AND mtime_ns >= ? AND mtime_ns < ?")
        self._params += [low_ns, high_ns]

    def ids(self, store: Store) -> set[int]:
        return {r[0] for r in store.execute(" ".join(self._sql), self._params)}


def column_values(store: Store, key: str) -> list[tuple[object, str]]:
    """(value, comma-joined live note ids) of each distinct value of a COLUMNS key."""
    assert key in COLUMNS  # a column name is spliced into the statement
    return store.execute(f"SELECT {key}, group_concat(id) FROM notes WHERE deleted = 0 AND "
                         f"{key} IS NOT NULL GROUP BY {key}").fetchall()


def _named(key: str) -> str:
    """A LIKE pattern for front matter that names `key`, quoted, in its JSON."""
    escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return '%"' + escaped + '"%'


def _holding(wanted: str) -> tuple[str, list[str]]:
    """A cheap test that a value may equal `wanted`, to skip the rest: its text holds
    `wanted` (any ASCII case). Only where that is sure: an ASCII word that is no number
    (1.0 and 1 are equal and differ as text; SQLite folds ASCII case alone)."""
    try:
        float(wanted)
        return "", []
    except ValueError:
        pass
    if not wanted.isascii():
        return "", []
    return (" AND (kind IS NULL OR kind IN ('true', 'false') OR "
            "instr(lower(CAST(value AS TEXT)), ?) > 0)", [wanted])


def key_values(store: Store, key: str, wanted: str, column_empty: bool
               ) -> list[tuple[int, str | None, object]]:
    """(note id, JSON type or None, value) of the live notes whose front matter names
    `key` as written (type None: it names it in another case); only notes whose column
    is empty when `column_empty`; rows whose value cannot equal `wanted` left out."""
    path = f'$."{key}"'
    only = f"AND {key} IS NULL " if column_empty else ""
    holding, maybe = _holding(wanted)
    return store.execute(
        "SELECT id, json_type(frontmatter, ?) AS kind, json_extract(frontmatter, ?) AS "
        f"value FROM notes WHERE deleted = 0 {only}AND frontmatter LIKE ? ESCAPE '\\' "
        f"AND json_valid(frontmatter){holding}", [path, path, _named(key), *maybe]).fetchall()


def key_items(store: Store, key: str, column_empty: bool) -> list[tuple[int, object, str]]:
    """(note id, value, JSON type) of the live notes' front-matter keys equal to `key`
    in any case (json_each: the dear read)."""
    only = f"AND n.{key} IS NULL " if column_empty else ""
    return store.execute(
        "SELECT n.id, j.value, j.type FROM notes n, json_each(n.frontmatter) j "
        f"WHERE n.deleted = 0 {only}AND n.frontmatter "
        "LIKE ? ESCAPE '\\' AND json_valid(n.frontmatter) AND lower(j.key) = ?",
        [_named(key), key]).fetchall()

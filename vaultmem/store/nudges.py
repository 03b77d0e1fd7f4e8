"""The nudge tables: `nudge_state` (each item's arming), `surfacings` (every nudge sent)
and `feedback` (the answers). nudge.py in the domain decides; this keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def states(store: Store) -> list[tuple[str, int, str | None]]:
    """(item id, armed, muted until) of every item with a state."""
    return store.execute("SELECT item_id, armed, muted_until FROM nudge_state").fetchall()


def save_states(store: Store, rows: list[tuple[str, int, float, str]]) -> None:
    """(item id, armed, value, updated at) of each item, in the caller's transaction."""
    store.executemany(
        "INSERT INTO nudge_state (item_id, armed, value, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(item_id) DO UPDATE SET armed = excluded.armed, value = excluded.value, "
        "updated_at = excluded.updated_at", rows)


def mute(store: Store, item_id: str, until: str, stamp: str) -> None:
    """A snooze re-arms: once it ends, a still-pressing item may speak again."""
    store.execute(
        "INSERT INTO nudge_state (item_id, armed, muted_until, updated_at) "
        "VALUES (?, 1, ?, ?) ON CONFLICT(item_id) DO UPDATE SET armed = 1, "
        "muted_until = excluded.muted_until, updated_at = excluded.updated_at",
        [item_id, until, stamp])


def surfaced(store: Store, item_id: str, stamp: str, value: float, message: str) -> int:
    """Record a nudge sent; its surfacing id."""
    return store.insert("surfacings", {"item_id": item_id, "ts": stamp, "value": value,
                                       "message": message})


def surfacings_between(store: Store, since: str, until: str) -> list[tuple[str, str]]:
    """(item id, time) of the nudges sent in [since, until]."""
    return store.execute("SELECT item_id, ts FROM surfacings WHERE ts >= ? AND ts <= ?",
                         [since, until]).fetchall()


def answers_between(store: Store, since: str, until: str
                    ) -> list[tuple[str, str, str, int]]:
    """(item id, time, kind, surfacing id) of the answers (accept, dismiss, snooze) in
    [since, until]."""
    return store.execute(
        "SELECT item_id, ts, kind, surfacing_id FROM feedback WHERE ts >= ? AND ts <= ? "
        "ORDER BY ts, id",
        [since, until]).fetchall()


def last_surfacings(store: Store, until: str) -> list[tuple[str, str, str | None, str | None]]:
    """(item id, time, message, last answer's kind) of each item's last nudge by `until`."""
    return store.execute(
        "SELECT s.item_id, s.ts, s.message, (SELECT f.kind FROM feedback f WHERE "
        "f.surfacing_id = s.id ORDER BY f.id DESC LIMIT 1) FROM surfacings s WHERE s.id IN "
        "(SELECT max(id) FROM surfacings WHERE ts <= ? GROUP BY item_id)", [until]).fetchall()


def count_between(store: Store, start: str, end: str) -> int:
    """How many nudges were sent in [start, end)."""
    return store.execute("SELECT count(*) FROM surfacings WHERE ts >= ? AND ts < ?",
                         [start, end]).fetchone()[0]


def last_surfacing_id(store: Store, item_id: str) -> int | None:
    row = store.execute("SELECT id FROM surfacings WHERE item_id = ? ORDER BY id DESC LIMIT 1",
                        [item_id]).fetchone()
    return row[0] if row else None


def answer(store: Store, surfacing_id: int, item_id: str, stamp: str, kind: str,
           until: str | None) -> None:
    store.insert("feedback", {"surfacing_id": surfacing_id, "item_id": item_id, "ts": stamp,
                              "kind": kind, "until": until})

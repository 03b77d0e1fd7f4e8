"""The store: SQLite, and every statement vaultmem runs against it.

    connection.py   opening (WAL, migrations), transactions, the writer lock, and the
                    reads and writes of notes, chunks, links, runs and meta
    migrations.py   every table's shape, as numbered, append-only migrations
    matrix.py       the query matrix and its copy beside the database
    fts.py          FTS5 (BM25) over chunk text, titles, aliases and headings
    entries.py      the ledger's entries, their links and views
    candidates.py   commitments found in passing, until accepted or rejected
    filters.py      the notes a query's structural filters let through
    notes.py        reads of notes, links, tags, aliases and moves the domain names
    items.py        the prospective items (plans, ideas, decisions, questions, insights)
    appended.py     the lines vaultmem appended, watched until the user's own
    nudges.py       nudge states, surfacings and feedback
    salience.py     the nightly salience scores
    vectors.py      reads of the vectors table
    runs.py         the index run's state flags, one typed object
    salvage.py      a damaged store's history, carried into a new one (index --rebuild)

The domain calls named functions and `Store`'s methods; none of it writes SQL
(tests/test_boundaries.py lists the modules whose statements have not moved yet).
"""

from .connection import Store, explain, writer_lock, writer_running

__all__ = ["Store", "explain", "writer_lock", "writer_running"]

"""The workspace database's schema: the forward migrations and how they are applied.

``meta.schema_version`` is the version the file was last migrated to; :data:`MIGRATIONS` lists
the SQL that takes version n - 1 to n, applied in order when a newer app opens an older
workspace (in one transaction, :func:`migrate`). A workspace written by a newer app than this
one is refused with a clear message rather than misread. Append a migration, never edit one.

Tables: ``datasets`` (a loaded table: name, content hash, column mapping, Parquet file),
``scenarios`` (dataset + settings: mapping, N, lambda, mode, constraints, alpha, delta, audit,
calibration, seed), ``rounds`` (a planned queue: the selection and queue rank of every row, in
a Parquet file, the settings it was planned with, who created it), ``events`` (exports and
other actions on a round: who, what, when), ``label_imports`` and ``labels`` (labels that came
back, accumulating over imports: for one row the latest import wins), ``annotations`` (every
annotator's label behind them, schema 2; their ``seconds``, schema 3), ``results`` (estimates and certificates as JSON),
``live_settings`` (schema 4: each dataset's current N, lambda, mode and constraints, saved as
they change; from schema 4 on ``datasets.content_hash`` is the content id of
:mod:`core.data.content`, before it was the hash of the CSV text).
"""

from __future__ import annotations

import os
import sqlite3

from core.errors import DataError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

#: SQL taking the schema from version i to i + 1 (index 0: empty -> 1).
MIGRATIONS: list[str] = [
    """
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE datasets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        roles_json TEXT NOT NULL,
        n_rows INTEGER NOT NULL,
        n_columns INTEGER NOT NULL,
        file TEXT NOT NULL,
        source TEXT NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (content_hash, roles_json)
    );
    CREATE TABLE scenarios (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id),
        settings_json TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id),
        scenario_id INTEGER REFERENCES scenarios(id),
        kind TEXT NOT NULL,
        settings_json TEXT NOT NULL,
        plan_file TEXT NOT NULL,
        n_to_label INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        created TEXT NOT NULL
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        action TEXT NOT NULL,
        detail_json TEXT NOT NULL,
        who TEXT NOT NULL,
        created TEXT NOT NULL
    );
    CREATE TABLE label_imports (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        source TEXT NOT NULL,
        file_name TEXT,
        n_labels INTEGER NOT NULL,
        notices_json TEXT NOT NULL,
        who TEXT NOT NULL,
        created TEXT NOT NULL
    );
    CREATE TABLE labels (
        import_id INTEGER NOT NULL REFERENCES label_imports(id),
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        row INTEGER NOT NULL,
        label_json TEXT NOT NULL,
        PRIMARY KEY (import_id, row)
    );
    CREATE INDEX labels_round ON labels (round_id, row);
    CREATE TABLE results (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        kind TEXT NOT NULL,
        result_json TEXT NOT NULL,
        created TEXT NOT NULL
    );
    """,
    # 2: every annotator's label is kept (the labels table holds the resolved label per row)
    """
    CREATE TABLE annotations (
        import_id INTEGER NOT NULL REFERENCES label_imports(id),
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        row INTEGER NOT NULL,
        annotator TEXT NOT NULL,
        label_json TEXT NOT NULL
    );
    CREATE INDEX annotations_round ON annotations (round_id, row);
    """,
    # 3: the seconds each annotator's label took (Label Studio's lead_time, a CSV time column)
    """
    ALTER TABLE annotations ADD COLUMN seconds REAL
    """,
    # 4: the live settings of each dataset as mapped (N, lambda, mode, constraints), saved as
    # they change and restored when the dataset becomes active (core.scenario.data_key)
    """
    CREATE TABLE live_settings (
        data_key TEXT PRIMARY KEY,
        settings_json TEXT NOT NULL,
        updated TEXT NOT NULL
    )
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(con: sqlite3.Connection, *, where: str | os.PathLike) -> None:
    """Bring the database of ``con`` to :data:`SCHEMA_VERSION`, inside the caller's
    transaction.

    Raises
    ------
    DataError
        The database was written by a newer app (its schema version is above this one's);
        ``where`` (the workspace folder) is named.
    """
    has_meta = con.execute("SELECT name FROM sqlite_master WHERE type='table' AND "
                           "name='meta'").fetchone()
    version = 0
    if has_meta:
        row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise DataError(f"the workspace {where} was written by a newer HMCEval Studio "
                        f"(schema {version}; this version reads up to {SCHEMA_VERSION}); "
                        "upgrade the app or choose another workspace folder")
    for v in range(version, SCHEMA_VERSION):
        for stmt in MIGRATIONS[v].split(";"):
            if stmt.strip():
                con.execute(stmt)
        con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES "
                    "('schema_version', ?)", (str(v + 1),))

"""The workspace: datasets, scenarios, label rounds, labels and results that survive restarts.

**Storage.** One folder (default ``~/.hmceval/workspace``; the environment variable
``HMCEVAL_WORKSPACE`` or the CLI's ``--workspace`` override it) holding ``workspace.sqlite``
(SQLite through the standard library) and ``tables/`` (Parquet files). Why SQLite and not
DuckDB: it ships with Python (no new dependency, no native build), it is transactional with
write-ahead logging (readers never block the one writer; a second writer waits up to 30 s
instead of failing), and everything the workspace stores is small and row-shaped except whole
tables, which go to Parquet files named by their content hash. A Parquet file is written
*before* the transaction that refers to it commits; if anything fails in between the file is
merely unreferenced, so a crash in the middle of an import leaves the previous state.

**Parts.** :mod:`core.workspace.schema`: the schema (``MIGRATIONS``, applied forward when a
newer app opens an older workspace); :mod:`core.workspace.tables`: the Parquet files and
:func:`table_hash`; :mod:`core.workspace.round_settings`: a round's settings; here: :class:`Workspace`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import getpass
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

from core.errors import DataError, plain_value
from core.userfile import expand_user
from core.workspace.round_settings import RoundSettings, settings_json as _settings_json
from core.workspace.schema import SCHEMA_VERSION, migrate
from core.workspace.tables import (check_database_file, legacy_table_hash, plan_frame,
                                   plan_inclusion, plan_rows, read_table, table_hash, write_table)

__all__ = ["ENV_VAR", "default_root", "Workspace", "SCENARIO_FORMAT"]

ENV_VAR = "HMCEVAL_WORKSPACE"
SCENARIO_FORMAT = "hmceval-scenario"


def default_root() -> Path:
    """``$HMCEVAL_WORKSPACE`` when set, else ``~/.hmceval/workspace``."""
    env = os.environ.get(ENV_VAR)
    try:
        return expand_user(env, what="workspace") if env else Path.home() / ".hmceval" / "workspace"
    except RuntimeError:  # no home directory (HOME unset, no passwd entry): say what to set
        raise DataError(f"no home directory to hold the workspace: set {ENV_VAR} to a folder (or pass --workspace DIR)") from None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _who() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def _seconds(v: Any) -> float | None:
    """A label's time for SQLite: None when unknown."""
    if v is None:
        return None
    v = float(v)
    return None if v != v else v


def _record(con: sqlite3.Connection, table: str, record_id: int, noun: str) -> sqlite3.Row:
    """Row ``record_id`` of ``table`` (datasets, rounds); else a DataError naming ``noun``, id."""
    rid = int(record_id)  # beyond SQLite's 64-bit integers no record has the id (no OverflowError)
    row = con.execute(f"SELECT * FROM {table} WHERE id=?", (rid,)).fetchone() if abs(rid) < 2**63 else None
    if row is None:
        raise DataError(f"no {noun} with id {record_id} in the workspace")
    return row


def _add_event(con: sqlite3.Connection, round_id: int, action: str,
               detail: dict[str, Any] | None, who: str | None) -> None:
    """Record an action on a round inside the caller's transaction."""
    con.execute("INSERT INTO events (round_id, action, detail_json, who, created) VALUES "
                "(?, ?, ?, ?, ?)",
                (int(round_id), action, json.dumps(detail or {}, default=plain_value),
                 who or _who(), _now()))


class Workspace:
    """A workspace folder. Every method opens its own connection, so one object can serve
    several Streamlit sessions and threads; writes are single transactions.

    Parameters
    ----------
    root : path, optional
        The folder (created when missing); default :func:`default_root`.
    """

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = expand_user(root, what="workspace") if root is not None else default_root()
        self.db_path = self.root / "workspace.sqlite"
        self.read_only = False  # a read-only folder or file: opened to read, writes refused
        check_database_file(self.db_path)  # an empty or foreign file is reported, never replaced
        try:
            (self.root / "tables").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if not self.db_path.is_file():
                raise DataError(f"cannot create the workspace folder {self.root}: {exc}") from None
            self.read_only = True
        self.read_only = self.read_only or self.db_path.is_file() and not (
            os.access(self.db_path, os.W_OK) and os.access(self.root, os.W_OK))
        self._check_read_only_schema() if self.read_only else self._migrate()

    # ----------------------------------------------------------------------------- plumbing
    @contextlib.contextmanager
    def _connect(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        if write:
            self._check_writable()
        try:
            if self.read_only:  # immutable: no -wal/-shm file is created or needed
                con = sqlite3.connect(f"{self.db_path.resolve().as_uri()}?immutable=1",
                                      uri=True, timeout=30, isolation_level=None)
            else:
                con = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise DataError(f"cannot open the workspace database {self.db_path}: {exc}") from None
        try:
            con.row_factory = sqlite3.Row
            con.execute("PRAGMA foreign_keys = ON")
            if write:
                con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                if write:
                    con.execute("ROLLBACK")
                raise
            else:
                if write:
                    con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise DataError(f"the workspace database {self.db_path} failed: {exc}") from None
        finally:
            con.close()

    def _migrate(self) -> None:
        try:
            with self._connect() as con:
                con.execute("PRAGMA journal_mode = WAL")
            with self._connect(write=True) as con:
                migrate(con, where=self.root)
        except DataError as exc:
            if "readonly" not in str(exc) and "read-only" not in str(exc):
                raise
            self.read_only = True  # the file system refused the write: open for reading
            self._check_read_only_schema()

    def _check_writable(self) -> None:
        if self.read_only:
            raise DataError(f"the workspace {self.root} is read-only: it can be looked at, "
                            f"nothing can be saved (use a folder you can write: ${ENV_VAR})")

    def _check_read_only_schema(self) -> None:
        if self.schema_version != SCHEMA_VERSION:
            raise DataError(f"the workspace {self.root} is read-only and was written by another "
                            f"version of the app (schema {self.schema_version}, this one uses "
                            f"{SCHEMA_VERSION}): open it once where it can be written")

    @property
    def schema_version(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])

    def remember_active(self, dataset_id: int | None) -> None:
        """Record the dataset last made active (a new session reopens it); None records the
        built-in demo, which is not stored."""
        with self._connect(write=True) as con:
            if dataset_id is not None:
                _record(con, "datasets", dataset_id, "dataset")
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('active_dataset', ?)",
                        ("demo" if dataset_id is None else str(int(dataset_id)),))

    def last_active(self) -> int | str | None:
        """The dataset last made active (:meth:`remember_active`): its id, ``"demo"`` for the
        built-in demo, None when nothing was recorded or the dataset is no longer stored."""
        with self._connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key='active_dataset'").fetchone()
            if row is None:
                return None
            if row[0] == "demo":
                return "demo"
            found = con.execute("SELECT id FROM datasets WHERE id=?", (int(row[0]),)).fetchone()
        return None if found is None else int(found[0])

    def _write_table(self, df: pd.DataFrame) -> str:
        self._check_writable()  # before the file: a read-only workspace gets nothing
        return write_table(self.root / "tables", df)

    def _write_plan(self, selection: np.ndarray, queue_rank: np.ndarray,
                    inclusion: np.ndarray | None = None) -> tuple[str, int, int]:
        """Store a round's plan (with the inclusion probabilities of an active or random
        design); (file name, rows, rows to label)."""
        plan = plan_frame(selection, queue_rank, inclusion)
        return (self._write_table(plan), len(plan),
                int(np.isfinite(plan["queue_rank"]).sum()))

    def _read_table(self, name: str) -> pd.DataFrame:
        return read_table(self.root / "tables", name)

    # ----------------------------------------------------------------------------- datasets
    def find_dataset(self, raw: pd.DataFrame, roles: dict[str, Any] | None = None, *,
                     content_id: str | None = None) -> int | None:
        """The id of the stored dataset with this content and column mapping, or None (nothing
        is stored). ``content_id``: the table's, when known (``EvalData.content_id``)."""
        roles_json = json.dumps(roles or {}, sort_keys=True, default=str)
        digest = content_id or table_hash(raw)
        with self._connect() as con:
            row = con.execute("SELECT id FROM datasets WHERE content_hash=? AND roles_json=?",
                              (digest, roles_json)).fetchone()
        return int(row["id"]) if row else self._rekey_legacy(digest, roles_json, raw.shape)

    def _rekey_legacy(self, digest: str, roles_json: str, shape: tuple) -> int | None:
        """A dataset keyed by its CSV text's hash (schema < 4) whose table has ``digest``."""
        with self._connect() as con:
            rows = con.execute("SELECT id, file FROM datasets WHERE roles_json=? AND n_rows=? AND "
                               "n_columns=? AND content_hash<>?", (roles_json, *shape, digest)).fetchall()
        for r in rows:  # re-keyed once, so the next lookup finds it directly
            if table_hash(self._read_table(r["file"])) == digest:
                if not self.read_only:
                    with self._connect(write=True) as con:
                        con.execute("UPDATE datasets SET content_hash=? WHERE id=?", (digest, r["id"]))
                return int(r["id"])
        return None

    def add_dataset(self, raw: pd.DataFrame, *, name: str, roles: dict[str, Any] | None = None,
                    source: str = "upload", content_id: str | None = None) -> int:
        """Store a table (as loaded) with its column mapping; the same content and mapping
        stored twice is one dataset. Returns its id. ``content_id``: the table's, when known
        (``EvalData.content_id``), so it is not hashed again."""
        roles_json = json.dumps(roles or {}, sort_keys=True, default=str)
        digest = content_id or table_hash(raw)
        with self._connect() as con:
            row = con.execute("SELECT id FROM datasets WHERE content_hash=? AND roles_json=?",
                              (digest, roles_json)).fetchone()
        found = int(row["id"]) if row else self._rekey_legacy(digest, roles_json, raw.shape)
        if found is not None:
            return found
        file = self._write_table(raw)
        with self._connect(write=True) as con:
            row = con.execute("SELECT id FROM datasets WHERE content_hash=? AND roles_json=?",
                              (digest, roles_json)).fetchone()
            if row:
                return int(row["id"])
            cur = con.execute(
                "INSERT INTO datasets (name, content_hash, roles_json, n_rows, n_columns, file, "
                "source, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (str(name), digest, roles_json, len(raw), raw.shape[1], file, source, _now()))
            return int(cur.lastrowid)

    def list_datasets(self) -> pd.DataFrame:
        """Every stored dataset: ``id``, ``name``, ``n_rows``, ``n_columns``, ``source``,
        ``created``, ``content_hash``."""
        with self._connect() as con:
            rows = con.execute("SELECT id, name, n_rows, n_columns, source, created, content_hash "
                               "FROM datasets ORDER BY id").fetchall()
        return pd.DataFrame([dict(r) for r in rows],
                            columns=["id", "name", "n_rows", "n_columns", "source", "created",
                                     "content_hash"])

    def dataset(self, dataset_id: int) -> dict[str, Any]:
        """A stored dataset: ``id``, ``name``, ``roles``, ``raw`` (the table), ... ."""
        with self._connect() as con:
            out = dict(_record(con, "datasets", dataset_id, "dataset"))
        out["roles"] = json.loads(out.pop("roles_json"))
        out["raw"] = self._read_table(out["file"])
        return out

    # ----------------------------------------------------------------------------- live settings
    def save_live_settings(self, data_key: str, settings: dict[str, Any]) -> None:
        """Record the current settings (N, lambda, mode, constraints) of the dataset
        ``data_key`` (:func:`core.scenario.data_key`), replacing the previous ones."""
        text = json.dumps(settings, sort_keys=True, default=plain_value)
        with self._connect(write=True) as con:
            con.execute("INSERT OR REPLACE INTO live_settings (data_key, settings_json, updated) "
                        "VALUES (?, ?, ?)", (str(data_key), text, _now()))

    def live_settings(self, data_key: str) -> dict[str, Any] | None:
        """The settings last recorded for ``data_key`` (:meth:`save_live_settings`), or None."""
        with self._connect() as con:
            row = con.execute("SELECT settings_json FROM live_settings WHERE data_key=?",
                              (str(data_key),)).fetchone()
        return None if row is None else json.loads(row[0])

    # ----------------------------------------------------------------------------- scenarios
    def save_scenario(self, name: str, dataset_id: int, settings: dict[str, Any]) -> int:
        """Create or replace the scenario called ``name``. Returns its id."""
        name = str(name).strip()
        if not name:
            raise DataError("a scenario needs a name")
        text = json.dumps(settings, sort_keys=True, default=plain_value)
        now = _now()
        with self._connect(write=True) as con:
            _record(con, "datasets", dataset_id, "dataset")
            row = con.execute("SELECT id FROM scenarios WHERE name=?", (name,)).fetchone()
            if row:
                con.execute("UPDATE scenarios SET dataset_id=?, settings_json=?, updated=? "
                            "WHERE id=?", (int(dataset_id), text, now, row["id"]))
                return int(row["id"])
            cur = con.execute("INSERT INTO scenarios (name, dataset_id, settings_json, created, "
                              "updated) VALUES (?, ?, ?, ?, ?)",
                              (name, int(dataset_id), text, now, now))
            return int(cur.lastrowid)

    def list_scenarios(self) -> pd.DataFrame:
        """``id``, ``name``, ``dataset_id``, ``dataset``, ``updated``."""
        with self._connect() as con:
            rows = con.execute("SELECT s.id, s.name, s.dataset_id, d.name AS dataset, s.updated "
                               "FROM scenarios s JOIN datasets d ON d.id = s.dataset_id "
                               "ORDER BY s.updated DESC, s.id DESC").fetchall()
        return pd.DataFrame([dict(r) for r in rows],
                            columns=["id", "name", "dataset_id", "dataset", "updated"])

    def scenario(self, key: int | str) -> dict[str, Any]:
        """A scenario by id or name: ``id``, ``name``, ``dataset_id``, ``settings``, ... ."""
        with self._connect() as con:
            row = None
            if isinstance(key, str):
                row = con.execute("SELECT * FROM scenarios WHERE name=?", (key,)).fetchone()
            if row is None and (isinstance(key, (int, np.integer))
                                or (isinstance(key, str) and key.isdigit())):
                row = con.execute("SELECT * FROM scenarios WHERE id=?", (int(key),)).fetchone()
        if row is None:
            raise DataError(f"no scenario {key!r} in the workspace")
        out = dict(row)
        out["settings"] = json.loads(out.pop("settings_json"))
        return out

    def export_scenario(self, key: int | str) -> dict[str, Any]:
        """A scenario as a JSON-able object others can import (the dataset by content hash)."""
        sc = self.scenario(key)
        with self._connect() as con:
            d = dict(con.execute("SELECT name, content_hash, roles_json, n_rows FROM datasets "
                                 "WHERE id=?", (sc["dataset_id"],)).fetchone())
        return {"format": SCENARIO_FORMAT, "version": 1, "name": sc["name"],
                "dataset": {"name": d["name"], "content_hash": d["content_hash"],
                            "n_rows": d["n_rows"], "roles": json.loads(d["roles_json"])},
                "settings": sc["settings"]}

    def import_scenario(self, obj: Any, *, raw: pd.DataFrame | None = None,
                        name: str | None = None) -> int:
        """Load a scenario exported by :meth:`export_scenario`.

        Parameters
        ----------
        obj : dict
            The scenario object.
        raw : DataFrame, optional
            The scenario's table, when this workspace does not have it yet; its content hash
            must match the scenario's.
        name : str, optional
            Store under another name.
        """
        if not isinstance(obj, dict) or obj.get("format") != SCENARIO_FORMAT:
            raise DataError("not an HMCEval scenario file (expected a JSON object with "
                            f"\"format\": \"{SCENARIO_FORMAT}\")")
        if int(obj.get("version", 0)) > 1:
            raise DataError(f"scenario format version {obj.get('version')} is newer than this "
                            "app reads (1)")
        for key in ("name", "dataset", "settings"):
            if key not in obj:
                raise DataError(f"scenario file: field '{key}' is missing")
        ds = obj["dataset"]
        if not isinstance(ds, dict) or "content_hash" not in ds:
            raise DataError("scenario file: field 'dataset.content_hash' is missing")
        if not isinstance(obj["settings"], dict):
            raise DataError("scenario file: field 'settings' must be an object")
        roles = ds.get("roles") or {}
        roles_json = json.dumps(roles, sort_keys=True, default=str)
        with self._connect() as con:
            row = con.execute("SELECT id FROM datasets WHERE content_hash=? AND roles_json=?",
                              (ds["content_hash"], roles_json)).fetchone()
            if row is None:
                row = con.execute("SELECT id FROM datasets WHERE content_hash=?",
                                  (ds["content_hash"],)).fetchone()
        if row is not None and raw is None:
            dataset_id = int(row["id"])
            if json.loads(self._dataset_roles(dataset_id)) != roles:
                dataset_id = self.add_dataset(self.dataset(dataset_id)["raw"],
                                              name=ds.get("name", "dataset"), roles=roles,
                                              source="scenario")
        else:
            if raw is None:
                raise DataError(f"the scenario's dataset '{ds.get('name')}' is not in this "
                                "workspace; give its table too (hmceval workspace import "
                                "SCENARIO.json --data TABLE)")
            if ds["content_hash"] not in (table_hash(raw), legacy_table_hash(raw)):
                raise DataError(f"the table given is not the scenario's dataset "
                                f"'{ds.get('name')}' (content differs)")
            dataset_id = self.add_dataset(raw, name=ds.get("name", "dataset"), roles=roles,
                                          source="scenario")
        settings = json.loads(json.dumps(obj["settings"]))
        if isinstance(settings.get("evaluate"), dict):
            settings["evaluate"]["round_id"] = None  # rounds belong to the workspace they ran in
        return self.save_scenario(name or obj["name"], dataset_id, settings)

    def _dataset_roles(self, dataset_id: int) -> str:
        with self._connect() as con:
            return con.execute("SELECT roles_json FROM datasets WHERE id=?",
                               (dataset_id,)).fetchone()[0]

    # ----------------------------------------------------------------------------- rounds
    def create_round(self, dataset_id: int, *, kind: str, settings: RoundSettings | dict,
                     selection: np.ndarray, queue_rank: np.ndarray,
                     scenario_id: int | None = None, who: str | None = None,
                     inclusion: np.ndarray | None = None) -> int:
        """Record a planned round (the selection and queue rank of every row, and the inclusion
        probability of every row when the design has them: kept in the plan's Parquet file,
        so the database schema does not change)."""
        file, n_rows, n_to_label = self._write_plan(selection, queue_rank, inclusion)
        with self._connect(write=True) as con:
            n = _record(con, "datasets", dataset_id, "dataset")["n_rows"]
            if int(n) != n_rows:
                raise DataError(f"the plan has {n_rows} rows, the dataset {n}")
            cur = con.execute(
                "INSERT INTO rounds (dataset_id, scenario_id, kind, settings_json, plan_file, "
                "n_to_label, created_by, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (int(dataset_id), scenario_id, kind, _settings_json(settings),
                 file, n_to_label, who or _who(), _now()))
            rid = int(cur.lastrowid)
            _add_event(con, rid, "planned", {"kind": kind, "n_to_label": n_to_label}, who)
            return rid

    def update_plan(self, round_id: int, selection: np.ndarray, queue_rank: np.ndarray, *,
                    action: str, detail: dict[str, Any] | None = None,
                    who: str | None = None, settings: RoundSettings | dict | None = None,
                    inclusion: np.ndarray | None = None) -> None:
        """Replace a round's selection (after certification or an added audit), recorded;
        ``settings``, when given, replace the round's settings (e.g. the audit chosen when
        certifying); ``inclusion``: the new plan's inclusion probabilities (None: none)."""
        file, _, n_to_label = self._write_plan(selection, queue_rank, inclusion)
        with self._connect(write=True) as con:
            con.execute("UPDATE rounds SET plan_file=?, n_to_label=? WHERE id=?",
                        (file, n_to_label, int(round_id)))
            if settings is not None:
                con.execute("UPDATE rounds SET settings_json=? WHERE id=?",
                            (_settings_json(settings), int(round_id)))
            _add_event(con, round_id, action, detail, who)

    def list_rounds(self, dataset_id: int | None = None) -> pd.DataFrame:
        """``id``, ``dataset_id``, ``scenario_id``, ``kind``, ``n_to_label``, ``n_labelled``,
        ``created_by``, ``created``."""
        q = ("SELECT r.id, r.dataset_id, r.scenario_id, r.kind, r.n_to_label, r.created_by, "
             "r.created, (SELECT COUNT(DISTINCT row) FROM labels l WHERE l.round_id = r.id) "
             "AS n_labelled FROM rounds r")
        args: tuple = ()
        if dataset_id is not None:
            q += " WHERE r.dataset_id=?"
            args = (int(dataset_id),)
        with self._connect() as con:
            rows = con.execute(q + " ORDER BY r.id DESC", args).fetchall()
        return pd.DataFrame([dict(r) for r in rows],
                            columns=["id", "dataset_id", "scenario_id", "kind", "n_to_label",
                                     "created_by", "created", "n_labelled"])

    def round(self, round_id: int) -> dict[str, Any]:
        """A round: ``id``, ``dataset_id``, ``kind``, ``settings`` (a RoundSettings),
        ``selection``, ``queue_rank``, ``inclusion`` (arrays of shape (M,); None without
        inclusion probabilities), ``created_by``, ``created``."""
        with self._connect() as con:
            out = dict(_record(con, "rounds", round_id, "round"))
        out["settings"] = RoundSettings.from_dict(json.loads(out.pop("settings_json")))
        plan = self._read_table(out["plan_file"])
        out["selection"], out["queue_rank"] = plan_rows(plan)
        out["inclusion"] = plan_inclusion(plan)
        return out

    def record_event(self, round_id: int, action: str, detail: dict[str, Any] | None = None,
                     who: str | None = None) -> None:
        """Record an action on a round (an export, a push to Label Studio...)."""
        with self._connect(write=True) as con:
            _add_event(con, round_id, action, detail, who)

    def events(self, round_id: int) -> pd.DataFrame:
        with self._connect() as con:
            rows = con.execute("SELECT action, detail_json AS detail, who, created FROM events "
                               "WHERE round_id=? ORDER BY id", (int(round_id),)).fetchall()
        return pd.DataFrame([dict(r) for r in rows], columns=["action", "detail", "who", "created"])

    # ----------------------------------------------------------------------------- labels
    def add_labels(self, round_id: int, rows: np.ndarray, labels: list, *, source: str,
                   file_name: str | None = None, notices: list[str] | None = None,
                   who: str | None = None,
                   annotations: list[tuple[int, str, Any]] | None = None) -> int:
        """Store labels that came back for a round, in one transaction. Returns the import id.

        Parameters
        ----------
        rows : int array
            0-based row positions in the dataset.
        labels : list
            The label of each row (a class value of the dataset).
        annotations : list of (row, annotator, label[, seconds]), optional
            Every annotator's label behind the resolved ones (kept for agreement and for later
            imports to aggregate with); ``seconds`` None or NaN when unknown.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) != len(labels):
            raise DataError(f"{len(rows)} rows but {len(labels)} labels")
        if len(np.unique(rows)) != len(rows):
            raise DataError("one import holds two labels for the same row")
        payload = [(int(r), json.dumps(plain_value(v))) for r, v in zip(rows, labels)]
        with self._connect(write=True) as con:
            info = con.execute("SELECT d.n_rows FROM rounds r JOIN datasets d ON d.id = "
                               "r.dataset_id WHERE r.id=?", (int(round_id),)).fetchone()
            if info is None:
                raise DataError(f"no round with id {round_id} in the workspace")
            bad = rows[(rows < 0) | (rows >= int(info[0]))]
            if len(bad):
                raise DataError(f"row {int(bad[0])} is outside the dataset's {info[0]} rows")
            cur = con.execute("INSERT INTO label_imports (round_id, source, file_name, n_labels, "
                              "notices_json, who, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (int(round_id), source, file_name, len(rows),
                               json.dumps(notices or []), who or _who(), _now()))
            iid = int(cur.lastrowid)
            con.executemany("INSERT INTO labels (import_id, round_id, row, label_json) VALUES "
                            "(?, ?, ?, ?)", [(iid, int(round_id), r, v) for r, v in payload])
            if annotations:
                con.executemany(
                    "INSERT INTO annotations (import_id, round_id, row, annotator, label_json, "
                    "seconds) VALUES (?, ?, ?, ?, ?, ?)",
                    [(iid, int(round_id), int(x[0]), str(x[1]), json.dumps(plain_value(x[2])),
                      _seconds(x[3] if len(x) > 3 else None)) for x in annotations])
            return iid

    def annotations(self, round_id: int) -> pd.DataFrame:
        """Every annotator's label of a round: ``import_id``, ``row``, ``annotator``,
        ``label``, ``seconds`` (NaN when unknown); a later import's label of the same row and
        annotator replaces an earlier one (:meth:`current_annotations`)."""
        with self._connect() as con:
            rows = con.execute("SELECT import_id, row, annotator, label_json, seconds FROM "
                               "annotations WHERE round_id=? ORDER BY import_id, row",
                               (int(round_id),)).fetchall()
        return pd.DataFrame([{"import_id": r["import_id"], "row": r["row"],
                              "annotator": r["annotator"], "label": json.loads(r["label_json"]),
                              "seconds": np.nan if r["seconds"] is None else r["seconds"]}
                             for r in rows],
                            columns=["import_id", "row", "annotator", "label", "seconds"])

    def current_annotations(self, round_id: int) -> pd.DataFrame:
        """Each annotator's latest label of each row (:meth:`annotations`, one per row and
        annotator)."""
        ann = self.annotations(round_id)
        return ann.drop_duplicates(["row", "annotator"], keep="last").reset_index(drop=True)

    def round_version(self, round_id: int) -> tuple[str, int, int]:
        """What a round's state depends on, cheaply: its plan file, its number of label rows
        and its latest import id. Any plan change (certification, an audit) or label import
        changes it: a cache key for the round's Design."""
        with self._connect() as con:
            plan = _record(con, "rounds", round_id, "round")["plan_file"]
            n, last = con.execute("SELECT COUNT(*), COALESCE(MAX(import_id), 0) FROM labels "
                                  "WHERE round_id=?", (int(round_id),)).fetchone()
        return str(plan), int(n), int(last)

    def round_labels(self, round_id: int, upto: int | None = None) -> dict[int, Any]:
        """row -> label of labelled rows (the latest import up to ``upto`` wins; ties left out)."""
        with self._connect() as con:
            rows = con.execute("SELECT row, label_json FROM labels WHERE round_id=? AND "
                               "import_id<=? ORDER BY import_id",
                               (int(round_id), 2**62 if upto is None else int(upto))).fetchall()
        latest = {int(r["row"]): json.loads(r["label_json"]) for r in rows}
        return {r: v for r, v in latest.items() if v is not None}

    def imports(self, round_id: int) -> pd.DataFrame:
        with self._connect() as con:
            rows = con.execute("SELECT id, source, file_name, n_labels, notices_json AS notices, "
                               "who, created FROM label_imports WHERE round_id=? ORDER BY id",
                               (int(round_id),)).fetchall()
        return pd.DataFrame([dict(r) for r in rows],
                            columns=["id", "source", "file_name", "n_labels", "notices", "who",
                                     "created"])

    # ----------------------------------------------------------------------------- results
    def save_result(self, round_id: int, kind: str, result: dict[str, Any]) -> int:
        from core.serialize import dumps

        with self._connect(write=True) as con:
            cur = con.execute("INSERT INTO results (round_id, kind, result_json, created) VALUES "
                              "(?, ?, ?, ?)", (int(round_id), kind, dumps(result, indent=None),
                                               _now()))
            return int(cur.lastrowid)

    def latest_result(self, round_id: int, kind: str) -> dict[str, Any] | None:
        with self._connect() as con:
            row = con.execute("SELECT result_json FROM results WHERE round_id=? AND kind=? "
                              "ORDER BY id DESC LIMIT 1", (int(round_id), kind)).fetchone()
        return None if row is None else json.loads(row[0])

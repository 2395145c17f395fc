"""The workspace: an embedded, transactional store of datasets, scenarios, rounds and results.

Parts:

* :mod:`core.workspace.store`: :class:`Workspace` (SQLite + Parquet; the storage choice).
* :mod:`core.workspace.schema`: the schema and its forward ``MIGRATIONS``.
* :mod:`core.workspace.tables`: the Parquet files (tables and round plans), ``table_hash``.
* :mod:`core.workspace.rounds`: one function per step of a round (page and CLI).
* :mod:`core.workspace.report`: the self-contained HTML report of a round.
"""

from core.workspace.store import ENV_VAR, Workspace, default_root
from core.workspace.schema import SCHEMA_VERSION
from core.workspace.tables import table_hash

__all__ = ["ENV_VAR", "SCHEMA_VERSION", "Workspace", "default_root", "table_hash"]

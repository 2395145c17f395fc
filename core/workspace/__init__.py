"""The workspace: an embedded, transactional store of datasets, scenarios, rounds and results.

See :mod:`core.workspace.store` for the storage choice (SQLite + Parquet) and the schema.
"""

from core.workspace.store import (ENV_VAR, SCHEMA_VERSION, Workspace, default_root,  # noqa: F401
                                  table_hash)

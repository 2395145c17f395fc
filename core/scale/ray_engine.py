"""The per-row passes on Ray Data (``--engine ray``): the same kernels, the same chunks.

The compact columns are cut into the local engine's chunks (:data:`core.scale.engine.CHUNK`
rows), each one block of a Ray dataset (``ray.data.from_arrow``); every pass is a
``map_batches`` over the blocks that runs the kernel on each chunk on the workers and returns
its partial sums (or its per-row output), which the driver adds in chunk order, exactly as
:class:`core.scale.engine.LocalEngine` does: the two engines give bitwise the same sums, so
the same design, the same rows drawn and the same estimates. A batch that would hold several
chunks (Ray may join blocks) is cut back into them by each row's chunk start.

Ray is an optional extra (``pip install -e ".[scale]"``), imported only here, when
``--engine ray`` asks for it. Without ``--address`` a local Ray is started (with
``--workers`` CPUs) and shut down at the end; with it the command joins that cluster, whose
nodes need this project installed (the kernels are imported by module name).
"""

from __future__ import annotations

import pickle
from typing import Any, Callable

import numpy as np

from core.errors import DataError
from core.scale.engine import CHUNK

__all__ = ["RayEngine", "RAY_MISSING"]

#: What a missing Ray says (exit 2).
RAY_MISSING = ('--engine ray needs Ray, an optional extra: pip install -e ".[scale]" '
               '(or pip install "ray[data]"); without it, leave out --engine ray (the local '
               'engine gives the same results)')


def _run_chunks(batch: dict, kernel: Callable, params: dict) -> dict:
    """Run ``kernel`` on every chunk of a batch; the outputs pickled, keyed by chunk start."""
    starts = np.asarray(batch["__start"], dtype=np.int64)
    cols = {k: v for k, v in batch.items() if k != "__start"}
    out_starts, blobs = [], []
    for s in np.unique(starts):
        rows = starts == s
        ch = {k: np.asarray(v)[rows] for k, v in cols.items()}
        out_starts.append(int(s))
        blobs.append(pickle.dumps(kernel(ch, int(s), **params)))
    return {"start": np.array(out_starts, dtype=np.int64),
            "blob": np.array(blobs, dtype=object)}


class RayEngine:
    """The engine of :mod:`core.scale.engine` on Ray Data (see the module doc)."""

    name = "ray"

    def __init__(self, columns: dict[str, np.ndarray], *, address: str | None = None,
                 workers: int | None = None, chunk: int = CHUNK) -> None:
        try:
            import ray
            import ray.data  # noqa: F401 - Ray Data is what the passes run on
        except ImportError:
            raise DataError(RAY_MISSING) from None
        if workers is not None and workers < 1:
            raise DataError(f"--workers must be at least 1, got {workers}")
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"address": address} if address else {"num_cpus": workers}
            try:
                ray.init(include_dashboard=False, log_to_driver=False,
                         configure_logging=False, **kwargs)
            except Exception as exc:  # noqa: BLE001 - a cluster that cannot be joined
                raise DataError(f"--engine ray: cannot start or join Ray ({exc})") from None
            self._started = True
        import logging

        for name in ("ray", "ray.data"):  # the command's output is its own, not Ray's log
            logging.getLogger(name).setLevel(logging.ERROR)
        try:
            ctx = ray.data.DataContext.get_current()
            ctx.enable_progress_bars = False
            ctx.print_on_execution_start = False
        except Exception:  # noqa: BLE001 - an older Ray without the switch
            pass
        self.columns = columns
        lengths = {len(v) for v in columns.values()}
        self.m = lengths.pop() if lengths else 0
        self.chunk = int(chunk)
        self.passes = 0
        self._ds = None
        self._key: tuple | None = None

    def _dataset(self):
        """The columns as a Ray dataset of one block per chunk (rebuilt when they change)."""
        import pyarrow as pa

        key = tuple((k, id(v)) for k, v in sorted(self.columns.items()))
        if self._ds is None or key != self._key:
            tables = []
            for s in range(0, self.m, self.chunk):
                part = {k: v[s:s + self.chunk] for k, v in self.columns.items()}
                part["__start"] = np.full(len(next(iter(part.values()))), s, dtype=np.int64)
                tables.append(pa.table(part))
            self._ds = self._ray.data.from_arrow(tables).materialize()
            self._key = key
        return self._ds

    def _pass(self, kernel: Callable, params: dict) -> list[Any]:
        self.passes += 1
        if self.m == 0:
            return []
        ds = self._dataset().map_batches(_run_chunks, batch_size=None, batch_format="numpy",
                                         fn_kwargs={"kernel": kernel, "params": params})
        rows = ds.take_all()
        rows.sort(key=lambda r: int(r["start"]))
        return [pickle.loads(r["blob"]) for r in rows]

    def reduce(self, kernel: Callable[..., np.ndarray], **params: Any) -> np.ndarray:
        """The kernel's partial sums over every chunk, added in chunk order."""
        total = None
        for part in self._pass(kernel, params):
            part = np.asarray(part, dtype=float)
            total = part if total is None else total + part
        return np.zeros(0) if total is None else total

    def map(self, kernel: Callable[..., Any], **params: Any) -> list[Any]:
        """The kernel's output for every chunk, in chunk order."""
        return self._pass(kernel, params)

    def close(self) -> None:
        """Shut down the local Ray this engine started."""
        if self._started:
            self._ray.shutdown()
            self._started = False

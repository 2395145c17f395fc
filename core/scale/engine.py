"""Engines of the per-row passes: fixed chunks of compact columns, summed in chunk order.

Every pass of the large-table path (:mod:`core.scale.design`, :mod:`core.scale.estimate`) is
a *kernel*: a module-level function ``kernel(chunk, start, **params)`` of one chunk of rows
(a dict of column name -> array slice; ``start`` the chunk's first row) that returns either a
small vector of partial sums (:meth:`LocalEngine.reduce`) or per-row values
(:meth:`LocalEngine.map`). The chunks are fixed (:data:`CHUNK` rows) and the partial sums are
added in chunk order, so that every engine that cuts the rows the same way gives bitwise the
same sums: the local engine here, and Ray (:mod:`core.scale.ray_engine`), which runs the same
kernels on its workers through Ray Data's ``map_batches`` and adds their partial sums in the
same order. A pass never holds more than one chunk's temporaries (a few MB), whatever the
number of rows.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["CHUNK", "LocalEngine"]

#: Rows per chunk: small enough that a kernel's temporaries stay a few MB, large enough that
#: numpy's per-call overhead is negligible.
CHUNK = 1 << 17


class LocalEngine:
    """The per-row passes in this process, chunk by chunk.

    Parameters
    ----------
    columns : dict of str -> ndarray of shape (M,)
        The compact columns every kernel reads (codes, confidences, efforts...).
    chunk : int, default=:data:`CHUNK`
    """

    name = "local"

    def __init__(self, columns: dict[str, np.ndarray], *, chunk: int = CHUNK) -> None:
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError("every column of an engine must have the same length")
        self.columns = columns
        self.m = lengths.pop() if lengths else 0
        self.chunk = int(chunk)
        self.passes = 0

    def starts(self) -> range:
        """The first row of every chunk."""
        return range(0, self.m, self.chunk)

    def _slice(self, start: int) -> dict[str, np.ndarray]:
        return {k: v[start:start + self.chunk] for k, v in self.columns.items()}

    def reduce(self, kernel: Callable[..., np.ndarray], **params: Any) -> np.ndarray:
        """The kernel's partial sums over every chunk, added in chunk order."""
        self.passes += 1
        total = None
        for start in self.starts():
            part = np.asarray(kernel(self._slice(start), start, **params), dtype=float)
            total = part if total is None else total + part
        return np.zeros(0) if total is None else total

    def map(self, kernel: Callable[..., Any], **params: Any) -> list[Any]:
        """The kernel's output for every chunk, in chunk order."""
        self.passes += 1
        return [kernel(self._slice(start), start, **params) for start in self.starts()]

    def close(self) -> None:
        """Nothing to release here (Ray's engine shuts its local cluster down)."""

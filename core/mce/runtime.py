"""Runtime helpers of the machine evaluator: processors, torch threads, seeds, quiet loading.

Torch and transformers are imported inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import numpy as np

__all__ = ["free_cores", "quiet_transformers", "resolve_device", "seed_everything", "torch_threads"]


def _cpu_times(cpus: set[int]) -> tuple[float, float] | None:
    """(idle, total) jiffies of ``cpus`` from ``/proc/stat``; None where it is unreadable."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    idle = total = 0.0
    seen = False
    for line in lines:
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:] or -1) not in cpus:
            continue
        v = [float(x) for x in rest.split()[:8]]
        idle += v[3] + v[4]  # idle + iowait
        total += sum(v)
        seen = True
    return (idle, total) if seen else None


def free_cores(interval: float = 0.05) -> int:
    """Processors this process may use that are idle now (at least 1).

    The idle share of the processors in the process's affinity mask over ``interval`` seconds
    (``/proc/stat``), rounded down unless within a quarter of a processor of the next integer;
    where that is unavailable, the processors minus the 1-minute load average.
    """
    import os
    import time

    try:
        cpus = set(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = set(range(os.cpu_count() or 1))
    n = len(cpus)
    if n <= 1:
        return 1
    a = _cpu_times(cpus)
    if a is not None:
        time.sleep(interval)
        b = _cpu_times(cpus)
    if a is not None and b is not None and b[1] > a[1]:
        idle = n * (b[0] - a[0]) / (b[1] - a[1])
    else:
        try:
            idle = n - os.getloadavg()[0]
        except (AttributeError, OSError):
            return 1
    return max(1, min(n, int(idle + 0.25)))


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(n)``; the previous count is restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and torch's (CPU and CUDA) random generators."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    if torch.cuda.is_available():  # pragma: no cover - no GPU on CI
        torch.cuda.manual_seed_all(seed)


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' own progress bars and load reports while loading."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    level = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if was_enabled:
            hf_logging.enable_progress_bar()



def resolve_device(device: str | None) -> str:
    """``device`` when given, else ``"cuda"`` when a GPU is present, else ``"cpu"``."""
    import torch

    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"

"""The slow first visits computed ahead, in the background (issue 33: the Effort page's first visit
took about 15 s, the ToolTalk page's about 15 s, when every other page settles in 1-2 s).

When the server starts (the first run of ``app.py``, :func:`start`), a separate Python process
(``python -m pages._warm <folder>``, at low priority: ``nice`` 10, so the pages a user opens
meanwhile keep the machine) computes what those two pages compute on their first visit with
their default settings and the built-in demo:

- the Effort page: the demo's dialogue features and the two effort models (feature sets D and
  D+W, 5-fold cross-validation, the default seed and permutation repeats);
- the ToolTalk page: the demo conversations scored with the MiniLM encoder (its loading is most
  of the time), with and without the receiver check.

Each job writes one pickle (renamed into place when whole) that a watcher thread of the server
reads. A page's cached function asks :func:`precomputed` for its arguments' result before it
computes: the result when the job made it (waiting for a job under way rather than computing
the same thing beside it), else ``None`` and the page computes as before. The keys hold the
content fingerprints and every setting, so a different dataset or setting never matches.

Off when ``HMCEVAL_WARMUP`` is ``0`` (the tests set it; the browser bench turns it on).
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
JOBS = ("effort_keys", "effort_features", "effort_fits", "tooltalk")

_lock = threading.Lock()
_state: dict[str, Any] = {"started": False, "results": {}, "done": {}, "failed": set()}
_log = logging.getLogger("hmceval")


def enabled() -> bool:
    """Whether :func:`start` starts the background process (``HMCEVAL_WARMUP`` not ``0``)."""
    return os.environ.get("HMCEVAL_WARMUP", "1").strip() not in ("0", "false", "no", "off")


def start() -> bool:
    """Start the background process once per server (later calls do nothing); True when this
    call started it."""
    with _lock:
        if _state["started"] or not enabled():
            return False
        _state["started"] = True
        _state["done"] = {job: threading.Event() for job in JOBS}
    folder = Path(tempfile.mkdtemp(prefix="hmceval_warm_"))
    threading.Thread(target=_watch, args=(folder,), name="hmceval-warmup", daemon=True).start()
    return True


def _watch(folder: Path) -> None:
    """Run the process and read each job's pickle as it comes (the server's thread)."""
    done = _state["done"]
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pages._warm", str(folder)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "HMCEVAL_WARMUP": "0"})
    except OSError as exc:
        _log.warning("background warm-up not started: %s", exc)
        for event in done.values():
            event.set()
        return
    pending = list(JOBS)
    while pending:
        for job in list(pending):
            path = folder / f"{job}.pickle"
            if path.exists():
                try:
                    with open(path, "rb") as fh:  # written by our own process, renamed when whole
                        _state["results"].update(pickle.load(fh))
                except Exception as exc:  # noqa: BLE001  (a failed job: the page computes)
                    _log.warning("background warm-up %s unreadable: %s", job, exc)
                    _state["failed"].add(job)
                done[job].set()
                pending.remove(job)
        if pending and proc.poll() is not None:
            if proc.returncode:
                err = (proc.stderr.read() or b"").decode(errors="replace")[-500:] if proc.stderr else ""
                _log.warning("background warm-up ended with %s: %s", proc.returncode, err)
            for job in pending:
                if not (folder / f"{job}.pickle").exists():
                    _state["failed"].add(job)
                    done[job].set()
            pending = [j for j in pending if not done[j].is_set()]
            continue
        if pending:
            time.sleep(0.25)


def precomputed(job: str, key: tuple, *, timeout: float = 300.0) -> Any | None:
    """The result ``job`` made for ``key``, waiting for the job when it is under way; ``None``
    when the warm-up is off, failed, or made no result for this key."""
    done = _state["done"].get(job)
    if done is None or job in _state["failed"]:
        return None
    if not done.wait(timeout):
        return None
    return _state["results"].get((job, *key))


# ----------------------------------------------------------------------------- the process
def _effort_jobs():
    """The Effort page's first visit on the demo with its default settings, one job at a time:
    ``keys`` (what the page's cached functions are called with: the samples' fingerprint and
    columns, then the features' fingerprint), ``features`` (``_extract``'s result) and ``fits``
    (``_fit``'s two results, feature sets D and D+W)."""
    from core.data import prepare
    from core.data.content import content_id
    from core.defaults import HEE_FOLDS, HEE_PERMUTATION_REPEATS
    from core.demo import make_demo
    from core.hee import DEFAULT_RANDOM_STATE, DIALOGUE_FEATURES, effort_samples, estimate_effort
    from core.hee import features_from_samples
    from core.scenario import data_key

    data = prepare(make_demo(), name="Built-in demo")
    prepared = effort_samples(data, text_col=data.text_columns[0], label_col="machine_label")
    work = (data_key(content_id(prepared.samples), None), tuple(prepared.columns.items()))
    yield "effort_keys", {("effort_keys", "work"): work}
    fx = features_from_samples(prepared.samples, scorer=None, **dict(prepared.columns))
    table_key = data_key(content_id(fx.features), None)
    yield "effort_features", {("effort_features", *work): fx,
                              ("effort_features", "table_key"): table_key}
    fits = {}
    for spec in ("D", "D+W"):
        args = (table_key, "time", spec, tuple(DIALOGUE_FEATURES), HEE_FOLDS, None, None,
                DEFAULT_RANDOM_STATE, HEE_PERMUTATION_REPEATS, "dialogue_id", "total_turns")
        fits[("effort_fits", *args)] = estimate_effort(
            fx.features, time_col="time", features=spec, n_splits=HEE_FOLDS, split_col=None,
            max_features=None, random_state=DEFAULT_RANDOM_STATE, n_jobs=2,
            permutation_repeats=HEE_PERMUTATION_REPEATS, optional_features=DIALOGUE_FEATURES,
            id_col="dialogue_id", turns_col="total_turns")
    yield "effort_fits", fits


def _tooltalk_jobs():
    """The ToolTalk page's demo scored with the MiniLM encoder, with and without the receiver
    check (``_score_demo``'s arguments)."""
    from core.demo.tooltalk import demo_conversations
    from core.tooltalk import default_similarity, parse_conversation, score_conversations

    convs = [parse_conversation(c, source=f"{c['name']}.json") for c in demo_conversations(seed=0)]
    out: dict[tuple, Any] = {}
    for strict in (False, True):
        scores, errors = score_conversations(convs, similarity=default_similarity(),
                                             strict_receiver=strict)
        out[("tooltalk", "minilm", strict)] = (scores, errors, [])
    yield "tooltalk", out


def main(folder: str) -> None:
    """The background process: each job's results pickled into ``folder`` (renamed into place
    when whole); a job that fails leaves no file (its page computes as before)."""
    try:
        os.nice(10)
    except OSError:
        pass
    for jobs in (_effort_jobs, _tooltalk_jobs):
        try:
            for job, results in jobs():
                tmp = Path(folder) / f"{job}.pickle.tmp"
                with open(tmp, "wb") as fh:
                    pickle.dump(results, fh, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, Path(folder) / f"{job}.pickle")
        except Exception as exc:  # noqa: BLE001  (reported on stderr; the page computes)
            print(f"{jobs.__name__}: {type(exc).__name__}: {exc}", file=sys.stderr)


# ----------------------------------------------------------------------------- the pages' side
def effort_features(work_key: str, cols: tuple) -> Any | None:
    """The Effort page's features of the demo (``_extract``), or ``None`` for other samples."""
    if precomputed("effort_keys", ("work",)) != (work_key, cols):
        return None
    return precomputed("effort_features", (work_key, cols))


def effort_fit(args: tuple) -> Any | None:
    """One of the Effort page's models of the demo (``_fit``'s arguments but the table), or
    ``None`` for another table or setting."""
    if precomputed("effort_keys", ("work",)) is None:
        return None
    if precomputed("effort_features", ("table_key",)) != args[0]:
        return None
    return precomputed("effort_fits", args)


def tooltalk_demo(similarity: str, strict: bool) -> Any | None:
    """The ToolTalk page's demo scores (``_score_demo``), or ``None`` (exact text equality is
    quick: not computed ahead)."""
    return precomputed("tooltalk", (similarity, bool(strict))) if similarity == "minilm" else None


if __name__ == "__main__":
    main(sys.argv[1])

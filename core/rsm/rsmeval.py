"""RSMTool's rsmeval as tables: every statistics file an rsmeval experiment writes, named, shaped
and computed as rsmeval writes them (``rsmtool.rsmeval.run_evaluation``).

:func:`rsmeval_tables` takes the predictions table and rsmeval's options and returns
``{file name suffix: DataFrame}``; :func:`write_tables` writes them as rsmeval does
(``<experiment_id>_<suffix>.<csv|tsv|xlsx>``). The numbers come from the functions of
:mod:`core.rsm.report` (the ones behind ``hmceval agreement`` and the Fairness page), the
responses from :func:`core.rsm.responses.select_responses`, so the tables and the JSON report
agree. What rsmeval does, step by step (``FeaturePreprocessor.process_data_rsmeval`` and
``process_predictions``, ``Analyzer.run_prediction_analyses`` and
``run_data_composition_analyses_for_rsmeval``, the ``fairness_analyses`` notebook):

* the scores: ``raw`` (the system score as given), ``scale`` (``(raw - mean P) / sd P * sd H +
  mean H`` with the means and sds (``ddof=1``) of the ``prediction`` and ``sc1`` columns of the
  ``scale_with`` file; 0 and 1 when there is no file), each trimmed (``*_trim``,
  :func:`core.rsm.responses.trim_scores`) and rounded half to even (``*_trim_round``). Which of
  them are reported depends on ``scale_with``: none -> ``raw*``; ``"asis"`` -> ``scale*`` (the
  given scores are already scaled); anything else -> all six;
* ``eval`` (one row per score type), ``eval_short`` (RSMTool's ``filter_metrics``: the ``*_trim``
  and ``*_trim_round`` columns it recommends), ``eval_by_<group>`` (the same short columns with
  DSM in place of SMD, one row per group and an ``All data`` row: the whole set as one group);
* with a second human score: ``consistency``, ``consistency_by_<group>`` (DSM in place of SMD,
  ``All data`` row too), ``degradation``, ``disattenuated_correlations`` (one row per score type),
  ``disattenuated_correlations_by_<group>`` (the ``*_trim`` scores), ``true_score_eval`` and
  ``confMatrix_h1h2``;
* ``confMatrix`` and ``score_dist`` (human scores rounded half to even against the ``*_trim_round``
  scores), ``data_composition`` and ``data_composition_by_<group>``;
* ``estimates_<osa|osd|csd>_by_<group>`` and ``fairness_metrics_by_<group>`` on the ``*_trim``
  scores;
* ``pred_processed``: every response's scores; ``test_metadata``, ``test_human_scores``,
  ``test_other_columns``, ``test_excluded_responses`` and ``test_responses_with_excluded_flags``:
  the responses themselves, under rsmeval's column names (``spkitemid``, ``sc1``, ``sc2``,
  ``raw``, ``candidate``).

Rows are in rsmeval's order: the by-group tables (``eval_by``, ``consistency_by``,
``disattenuated_correlations_by``) by label with ``All data`` among them (the agreement report's
order, :func:`core.rsm.checks.by_label`, as rsmeval's ``groupby``), the fairness estimates by
group size, ties by label (RSMTool's ``convert_to_ordered_category``),
``test_excluded_responses`` by the step that set a response aside (human score, system score,
candidate), each in the file's order. Columns are in the order of RSMTool's files: those of
``eval_short`` and ``eval_by`` sorted by name, as rsmeval wrote them with the pandas it pinned
(0.23.4; see :func:`_short`).

RSMTool's own rsmeval test experiments (its 26, every file of their expected outputs:
``tests/data/rsmtool``) are reproduced by ``tests/core/test_rsm_rsmeval_experiments.py``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.rsm.degradation import DEGRADATION_COLUMNS, DISATTENUATED_COLUMNS
from core.rsm.fairness import ANALYSES, estimates_frame
from core.rsm.report import (
    CONSISTENCY_COLUMNS, EVAL_COLUMNS, TRUE_SCORE_COLUMNS, TRUE_SCORE_RSMTOOL_NAMES, evaluation_report,
)
from core.rsm.responses import NO_INFO, TRIM_TOLERANCE, as_numbers, flag_key, select_responses, trim_scores

__all__ = ["FILE_FORMATS", "SHORT_METRICS", "MAX_XLSX_BYTES", "read_table", "check_output", "distinct_roles", "score_types", "processed_scores", "scaling_from",
           "rsmeval_tables", "write_tables"]

#: rsmeval's ``file_format`` values.
FILE_FORMATS: tuple[str, ...] = ("csv", "tsv", "xlsx")
#: RSMTool's ``filter_metrics``: score-type suffix -> the metrics it keeps (``SMD`` becomes
#: ``DSM`` in the by-group tables).
SHORT_METRICS: dict[str, tuple[str, ...]] = {
    "_trim": ("N", "h_mean", "h_sd", "sys_mean", "sys_sd", "wtkappa", "corr", "SMD", "RMSE", "R2"),
    "_trim_round": ("sys_mean", "sys_sd", "kappa", "exact_agr", "adj_agr", "SMD"),
}
#: Largest .xlsx file read (its cells are decompressed in memory).
MAX_XLSX_BYTES = 20 * 1024 * 1024


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """A file rsmeval reads: ``.xlsx`` (first sheet, as RSMTool's ``DataReader``) or anything
    :func:`core.rsm.io.load_evaluation_table` reads (CSV, TSV, JSON lines, ...)."""
    from core.rsm.io import load_evaluation_table

    if Path(path).suffix.lower() != ".xlsx":
        return load_evaluation_table(path)
    from core.userfile import read_user_file

    data = read_user_file(Path(path), max_bytes=MAX_XLSX_BYTES, what="xlsx file")
    try:
        table = pd.read_excel(io.BytesIO(data), engine="openpyxl")
    except Exception as exc:  # openpyxl's errors for a damaged workbook are of many kinds
        raise DataError(f"{Path(path).name}: not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
    if table.shape[0] == 0:
        raise DataError(f"{Path(path).name} has a header but no data rows")
    table.columns = [str(c).strip() for c in table.columns]
    return table


def score_types(scale_with: str | None) -> list[str]:
    """The score types rsmeval reports for a ``scale_with`` value (see the module docstring)."""
    if scale_with is None:
        return ["raw", "raw_trim", "raw_trim_round"]
    if scale_with == "asis":
        return ["scale", "scale_trim", "scale_trim_round"]
    return ["raw", "raw_trim", "raw_trim_round", "scale", "scale_trim", "scale_trim_round"]


def scaling_from(scale_frame: pd.DataFrame | None) -> tuple[float, float, float, float]:
    """``(mean P, sd P, mean H, sd H)`` of a ``scale_with`` table (its ``prediction`` and ``sc1``
    columns, sds with ``ddof=1``); ``(0, 1, 0, 1)`` (no scaling) for None."""
    if scale_frame is None:
        return 0.0, 1.0, 0.0, 1.0
    out = []
    for col in ("prediction", "sc1"):
        if col not in scale_frame.columns:
            raise DataError(f"the scaling table needs the columns 'prediction' and 'sc1' (RSMTool's "
                            f"scale_with file); {col!r} not found")
        values = pd.to_numeric(scale_frame[col], errors="coerce")
        if values.notna().sum() < 2:
            raise DataError(f"scaling table: column {col!r} needs at least two numbers")
        out += [float(values.mean()), float(values.std(ddof=1))]
    if out[1] == 0:
        raise DataError("scaling table: the 'prediction' column is constant (its sd is 0)")
    return out[0], out[1], out[2], out[3]


def processed_scores(raw: np.ndarray, *, scaling: tuple[float, float, float, float], trim_min: float,
                     trim_max: float, trim_tolerance: float = TRIM_TOLERANCE) -> dict[str, np.ndarray]:
    """RSMTool's ``process_predictions``: the six score types of every response.

    Parameters
    ----------
    raw : ndarray of shape (n_samples,)
        System scores as given.
    scaling : tuple of 4 floats
        ``(mean P, sd P, mean H, sd H)`` (:func:`scaling_from`).
    trim_min, trim_max, trim_tolerance : float
        The scale's lowest and highest points and RSMTool's tolerance.

    Returns
    -------
    dict
        ``raw``, ``raw_trim``, ``raw_trim_round``, ``scale``, ``scale_trim``, ``scale_trim_round``
        -> arrays of shape (n_samples,) (rounding half to even, as ``np.rint``).
    """
    pm, psd, hm, hsd = scaling
    raw = np.asarray(raw, dtype=float)
    out = {"raw": raw, "scale": (raw - pm) / psd * hsd + hm}
    for kind in ("raw", "scale"):
        out[f"{kind}_trim"] = trim_scores(out[kind], trim_min=trim_min, trim_max=trim_max, tolerance=trim_tolerance)
        out[f"{kind}_trim_round"] = np.rint(out[f"{kind}_trim"])
    return {k: out[k] for k in ("raw", "raw_trim", "raw_trim_round", "scale", "scale_trim", "scale_trim_round")}


def _short(rows: Mapping[str, Mapping[str, Any]], prefix: str, smd: str) -> dict[str, Any]:
    """RSMTool's ``filter_metrics`` of one set of responses: ``rows`` score type -> metrics,
    keyed by column name in the order of RSMTool's files: sorted by name.

    ``filter_metrics`` builds the row with ``pd.DataFrame([metricdict])``; the pandas RSMTool
    pinned when it wrote its expected files (0.23.4) sorted the keys of a frame built from a list
    of dicts (pandas-dev/pandas#22708), so its ``eval_short`` and ``eval_by_<group>`` files list
    the columns sorted by name (47 of RSMTool's 52 such files; the 5 it rewrote after unpinning
    pandas, as rsmeval writes them with a later pandas, list them in ``filter_metrics``' own
    order, :data:`SHORT_METRICS`)."""
    out: dict[str, Any] = {}
    for suffix, metrics in SHORT_METRICS.items():
        for metric in metrics:
            name = smd if metric == "SMD" else metric
            key = name if name in ("N", "h_mean", "h_sd") else f"{name}.{prefix}{suffix}"
            out[key] = rows[prefix + suffix][name]
    out = {key: out[key] for key in sorted(out)}
    return out


def _float(value: Any) -> float:
    return np.nan if value is None else float(value)


def _frame(rows: Mapping[Any, Mapping[str, Any]], columns: Sequence[str], index_name: str | None = None) -> pd.DataFrame:
    table = pd.DataFrame([[_float(r[c]) for c in columns] for r in rows.values()],
                         index=pd.Index(list(rows), dtype=object, name=index_name), columns=list(columns))
    if "N" in table.columns:
        table["N"] = table["N"].astype("int64")
    return table


def _confusion(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    """scikit-learn's ``confusion_matrix`` over the sorted labels of both sides, as rsmeval frames it."""
    a, b = a.astype("int64"), b.astype("int64")
    labels = np.union1d(a, b)
    ia, ib = np.searchsorted(labels, a), np.searchsorted(labels, b)
    counts = np.zeros((labels.size, labels.size), dtype="int64")
    np.add.at(counts, (ia, ib), 1)
    return pd.DataFrame(counts, index=labels.tolist(), columns=labels.tolist())


def rsmeval_tables(
    df: pd.DataFrame,
    *,
    human: str,
    system: str,
    human2: str | None = None,
    groups: Sequence[str] = (),
    scale_with: str | None = None,
    scale_frame: pd.DataFrame | None = None,
    trim_min: float,
    trim_max: float,
    trim_tolerance: float = TRIM_TOLERANCE,
    exclude_zero_scores: bool = True,
    flag_column: Mapping[str, Any] | None = None,
    candidate_column: str | None = None,
    min_items_per_candidate: int | None = None,
    id_column: str | None = None,
) -> dict[str, pd.DataFrame]:
    """Every table of an rsmeval experiment (its statistics and its files of the responses).

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The predictions file as read.
    human, system, human2, groups
        rsmeval's ``human_score_column``, ``system_score_column``,
        ``second_human_score_column`` and ``subgroups``.
    scale_with : str, optional
        rsmeval's option: None (no scaling), ``"asis"`` (already scaled) or any other value (scale
        with ``scale_frame``; ``"raw"`` without a frame scales by 0 and 1, as rsmeval does).
    scale_frame : pandas.DataFrame, optional
        The ``scale_with`` file (columns ``prediction`` and ``sc1``).
    trim_min, trim_max, trim_tolerance, exclude_zero_scores, flag_column, candidate_column, min_items_per_candidate
        rsmeval's options of those names (see :func:`core.rsm.agreement_report`).
    id_column : str, optional
        rsmeval's ``id_column``: the index of ``pred_processed`` (else the 0-based row).

    Returns
    -------
    dict
        File-name suffix (``eval``, ``eval_short``, ``eval_by_<group>``, ...; see the module
        docstring) -> DataFrame with rsmeval's index and columns. Missing values are NaN.
    """
    groups = list(groups)
    distinct_roles(human=human, system=system, human2=human2, groups=groups, id_column=id_column,
                    candidate_column=candidate_column)
    frame, _summary = select_responses(
        df, human=human, system=system, human2=human2, groups=groups, exclude_zero_scores=exclude_zero_scores,
        flag_column=flag_column, candidate_column=candidate_column, min_items_per_candidate=min_items_per_candidate,
    )
    if scale_with is not None and scale_with != "asis" and scale_frame is None and scale_with != "raw":
        raise DataError(f"scale_with {scale_with!r}: the scaling table is needed")
    scaling = scaling_from(scale_frame if scale_with not in (None, "asis") else None)
    scores = processed_scores(frame[system].to_numpy(dtype=float), scaling=scaling, trim_min=trim_min,
                              trim_max=trim_max, trim_tolerance=trim_tolerance)
    types = score_types(scale_with)
    prefix = "raw" if scale_with is None else "scale"
    h = frame[human].to_numpy(dtype=float)
    h2 = frame[human2].to_numpy(dtype=float) if human2 is not None else None
    hn, h2n, mn = (f"\x00{n}" for n in ("h", "h2", "m"))  # never a group column's name
    work = pd.DataFrame({hn: h}, index=frame.index)
    if h2 is not None:
        work[h2n] = h2
    for g in groups:
        work[g] = frame[g].to_numpy()
    reports = {}
    for t in types:
        work[mn] = scores[t]
        reports[t] = evaluation_report(work, human=hn, system=mn, human2=None if h2 is None else h2n,
                                       groups=groups if t.startswith(prefix) and t != prefix else ())
    tables: dict[str, pd.DataFrame] = {}
    tables["eval"] = _frame({t: reports[t]["eval"] for t in types}, EVAL_COLUMNS)
    tables["eval_short"] = pd.DataFrame([_short({t: reports[t]["eval"] for t in types}, prefix, "SMD")])
    both = None if h2 is None else ~np.isnan(h2)
    if h2 is not None and both.any():
        cons = reports[types[0]]["consistency"]
        tables["consistency"] = _frame({"": cons}, CONSISTENCY_COLUMNS)
        tables["degradation"] = _frame({t: reports[t]["degradation"] for t in types}, DEGRADATION_COLUMNS)
        tables["disattenuated_correlations"] = _frame(
            {t: reports[t]["disattenuated_correlations"] for t in types}, DISATTENUATED_COLUMNS)
        tables["true_score_eval"] = _frame({t: reports[t]["true_score"] for t in types}, TRUE_SCORE_COLUMNS) \
            .rename(columns=TRUE_SCORE_RSMTOOL_NAMES)
        for c in ("N raters", "N single", "N multiple"):
            tables["true_score_eval"][c] = tables["true_score_eval"][c].astype("int64")
        tables["confMatrix_h1h2"] = _confusion(np.rint(h[both]), np.rint(h2[both]))
    tables["confMatrix"] = _confusion(np.rint(h), scores[f"{prefix}_trim_round"])
    tables["score_dist"] = _score_dist(np.rint(h), scores[f"{prefix}_trim_round"], f"sys_{prefix}")
    composition = {"partition": "Evaluation", "responses": len(frame)}
    if candidate_column is not None:
        composition["candidates"] = frame[candidate_column].nunique()
    for g in groups:
        composition[g] = frame[g].nunique()
    tables["data_composition"] = pd.DataFrame([composition]).set_index("partition")
    trim, trim_round = f"{prefix}_trim", f"{prefix}_trim_round"
    for g in groups:
        labels = frame[g].to_numpy()
        by = {t: reports[t][f"eval_by_{g}"] for t in (trim, trim_round)}  # "All data" first
        tables[f"eval_by_{g}"] = pd.DataFrame.from_dict(
            {k: _short({t: by[t][k] for t in by}, prefix, "DSM") for k in by[trim]}, orient="index")
        counts = pd.Series(labels).value_counts(sort=False)
        comp = pd.DataFrame({"N responses": counts})
        tables[f"data_composition_by_{g}"] = comp.rename_axis(g).sort_index()
        fair = reports[trim][f"fairness_by_{g}"]
        for a in ANALYSES:
            tables[f"estimates_{a}_by_{g}"] = estimates_frame(fair, a)
        metrics = pd.DataFrame({ANALYSES[a]: [fair[a]["R2"], fair[a]["sig"]] for a in ANALYSES},
                               index=["R2", "sig"])
        metrics["base_category"] = fair["base_category"]
        tables[f"fairness_metrics_by_{g}"] = metrics
        if h2 is not None and both.any():
            cols = [c for c in CONSISTENCY_COLUMNS if c != "SMD"] + ["DSM"]
            tables[f"consistency_by_{g}"] = _frame(reports[trim][f"consistency_by_{g}"], cols)
            tables[f"disattenuated_correlations_by_{g}"] = _frame(
                reports[trim][f"disattenuated_correlations_by_{g}"], DISATTENUATED_COLUMNS)
    tables["test_excluded_composition"] = _excluded_composition(
        df, frame.index, human=human, system=system, flag_column=flag_column,
        exclude_zero_scores=exclude_zero_scores, listwise=min_items_per_candidate is not None)
    index = frame.index if id_column is None else pd.Index(frame[id_column].astype(str), name="spkitemid")
    pred = pd.DataFrame({"sc1": h}, index=index)
    for t in types:
        pred[t] = scores[t]
    for t in types:
        if t.endswith("_round"):
            pred[t] = pred[t].astype("int64")
    tables["pred_processed"] = pred
    tables.update(_passthrough_tables(
        df, frame.index, human=human, system=system, human2=human2, groups=groups, types=types,
        id_column=id_column, candidate_column=candidate_column, flag_column=flag_column,
        exclude_zero_scores=exclude_zero_scores))
    return tables


def distinct_roles(*, human: str, system: str, human2: str | None, groups: Sequence[str],
                    id_column: str | None, candidate_column: str | None) -> None:
    """rsmeval renames the columns it uses (``spkitemid``, ``sc1``, ``sc2``, ``raw``,
    ``candidate``); one column in two of those roles, or a subgroup among them, cannot be
    tabled: a :class:`DataError` naming both roles."""
    roles = [("id column (id_column)", id_column), ("human score (human_score_column)", human),
             ("system score (system_score_column)", system),
             ("second human score (second_human_score_column)", human2),
             ("candidate column (candidate_column)", candidate_column)]
    roles += [("subgroup (subgroups)", g) for g in groups]
    seen: dict[str, str] = {}
    for role, col in roles:
        if col is None:
            continue
        if col in seen:
            raise DataError(f"column {col!r} is given as the {seen[col]} and as the {role}; "
                            "rsmeval's tables need a column per role")
        seen[col] = role


#: rsmeval's names of the columns it uses (``rename_default_columns``).
_DEFAULT_NAMES = ("spkitemid", "sc1", "sc2", "length", "raw", "candidate")


def _renamed(df: pd.DataFrame, mapping: Mapping[str, str]) -> pd.DataFrame:
    """rsmeval's ``rename_default_columns``: the used columns get its names; another column that
    has one of those names becomes ``##name##``."""
    correct = {c for c, d in mapping.items() if c == d}
    clash = {c: f"##{c}##" for c in df.columns if c in _DEFAULT_NAMES and c not in correct}
    out = df.rename(columns=clash)
    return out.rename(columns={clash.get(c, c): d for c, d in mapping.items() if c not in correct})


def _flag_excluded(df: pd.DataFrame, flag_column: Mapping[str, Any] | None) -> np.ndarray:
    """The rows a flag column sets aside (compared as :func:`core.rsm.responses.flag_key`)."""
    out = np.zeros(len(df), dtype=bool)
    for col, allowed in (flag_column or {}).items():
        allowed = {flag_key(v) for v in (allowed if isinstance(allowed, (list, tuple, set)) else [allowed])}
        out |= ~df[col].map(lambda v: flag_key(v) in allowed).to_numpy(dtype=bool)
    return out


def _passthrough_tables(df: pd.DataFrame, kept: pd.Index, *, human: str, system: str, human2: str | None,
                        groups: Sequence[str], types: Sequence[str], id_column: str | None,
                        candidate_column: str | None, flag_column: Mapping[str, Any] | None,
                        exclude_zero_scores: bool) -> dict[str, pd.DataFrame]:
    """rsmeval's files of the responses themselves (``process_data_rsmeval``), its column names:
    ``test_metadata`` (ids, subgroups, candidates), ``test_human_scores`` (with a second score:
    ``sc1``, ``sc2`` as numbers, zeros absent with ``exclude_zero_scores``), ``test_other_columns``
    (every other column of the evaluated responses, ``raw`` included when only the ``scale``
    types are reported), ``test_excluded_responses`` (the responses set aside after the flags,
    ``sc1`` and ``raw`` as numbers) and ``test_responses_with_excluded_flags``; the last two only
    when not empty, as rsmeval writes them."""
    mapping = {c: d for c, d in zip((id_column, human, human2, system, candidate_column), _DEFAULT_NAMES[:3] +
                                    ("raw", "candidate")) if c is not None}
    data = df.copy()
    for g in groups:  # blank labels: "No info" (rsmeval's check_subgroups), on every row
        blank = data[g].map(lambda v: isinstance(v, str) and not v.strip()).to_numpy(dtype=bool)
        data[g] = data[g].astype(object).where(~blank, NO_INFO)
    data = _renamed(data, mapping)
    if id_column is None:  # no ids: the 0-based rows
        data.insert(0, "spkitemid", [str(i) for i in range(len(df))])
    data = data.set_index("spkitemid", drop=False)
    data.index = data.index.astype(str)
    flagged = _flag_excluded(df, flag_column)
    aside = np.ones(len(df), dtype=bool)
    aside[kept.to_numpy()] = False
    aside &= ~flagged
    out: dict[str, pd.DataFrame] = {}
    used = data.iloc[kept.to_numpy()].copy()
    for c in ("sc1", "raw"):
        used[c] = pd.to_numeric(used[c], errors="coerce").astype(float)
    meta = ["spkitemid", *groups] + (["candidate"] if candidate_column is not None else [])
    out["test_metadata"] = used[meta].drop(columns="spkitemid")
    not_other = {"sc1", *types, *meta}
    if human2 is not None:
        scores = used[["sc1"]].assign(sc2=pd.to_numeric(used["sc2"], errors="coerce").astype(float))
        if exclude_zero_scores:
            scores["sc2"] = scores["sc2"].replace(0, np.nan)
        out["test_human_scores"] = scores
        not_other.add("sc2")
    out["test_other_columns"] = used[[c for c in used.columns if c not in not_other]]
    if aside.any():  # rsmeval's order: human score, then system score, then candidate exclusions
        h = as_numbers(df[human])
        human_out = ~np.isfinite(h) | ((h == 0) if exclude_zero_scores else False)
        system_out = ~human_out & ~np.isfinite(as_numbers(df[system]))
        stage = np.where(human_out, 0, np.where(system_out, 1, 2))
        rows = np.flatnonzero(aside)
        excluded = data.iloc[rows[np.argsort(stage[rows], kind="stable")]].copy()
        for c in ("sc1", "raw"):
            excluded[c] = pd.to_numeric(excluded[c], errors="coerce").astype(float)
        out["test_excluded_responses"] = excluded.drop(columns="spkitemid")
    if flagged.any():
        out["test_responses_with_excluded_flags"] = data.iloc[np.flatnonzero(flagged)].drop(columns="spkitemid")
    for table in out.values():
        table.index.name = "spkitemid"
    return out


def _excluded_composition(df: pd.DataFrame, kept: pd.Index, *, human: str, system: str,
                          flag_column: Mapping[str, Any] | None, exclude_zero_scores: bool,
                          listwise: bool) -> pd.DataFrame:
    """rsmeval's ``test_excluded_composition`` (``Analyzer.analyze_excluded_responses``): the
    responses set aside after the flag columns, by their human score (numeric non-zero, zero,
    non-numeric) and system score (numeric or not). Without listwise exclusion the first cell
    (and with zeros kept, the zero row's) is NaN, as rsmeval leaves it; with nothing set aside
    rsmeval writes the three rows without their labels."""
    rows = ["numeric non-zero human score", "zero human score", "non-numeric human score"]
    cols = ["numeric system score", "non-numeric system score"]
    out = pd.DataFrame(0.0, index=pd.Index(rows, name="Human/System"), columns=cols)
    aside = ~_flag_excluded(df, flag_column)
    aside[kept.to_numpy()] = False
    hs = pd.to_numeric(df[human], errors="coerce").to_numpy(dtype=float)[aside]
    ms = pd.to_numeric(df[system], errors="coerce").to_numpy(dtype=float)[aside]
    hcat = np.where(np.isnan(hs), 2, np.where(hs == 0, 1, 0))
    mcat = np.isnan(ms).astype(int)
    for i, j in zip(hcat, mcat):
        out.iat[i, j] += 1
    if not listwise:
        out.iat[0, 0] = np.nan
        if not exclude_zero_scores:
            out.iat[1, 0] = np.nan
    if not aside.any():  # written without its row labels and without an index column
        out = out.reset_index(drop=True)
        out.attrs["write_index"] = False
    return out


def _score_dist(human: np.ndarray, system: np.ndarray, name: str) -> pd.DataFrame:
    """rsmeval's ``score_dist``: the percentage of responses at every rounded score."""
    n = human.shape[0]
    labels = np.union1d(human, system)
    hp = np.array([(human == v).sum() for v in labels]) / n * 100
    sp = np.array([(system == v).sum() for v in labels]) / n * 100
    return pd.DataFrame({"score": labels, "human": hp, name: sp, "difference": sp - hp}, index=labels)


def check_output(folder: str | os.PathLike, *, experiment_id: str, file_format: str) -> Path:
    """The checks :func:`write_tables` makes, to run before any work: a known ``file_format``,
    an experiment id of letters, digits, ``-`` and ``_``, an existing folder. Returns the folder."""
    if file_format not in FILE_FORMATS:
        raise DataError(f"file_format: expected one of {', '.join(FILE_FORMATS)}, got {file_format!r}")
    if not experiment_id or len(experiment_id) > 200 or not all(c.isascii() and (c.isalnum() or c in "-_")
                                                                for c in experiment_id):
        raise DataError(f"experiment id {experiment_id!r}: use letters, digits, '-' and '_' only")
    base = Path(folder)
    if not base.is_dir():
        raise DataError(f"output folder {str(base)!r} does not exist or is not a folder")
    return base


def _check_xlsx_text(flat: pd.DataFrame, name: str) -> None:
    """A :class:`DataError` naming the table, column and row of the first text that an xlsx
    worksheet cannot hold (a control character: openpyxl raised IllegalCharacterError after
    some files were written)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    def bad(v) -> bool:
        return isinstance(v, str) and ILLEGAL_CHARACTERS_RE.search(v) is not None

    for j, col in enumerate(flat.columns):
        if bad(col):
            raise DataError(f"table {name}: the column name {col!r} holds a control character, "
                            "which an xlsx worksheet cannot hold; write --file-format csv or tsv, "
                            "or remove it from the input; nothing was written")
        values = flat.iloc[:, j]
        if not (values.dtype == object or pd.api.types.is_string_dtype(values.dtype)):
            continue
        hits = np.flatnonzero(values.map(bad, na_action="ignore").fillna(False).to_numpy(bool))
        if len(hits):
            raise DataError(f"table {name}, column {str(col) or '(index)'!r}, "
                            f"{describe_rows(hits)}: a control character "
                            f"({values.iloc[hits[0]]!r}) that an xlsx worksheet cannot hold; "
                            "write --file-format csv or tsv, or remove it from the input; "
                            "nothing was written")


def write_tables(tables: Mapping[str, pd.DataFrame], folder: str | os.PathLike, *, experiment_id: str,
                 file_format: str = "csv") -> list[Path]:
    """Write the tables as rsmeval does: ``<folder>/<experiment_id>_<name>.<file_format>``.

    Parameters
    ----------
    tables : mapping
        Name -> DataFrame (:func:`rsmeval_tables`).
    folder : path
        An existing folder.
    experiment_id : str
        The files' common prefix (letters, digits, ``-`` and ``_``).
    file_format : {"csv", "tsv", "xlsx"}, default="csv"
        rsmeval's ``file_format`` (xlsx: one workbook per table, sheet ``Sheet1``, as pandas writes it).

    Returns
    -------
    list of Path
        The files written (each atomically, :mod:`core.atomic`).
    """
    from core.atomic import refuse_special, write_bytes
    from core.csv_safe import neutralise_formulas, to_csv_safe

    base = check_output(folder, experiment_id=experiment_id, file_format=file_format)
    flats = {}
    for name, table in tables.items():
        if table.attrs.get("write_index", True) is False:
            flat = table.reset_index(drop=True)
        else:  # the index as rsmeval writes it: the first column, its header blank
            flat = table.reset_index()
        if table.index.name is None and table.attrs.get("write_index", True) is not False:
            flat = flat.rename(columns={flat.columns[0]: ""})
        if file_format == "xlsx":
            _check_xlsx_text(flat, name)  # every table before the first file
        flats[name] = flat
    for name in flats:  # a symbolic link, FIFO or device among the files: before the first
        refuse_special(base / f"{experiment_id}_{name}.{file_format}")
    written = []
    for name, flat in flats.items():
        path = base / f"{experiment_id}_{name}.{file_format}"
        if file_format == "xlsx":  # a text cell starting with = would be a formula: neutralised
            buf = io.BytesIO()
            neutralise_formulas(flat).to_excel(buf, engine="openpyxl", index=False)
            write_bytes(path, buf.getvalue())
        else:
            to_csv_safe(flat, path, sep="," if file_format == "csv" else "\t")
        written.append(path)
    return written

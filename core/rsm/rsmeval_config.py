"""An rsmeval configuration file read as RSMTool's rsmeval reads it.

:func:`read_rsmeval_config` reads the JSON file of an rsmeval experiment and returns its options
checked, with RSMTool's defaults (``rsmtool.utils.constants.DEFAULTS``) where a field is absent
and the paths (``predictions_file``, a ``scale_with`` file) resolved against the configuration
file's folder, as rsmeval's ``DataReader.locate_files`` resolves them. ``hmceval agreement
--rsmeval-config FILE`` runs it through :func:`core.rsm.rsmeval.rsmeval_tables`.

The fields are rsmeval's (``CHECK_FIELDS["rsmeval"]``): required ``experiment_id``,
``predictions_file``, ``system_score_column``, ``trim_min``, ``trim_max``; optional
``id_column`` (default ``spkitemid``), ``human_score_column`` (default ``sc1``),
``second_human_score_column``, ``file_format`` (csv, tsv, xlsx), ``flag_column`` (column ->
value or list of values), ``exclude_zero_scores`` (default true; ``"true"``/``"false"`` as text
too, as RSMTool's ``process_config``), ``scale_with`` (``asis``, ``raw`` or a file),
``trim_tolerance`` (default 0.4998), ``subgroups`` (a list or a comma-separated text),
``candidate_column``, ``min_items_per_candidate`` (needs ``candidate_column``). The fields of
rsmeval's HTML report (``description``, ``use_thumbnails``, ``min_n_per_group``,
``general_sections``, ``custom_sections``, ``section_order``, ``wandb_project``,
``wandb_entity``) are checked and listed in :attr:`RsmevalConfig.report_only`: no table depends
on them. Refused, naming the field: any other field (RSMTool refuses unknown fields; fields of
its other tools are refused here too), a value of the wrong kind, ``rater_error_variance`` (not
implemented) and ``use_wandb: true`` (no network).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.defaults import MAX_MIN_ITEMS_PER_CANDIDATE, TRIM_TOLERANCE
from core.errors import DataError
from core.rsm.checks import MAX_SCORE

__all__ = ["REQUIRED", "OPTIONAL", "REPORT_ONLY", "MAX_CONFIG_BYTES", "RsmevalConfig", "read_rsmeval_config"]

#: rsmeval's required fields.
REQUIRED: tuple[str, ...] = ("experiment_id", "predictions_file", "system_score_column", "trim_min", "trim_max")
#: rsmeval's optional fields that change its tables.
OPTIONAL: tuple[str, ...] = (
    "id_column", "human_score_column", "second_human_score_column", "file_format", "flag_column",
    "exclude_zero_scores", "scale_with", "trim_tolerance", "subgroups", "candidate_column",
    "min_items_per_candidate", "rater_error_variance", "use_wandb",
)
#: rsmeval's optional fields of its HTML report only.
REPORT_ONLY: tuple[str, ...] = (
    "description", "use_thumbnails", "min_n_per_group", "general_sections", "custom_sections",
    "section_order", "wandb_project", "wandb_entity",
)
#: Largest configuration file read.
MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class RsmevalConfig:
    """The options of one rsmeval configuration file, checked, paths resolved."""

    path: Path
    experiment_id: str
    predictions_file: Path
    system: str
    human: str
    human2: str | None
    id_column: str
    file_format: str
    flag_column: dict[str, list[Any]] | None
    exclude_zero_scores: bool
    scale_with: str | None
    trim_min: float
    trim_max: float
    trim_tolerance: float
    subgroups: tuple[str, ...]
    candidate_column: str | None
    min_items_per_candidate: int | None
    report_only: tuple[str, ...]


def _fail(path: Path, field: str, message: str) -> DataError:
    return DataError(f"rsmeval configuration {path.name}: field '{field}': {message}")


def _text(cfg: dict, path: Path, field: str, default: str | None = None, *, allow_none: bool = False) -> str | None:
    value = cfg.get(field, default)
    if value is None and (allow_none or default is None and field not in REQUIRED):
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, field, f"expected a non-empty text, got {value!r}")
    return value


def _number(cfg: dict, path: Path, field: str, default: float | None = None) -> float:
    value = cfg.get(field, default)
    if isinstance(value, str):  # RSMTool float()s these fields
        try:
            value = float(value)
        except ValueError:
            raise _fail(path, field, f"expected a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_SCORE:
        raise _fail(path, field, f"expected a finite number of magnitude at most {MAX_SCORE:g}, got {value!r}")
    return float(value)


def _boolean(cfg: dict, path: Path, field: str, default: bool) -> bool:
    """RSMTool's ``process_config``: true/false, or a text (or number) reading true/false."""
    value = cfg.get(field, default)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise _fail(path, field, f"can only be true or false, got {value!r}")
    return text == "true"


def _names(cfg: dict, path: Path, field: str) -> tuple[str, ...]:
    """A list field (RSMTool's ``LIST_FIELDS``): a list, or a comma-separated text."""
    value = cfg.get(field)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(path, field, f"expected a list of names or a comma-separated text, got {value!r}")
    return tuple(v.strip() for v in value)


def _located(base: Path, path: Path, field: str, value: str) -> Path:
    """rsmeval's ``DataReader.locate_files``: an absolute path, or one relative to the
    configuration file's folder; it must exist."""
    shown = value if len(value) <= 200 else f"{value[:200]}... ({len(value):,} characters)"
    try:
        p = Path(os.path.expanduser(value)) if value.startswith("~/") else Path(value)
        p = Path(os.path.abspath(p if p.is_absolute() else base / p))
        found = p.is_file()
    except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a NUL byte, ~nosuchuser
        raise _fail(path, field, f"not a usable path: {shown!r} ({exc.__class__.__name__})") from None
    if not found:
        raise _fail(path, field, f"file not found: {shown!r}" + (f" (looked for {p})" if len(value) <= 200 else ""))
    return p


def _loads(text: str, path: Path) -> dict:
    def pairs(items: list[tuple[str, Any]]) -> dict:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise _fail(path, k, "given twice")
            out[k] = v
        return out

    try:
        cfg = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise DataError(f"rsmeval configuration {path.name}: not valid JSON ({exc})") from None
    except RecursionError:
        raise DataError(f"rsmeval configuration {path.name}: nested too deeply to be a configuration") from None
    if not isinstance(cfg, dict):
        raise DataError(f"rsmeval configuration {path.name}: expected a JSON object of fields, "
                        f"got {type(cfg).__name__}")
    return cfg


def read_rsmeval_config(path: str | os.PathLike) -> RsmevalConfig:
    """Read and check an rsmeval configuration file.

    Parameters
    ----------
    path : path
        The JSON file.

    Returns
    -------
    RsmevalConfig
        Its options, RSMTool's defaults where absent; ``predictions_file`` and a ``scale_with``
        file resolved against the file's folder (``scale_with`` then an absolute path).

    Raises
    ------
    DataError
        Unreadable or not a JSON object; a required field missing; an unknown field; a value of
        the wrong kind; a file not found. The message names the field.
    """
    from core.userfile import read_user_file

    path = Path(path)
    raw = read_user_file(path, max_bytes=MAX_CONFIG_BYTES, what="rsmeval configuration file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DataError(f"rsmeval configuration {path.name}: not UTF-8 text") from None
    cfg = _loads(text, path)
    known = set(REQUIRED) | set(OPTIONAL) | set(REPORT_ONLY)
    for field in cfg:
        if field not in known:
            raise _fail(path, field, "not a field of rsmeval's configuration (its fields: "
                        f"{', '.join(sorted(known))})")
    for field in REQUIRED:
        if cfg.get(field) is None:
            raise _fail(path, field, "required by rsmeval, not given")
    base = path.resolve().parent

    experiment_id = _text(cfg, path, "experiment_id")
    if len(experiment_id) > 200 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in experiment_id):
        raise _fail(path, "experiment_id", f"use at most 200 letters, digits, '-' and '_'; got {experiment_id!r}")
    predictions = _located(base, path, "predictions_file", _text(cfg, path, "predictions_file"))
    file_format = _text(cfg, path, "file_format", "csv")
    if file_format not in ("csv", "tsv", "xlsx"):
        raise _fail(path, "file_format", f"expected csv, tsv or xlsx, got {file_format!r}")

    flags = cfg.get("flag_column")
    if flags is not None:
        if not isinstance(flags, dict) or not flags:
            raise _fail(path, "flag_column", f"expected an object of column -> value(s), got {flags!r}")
        for col, values in flags.items():
            values = values if isinstance(values, list) else [values]
            if not values or any(isinstance(v, (dict, list)) or v is None for v in values):
                raise _fail(path, "flag_column", f"column {col!r}: expected a value or a list of values, got {flags[col]!r}")
            flags[col] = values

    scale_with = cfg.get("scale_with")
    if scale_with is not None:
        scale_with = _text(cfg, path, "scale_with")
        if scale_with not in ("asis", "raw"):
            scale_with = str(_located(base, path, "scale_with", scale_with))

    trim_min, trim_max = _number(cfg, path, "trim_min"), _number(cfg, path, "trim_max")
    if trim_min >= trim_max:
        raise _fail(path, "trim_max", f"must be above trim_min ({trim_min:g}), got {trim_max:g}")
    tolerance = _number(cfg, path, "trim_tolerance", TRIM_TOLERANCE)
    if tolerance < 0:
        raise _fail(path, "trim_tolerance", f"must be 0 or more, got {tolerance:g}")

    candidate = _text(cfg, path, "candidate_column")
    min_items = cfg.get("min_items_per_candidate")
    if min_items is not None:
        if isinstance(min_items, bool) or not isinstance(min_items, int) \
                or not 1 <= min_items <= MAX_MIN_ITEMS_PER_CANDIDATE:
            raise _fail(path, "min_items_per_candidate",
                        f"expected a whole number from 1 to {MAX_MIN_ITEMS_PER_CANDIDATE:,}, got {min_items!r}")
        if candidate is None:
            raise _fail(path, "min_items_per_candidate", "needs 'candidate_column' (the candidates' ids)")

    if cfg.get("rater_error_variance") is not None:
        raise _fail(path, "rater_error_variance", "a given rater error variance is not implemented by "
                    "hmceval; remove the field to estimate it from the second human scores")
    if _boolean(cfg, path, "use_wandb", False):
        raise _fail(path, "use_wandb", "hmceval does not log to Weights & Biases (no network); set it to false")

    subgroups = _names(cfg, path, "subgroups")
    _check_report_fields(cfg, path, subgroups)
    return RsmevalConfig(
        path=path, experiment_id=experiment_id, predictions_file=predictions,
        system=_text(cfg, path, "system_score_column"), human=_text(cfg, path, "human_score_column", "sc1"),
        human2=_text(cfg, path, "second_human_score_column", allow_none=True),
        id_column=_text(cfg, path, "id_column", "spkitemid"), file_format=file_format,
        flag_column=flags, exclude_zero_scores=_boolean(cfg, path, "exclude_zero_scores", True),
        scale_with=scale_with, trim_min=trim_min, trim_max=trim_max, trim_tolerance=tolerance,
        subgroups=subgroups, candidate_column=candidate, min_items_per_candidate=min_items,
        report_only=tuple(f for f in REPORT_ONLY if f in cfg),
    )


def _check_report_fields(cfg: dict, path: Path, subgroups: tuple[str, ...]) -> None:
    """The report's fields, checked as RSMTool checks them (they change no table)."""
    for field in ("description", "wandb_project", "wandb_entity"):
        if cfg.get(field) is not None and not isinstance(cfg[field], str):
            raise _fail(path, field, f"expected a text, got {cfg[field]!r}")
    _boolean(cfg, path, "use_thumbnails", False)
    for field in ("general_sections", "custom_sections", "section_order"):
        _names(cfg, path, field)
    n = cfg.get("min_n_per_group")
    if n is not None:
        if not subgroups:
            raise _fail(path, "min_n_per_group", "needs 'subgroups'")
        if isinstance(n, dict):
            if sorted(n) != sorted(subgroups):
                raise _fail(path, "min_n_per_group", f"its keys must be the subgroups {list(subgroups)}, got {sorted(n)}")
            values = list(n.values())
        else:
            values = [n]
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
            raise _fail(path, "min_n_per_group", f"expected a whole number (or one per subgroup), got {n!r}")

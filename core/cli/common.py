"""Helpers shared by the ``hmceval`` subcommands."""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

from core.defaults import HUMAN_SHARE, LAMBDA

if TYPE_CHECKING:  # numpy and pandas load only when a command runs, not for --help
    import numpy as np

__all__ = ["STDOUT", "add_show_arg", "check_output", "shown", "note_stream", "print_json", "refuse_json_on_stdout",
           "write_csv_output", "write_output"]


def print_json(obj: Any) -> None:
    """Print ``obj`` as JSON to standard output (:func:`core.serialize.dumps`, imported here on
    use, so that building the parser imports neither numpy nor pandas)."""
    from core.serialize import dumps

    sys.stdout.write(dumps(obj) + "\n")


#: What each kind of output may be named (lower-case suffixes; a name without a suffix is
#: taken as it is). A CSV written into ``round.parquet`` or Label Studio's tasks written to
#: ``tasks.xml`` (where the labelling config goes) were silent wrong results.
OUTPUT_SUFFIXES = {"csv": (".csv", ".txt"), "labelstudio": (".json",), "html": (".html", ".htm"),
                   "json": (".json",)}
_FORMAT_NAMES = {"csv": "CSV", "labelstudio": "Label Studio's task JSON (its labelling config "
                 "is written beside it as .xml)", "html": "one HTML file", "json": "JSON"}


#: ``-o -``: standard output, for a command whose output is one file
STDOUT = "-"


def check_output(path: str | None, kind: str, *, to_stdout: bool = False) -> None:
    """Refuse, before any work, an ``-o`` path that cannot be written (:func:`core.atomic.
    check_writable`: a folder, a symbolic link, a FIFO or a device is refused) or whose suffix
    names another format than the ``kind`` written (:data:`OUTPUT_SUFFIXES`).

    ``-o -`` (:data:`STDOUT`) is standard output when ``to_stdout`` (the command's output is one
    file), else refused: a round's table goes with files beside it (its sidecar, the file to
    label, the votes), which standard output cannot hold.
    """
    from pathlib import Path

    from core.atomic import check_writable
    from core.errors import DataError

    if path is None:
        return
    if path == STDOUT:
        if to_stdout:
            return
        raise DataError("-o -: this command writes its table with files beside it (the round's "
                        "sidecar, the file to label, the votes), so it cannot write to standard "
                        "output; give a file name; nothing was written")
    check_writable(path)
    suffix = Path(path).suffix.lower()
    allowed = OUTPUT_SUFFIXES[kind]
    if suffix and suffix not in allowed:
        raise DataError(f"-o {path}: this command writes {_FORMAT_NAMES[kind]}; name the file "
                        f"{' or '.join(allowed)} (not {suffix}); nothing was written")


def refuse_json_on_stdout(path: str | None, json_flag: bool) -> None:
    """``-o -`` with ``--json``: both would go to standard output, one after the other."""
    from core.errors import DataError

    if path == STDOUT and json_flag:
        raise DataError("-o - and --json both write to standard output; write the file "
                        "elsewhere (-o FILE) or drop --json; nothing was written")


def write_output(path: str, content: str | bytes) -> None:
    """``content`` to ``path`` atomically (:mod:`core.atomic`), or to standard output for
    ``-o -``."""
    from core.atomic import write_bytes, write_text

    if path == STDOUT:
        sys.stdout.flush()
        if isinstance(content, bytes):
            sys.stdout.buffer.write(content)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(content)
    elif isinstance(content, bytes):
        write_bytes(path, content)
    else:
        write_text(path, content)


def write_csv_output(table, path: str, **kwargs) -> None:
    """``table`` as CSV (:func:`core.csv_safe.to_csv_safe`, formula cells neutralised) to
    ``path`` atomically, or to standard output for ``-o -``."""
    from core.csv_safe import to_csv_safe

    to_csv_safe(table, sys.stdout if path == STDOUT else path, **kwargs)


def note_stream(path: str | None):
    """Where a command's notes and summary go: standard error when ``-o -`` holds standard
    output, else standard output."""
    return sys.stderr if path == STDOUT else sys.stdout


def add_show_arg(p) -> None:
    """``--show COL``: a column annotators see besides the sample id, the queue position and the
    text columns (:mod:`core.evaluation.sampling.blind`)."""
    p.add_argument("--show", action="append", metavar="COL",
                   help="a column annotators also see (repeatable, or comma-separated), besides "
                        "the sample id, queue_rank and the text columns: a dialogue id, a topic; "
                        "a column mapped to a label, confidence or effort role is refused")


def shown(args) -> list[str]:
    """The columns of ``--show`` (comma-separated or repeated), in order."""
    return [c.strip() for spec in (getattr(args, "show", None) or []) for c in spec.split(",")
            if c.strip()]


def is_nan(x: Any) -> bool:
    """True when ``x`` is a float NaN (not ``None``)."""
    return isinstance(x, float) and math.isnan(x)


def parse_roles(specs: list[str] | None, *, extra_roles: tuple[str, ...] = ()) -> dict[str, Any]:
    """Parse ``--col ROLE=NAME`` options (``NAME`` empty or ``-`` unmaps the role).

    ``subgroups`` and ``text`` take comma-separated column lists; ``extra_roles`` are roles a
    command accepts beyond the data contract's (``selection`` for the evaluation commands).
    """
    from core.data import ROLES
    from core.errors import DataError

    roles: dict[str, Any] = {}
    for spec in specs or []:
        if "=" not in spec:
            raise DataError(f"--col expects ROLE=NAME, got {spec!r}")
        role, name = (part.strip() for part in spec.split("=", 1))
        if role in ("subgroups", "text"):
            roles[role] = [c for c in name.split(",") if c]
        elif role in ROLES or role in extra_roles:
            roles[role] = None if name in ("", "-") else name
        else:
            raise DataError(f"unknown role {role!r} in --col; roles are "
                            f"{', '.join(ROLES + tuple(extra_roles))}, subgroups, text")
    return roles


def load_dataset(path: str, specs: list[str] | None = None):
    """Load and validate a table for the CLI (the same code path as the dashboard).

    When role detection was unsure (several columns could play a role the user did not map
    with ``--col``), a note on stderr names the candidates and the column used, as the Data
    page asks.
    """
    from core.data import load_table, prepare

    data = prepare(load_table(path), parse_roles(specs), name=str(path))
    for ask in data.asks:
        others = ", ".join(repr(c) for c in ask.candidates if c != ask.chosen)
        print(f"note: several columns could be the {ask.role.replace('_', ' ')}: using "
              f"{ask.chosen!r}, not {others}; choose with --col {ask.role}=NAME", file=sys.stderr)
    return data


def parse_range(text: str, name: str) -> np.ndarray:
    """Parse ``START:STOP:STEP`` (inclusive STOP) or a single number into a grid.

    Finite numbers only, at most :data:`core.cli.bounds.MAX_GRID_POINTS` points (see
    :func:`core.cli.bounds.parse_range`).
    """
    from core.cli.bounds import parse_range as bounded

    return bounded(text, name)


def add_assignment_args(p, *, default_lam: float = LAMBDA) -> None:
    """Add the assignment options shared by ``assign`` and ``turns``."""
    p.add_argument("--lam", type=float, default=default_lam,
                   help=f"lambda, the effort weight: a finite number >= 0 (default {default_lam:g}, "
                        "the paper's on its normalised effort; with effort in seconds or minutes "
                        "useful values are far smaller: the output's lambda_range gives the range "
                        "for the table)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--human-share", type=float,
                   help=f"Q in [0, 1]: N = int(Q * M) (default {HUMAN_SHARE:g})")
    g.add_argument("--human-count", type=int, help="N in samples, 0 to M")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role to a column, e.g. --col human_label=gold (repeatable)")


def add_constraint_args(p) -> None:
    """Add the extra-constraint options (solved by the general ILP with HiGHS)."""
    g = p.add_argument_group("extra constraints (general ILP, cvxpy + HiGHS)")
    g.add_argument("--effort-budget", type=float, metavar="B",
                   help="at most B total predicted human effort (in the effort column's units)")
    g.add_argument("--effort-budget-share", type=float, metavar="S",
                   help="at most S x the total predicted effort of all samples")
    g.add_argument("--group-col", metavar="COL", help="subgroup column for --group-share")
    g.add_argument("--group-share", action="append", metavar="VALUE=MIN:MAX",
                   help="human share bounds of one subgroup, e.g. blender=0.2:0.6 or topic=:0.5 "
                        "(repeatable; needs --group-col)")


def constraints_from_args(args, data):
    """Build :class:`core.assignment.Constraints` from the options (``None`` when none is set).

    The options are parsed here; :func:`core.assignment.constraints_from_settings` (what the
    Trade-off page calls too) checks them against the data.
    """
    from core.errors import DataError
    from core.assignment import constraints_from_settings

    specs = getattr(args, "group_share", None) or []
    col = getattr(args, "group_col", None)
    if specs and not col:
        raise DataError("--group-share needs --group-col")
    if col and not specs:
        raise DataError("--group-col needs at least one --group-share")
    bounds: dict = {}
    for spec in specs:
        if "=" not in spec or ":" not in spec.split("=", 1)[1]:
            raise DataError(f"--group-share expects VALUE=MIN:MAX, got {spec!r}")
        value, rng = spec.rsplit("=", 1)
        lo_s, hi_s = rng.split(":", 1)
        try:
            lo = float(lo_s) if lo_s.strip() else None
            hi = float(hi_s) if hi_s.strip() else None
        except ValueError:
            raise DataError(f"--group-share bounds must be numbers, got {spec!r}") from None
        bounds[value] = (lo, hi)
    return constraints_from_settings(data, effort_budget=getattr(args, "effort_budget", None),
                                     effort_budget_share=getattr(args, "effort_budget_share", None),
                                     group_column=col, group_bounds=bounds)


def assignment_from_args(args):
    """Load the dataset named by ``args.path`` and solve the assignment the options describe.

    Returns
    -------
    (EvalData, SAEInputs, Assignment)
    """
    from core.errors import DataError
    from core.assignment import run_assignment

    data = load_dataset(args.path, args.col)
    if args.human_count is not None and not 0 <= args.human_count <= data.M:
        raise DataError(f"--human-count must be between 0 and M = {data.M}, got {args.human_count}")
    share = args.human_share if args.human_share is not None else (
        None if args.human_count is not None else HUMAN_SHARE)
    inp, assignment = run_assignment(data, lam=args.lam, share=share, n_human=args.human_count,
                                     mode="exactly" if args.exactly else "at_most",
                                     constraints=constraints_from_args(args, data))
    return data, inp, assignment


def load_round(path: str, specs: list[str] | None = None):
    """Load a table of an evaluation round (:class:`core.evaluation.sampling.design.Design`).

    ``--col selection=NAME`` maps the selection column; human labels may be missing. A table
    that no longer matches the sidecar hmceval wrote beside it (rows lost, sample ids changed:
    :func:`core.cli.round_table.check_round_table`) is refused.
    """
    from core.cli.round_table import check_round_table
    from core.data import load_table
    from core.evaluation.sampling import load_design

    raw = load_table(path)
    check_round_table(path, raw)
    return load_design(raw, parse_roles(specs, extra_roles=("selection",)), name=str(path))


def write_round(design, table, path) -> None:
    """Write a round's ``table`` (derived from ``design``) to ``path``: atomic CSV plus the
    sidecar recording its rows and sample ids (:func:`core.cli.round_table.write_round_table`)."""
    from core.cli.round_table import write_round_table

    id_col = design.data.roles.get("sample_id") or (
        "sample_id" if "sample_id" in table.columns else None)  # queue_table adds one
    write_round_table(table, path, id_col=id_col)


def check_fraction(value: float, name: str, *, open_interval: bool = True) -> float:
    """A number strictly between 0 and 1 (or in [0, 1]), else a :class:`DataError`."""
    from core.errors import DataError

    if not math.isfinite(value) or (value <= 0 or value >= 1 if open_interval
                                    else value < 0 or value > 1):
        bounds = "strictly between 0 and 1" if open_interval else "in [0, 1]"
        raise DataError(f"{name} must be {bounds}, got {value}")
    return value


def note_nothing_routed(lam: float, upper: float | None, unit: str) -> None:
    """A note on stderr when lambda is so large for the table's effort unit that no sample goes
    to humans (a lambda tuned on a normalised effort, used on seconds): names the value where
    the assignment stops changing. The Trade-off page shows the same range on its slider."""
    if upper is None or not lam >= upper:
        return
    print(f"note: at lambda {lam:g} no sample goes to humans: with effort in {unit}, the "
          f"assignment on this table stops changing at lambda {upper:.4g}; use a smaller --lam "
          "(hmceval assign --json prints lambda_range)", file=sys.stderr)


def print_accuracy(res: dict, fmt, suffix: str = "") -> None:
    """The final labels' accuracy and its breakdown by group, as ``hmceval estimate`` prints
    them (``fmt`` formats one number; ``suffix`` follows the overall interval)."""
    a = res["accuracy"]
    print(f"  accuracy of final labels: {fmt(a['estimate'])}  [{fmt(a['ci_low'])}, "
          f"{fmt(a['ci_high'])}]{suffix}")
    for col, values in res.get("by_group", {}).items():
        print(f"  accuracy of final labels by {col}:")
        for value, g in values.items():
            a = g["accuracy"]
            print(f"    {value!s:>12}: {fmt(a['estimate'])}  [{fmt(a['ci_low'])}, "
                  f"{fmt(a['ci_high'])}]  ({g['M']:,} rows, {g['n_labelled']:,} labelled)")

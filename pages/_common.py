"""Streamlit glue shared by every page: session state, the active dataset, SAE parameters.

Canonical state lives in ``st.session_state`` under these keys (widget keys are only views of
them, because Streamlit drops a widget's key when its page is not shown):

=================== ===========================================================================
key                 value
=================== ===========================================================================
``data``            the active :class:`core.data.EvalData`
``data_key``        the key of the active dataset as mapped (:func:`core.scenario.data_key`
                    of its content id and column mapping; cache key of what depends on the
                    data only)
``data_source``     ``"demo"``, ``"upload"``, ``"classifier"``, ``"effort"``, ...
``lam``             lambda (float >= 0)
``share``           human share N / M (float in [0, 1]); N = int(share * M)
``mode``            ``"at_most"`` or ``"exactly"``
``constraints``     dict: ``effort_budget_share`` (float or None), ``group_column`` (str or
                    None), ``group_bounds`` (dict group -> [min, max])
``upload``          the last uploaded file: dict(name, bytes); kept when validation fails
``evaluate``        the Evaluate page's settings: dict(kind, audit, seed, alpha, delta,
                    calibration, cert_lam, target_half_width, round_id)
``dataset_id``      the workspace id of the active dataset, once it is stored there
=================== ===========================================================================

``lam``, ``share``, ``mode`` and ``constraints`` are the settings of the live
:class:`core.scenario.Scenario`, built once per change (:func:`current_scenario`; every cache of
a result is keyed on its ``key``), saved per dataset in the workspace as they change and
restored whenever that dataset becomes active (:func:`set_data`): a reload, a new tab or a
restart keeps them, and a dataset never takes another's.

Saved work (datasets, scenarios, label rounds, labels, results) lives in the workspace
(:mod:`core.workspace`), which survives reloads and restarts; the sidebar restores a scenario.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from core.data import EvalData, prepare
from core.data.content import content_id
from core.demo import make_demo
from core.errors import DataError
from core.assignment import (Assignment, Constraints, LambdaRange, SAEInputs, lambda_grid,
                             lambda_range, sweep)
from core.format import count, setting_number
from core.scenario import (SETTING_KEYS, Scenario, assignment_report, constraints_of, data_key,
                           default_settings, scenario_for, settings_differences, settings_of)
from core.scenario import assignment as scenario_assignment
from core.summary import data_effort_unit, per_unit

DEFAULTS: dict[str, Any] = {
    **default_settings(),
    "evaluate": {"kind": "budget", "audit": 200, "seed": 0, "alpha": 0.05, "delta": 0.1,
                 "guarantee": "kept", "epsilon": 0.05,
                 "calibration": 1000, "cert_lam": 0.0, "target_half_width": 0.01,
                 "round_id": None, "design": "routing", "budget_in": "labels", "labels": None,
                 "effort_budget": None},
}


@dataclass(frozen=True)
class Params:
    """The current SAE parameters: the live :class:`core.scenario.Scenario` and its extra
    constraints resolved against the data (built once per change, :func:`current_scenario`)."""

    lam: float
    share: float
    n_human: int
    mode: str
    constraints: Constraints | None
    constraints_error: DataError | None = None
    scenario: Scenario | None = None

    @property
    def key(self) -> str:
        """The scenario's key (every cache of a result is keyed on it; never on ``label``)."""
        return self.scenario.key

    @property
    def label(self) -> str:
        mode = "at most" if self.mode == "at_most" else "exactly"
        return (f"λ = {setting_number(self.lam)}, N = {count(self.n_human)} ({mode}, {100 * self.share:.1f}% of the "
                "samples)")


# ------------------------------------------------------------------------------- state
@st.cache_data(show_spinner=False)
def demo_frame() -> pd.DataFrame:
    return make_demo()


def fingerprint(df: pd.DataFrame, roles: dict | None = None) -> str:
    """Key of a table and its role mapping (the cache key of everything derived):
    :func:`core.scenario.data_key` of its content id. A dataset's own is ``data_key`` of its
    :attr:`EvalData.content_id`, computed once per loaded table."""
    return data_key(content_id(df), roles)


def init_state() -> None:
    """Set defaults once per session. The active dataset of a new session is the one of the
    workspace's latest round, so a reload or a restart resumes the evaluation under way; with
    no round (or when it cannot be read, said in the sidebar) it is the built-in demo."""
    ss = st.session_state
    # settings a caller set before the first run (a page test, the bench) win over the
    # dataset's saved ones
    preset = {k: ss[k] for k in SETTING_KEYS if k in ss} if "data" not in ss else {}
    for key, value in DEFAULTS.items():
        if key not in ss:
            ss[key] = json.loads(json.dumps(value))
    if "data" not in ss:
        if not resume_latest_round():
            load_demo()
        for key, value in preset.items():
            ss[key] = value


def resume_latest_round() -> bool:
    """Reopen the work under way: the dataset last made active in the workspace (an upload, a
    saved dataset made active, a planned round's), else the dataset of the latest round, with
    its latest round selected on the Evaluate page. False when there is nothing to reopen or
    the workspace cannot be read (the error is kept in ``_resume_error``, shown in the
    sidebar)."""
    from core.workspace.rounds import data_from_workspace

    ss = st.session_state
    try:
        ws = get_workspace()
        rounds = ws.list_rounds()
        dsid = ws.last_active()
        if dsid == "demo":  # the user chose the demo last
            return False
        if dsid is None:
            if rounds.empty:
                return False
            dsid = int(rounds.iloc[0]["dataset_id"])  # newest first
        data = data_from_workspace(ws, dsid)
        set_data(data, source="workspace")
    except DataError as exc:
        ss["_resume_error"] = f"The last dataset of the workspace could not be reopened: {exc}"
        return False
    ss["dataset_id"] = dsid
    own = rounds[rounds["dataset_id"] == dsid]
    if not own.empty:
        rid = int(own.iloc[0]["id"])
        ss["evaluate"] = {**ss["evaluate"], "round_id": rid}
        where = f"'{data.name}', with its latest round (#{rid})"
    else:
        where = f"'{data.name}'"
    ss["_resumed"] = (f"Resumed where the work stopped: {where}, the dataset last made active. "
                      "Other datasets are under Saved datasets below.")
    return True


def remember_active(data: EvalData, *, source: str) -> str | None:
    """Store ``data`` in the workspace and record it as the last active dataset, so a reload
    or a restart reopens it; the error message when that fails (the data stays active for
    this session)."""
    try:
        ws = get_workspace()
        if ws.read_only:  # looked at, never written (the sidebar says so)
            return None
        if source == "demo":  # reopened from the code, never stored
            ws.remember_active(None)
            return None
        dsid = store_dataset(ws, data, source=source)
        ws.remember_active(dsid)
    except DataError as exc:
        return str(exc)
    st.session_state["dataset_id"] = dsid
    return None


def store_dataset(ws, data: EvalData, *, source: str) -> int:
    """Store the dataset (as loaded, with its column mapping) once, under the content id it
    already has (not hashed again); its workspace id."""
    return ws.add_dataset(data.raw, name=data.name, roles=dict(data.roles), source=source,
                          content_id=data.content_id)


def load_demo() -> None:
    """Make the built-in demo data the active dataset (the Home page's one-click start)."""
    set_data(prepare(demo_frame(), name="Built-in demo"), source="demo")


def set_data(data: EvalData, *, source: str) -> None:
    """Make ``data`` the active dataset (derived caches are keyed on its fingerprint)."""
    ss = st.session_state
    key = data_key(data.content_id, data.roles)  # first: if it fails, the active dataset stays
    if "data" in ss and ss.get("data_key") != key:  # the leaving dataset's settings are kept
        try:
            save_settings(scenario_for(ss["data"], {k: ss[k] for k in SETTING_KEYS if k in ss}))
        except DataError:
            pass
    ss.pop("_resumed", None)
    ss.pop("_lam_note", None)  # the previous dataset's notice is not this one's
    ss["data"] = data
    ss["data_key"] = key
    ss["data_source"] = source
    _load_settings(key)
    cons = ss.get("constraints") or {}
    if cons.get("group_column") and cons["group_column"] not in data.frame.columns:
        ss["constraints"] = json.loads(json.dumps(DEFAULTS["constraints"]))
    _fit_lambda_to_data()


def _load_settings(key: str) -> None:
    """Make the settings of the dataset ``key`` the session's: the ones last saved for it in
    the workspace, else the defaults (never the previous dataset's: a λ is in its dataset's
    effort units). A workspace that cannot be read gives the defaults."""
    ss = st.session_state
    settings = default_settings()
    try:
        saved = get_workspace().live_settings(key)
    except DataError:
        saved = None
    if isinstance(saved, dict):
        settings.update({k: saved[k] for k in SETTING_KEYS if k in saved})
    for k in SETTING_KEYS:
        ss[k] = json.loads(json.dumps(settings[k]))
    ss["_settings_saved"] = (key, settings)


def lambda_below_pivot(rng: LambdaRange) -> float | None:
    """The largest step of the λ slider's grid (:func:`core.assignment.lambda_grid`) below
    ``rng.pivot``, the λ under which every sample N allows goes to humans; None when there is
    no such step."""
    if rng.pivot is None or not 0 < rng.pivot < math.inf:
        return None
    below = [v for v in lambda_grid(rng.upper, lower=rng.first) if v < rng.pivot]
    return below[-1] if below else None


def _fit_lambda_to_data() -> None:
    """A λ kept from the previous dataset and beyond the new one's whole range (say 4.6 from the
    demo on efforts in seconds, whose range ends at 0.056) routes nothing: it is set to the
    largest slider step at which every sample N allows still goes to humans (0 without one),
    and ``_lam_note`` says so (shown once by the Trade-off page)."""
    ss = st.session_state
    lam = float(ss["lam"])
    full = data_lambda_range()
    if full.upper <= 0 or lam <= full.upper:
        return
    new = lambda_below_pivot(current_lambda_range())
    new = 0.0 if new is None else float(new)
    ss["lam"] = new
    unit = per_unit(data_effort_unit(get_data()))
    ss["_lam_note"] = (f"λ was {setting_number(lam)}: on this dataset (λ from 0 to {setting_number(full.upper)}, {unit}) "
                       f"that weighs effort so heavily that no sample would go to humans. It is "
                       f"now {setting_number(new)}"
                       + (": the largest λ on the slider at which humans still get all N "
                          "samples the budget allows." if new > 0 else "."))


def get_data() -> EvalData:
    """The active dataset (the demo when nothing else was chosen)."""
    init_state()
    return st.session_state["data"]


def get_params() -> Params:
    """The current SAE parameters: :func:`current_scenario`."""
    return current_scenario()


def current_scenario() -> Params:
    """The live scenario and its extra constraints resolved against the active data, built
    once per change of the data or a setting (:func:`build_params`) and otherwise read back:
    one build per rerun at most, however many times a page and its helpers ask. A new build
    is saved in the workspace as the dataset's settings (:func:`save_settings`).

    Settings the data refuses (e.g. a subgroup that does not occur) leave ``constraints`` None
    and keep the :class:`DataError` in ``constraints_error``; :func:`current_assignment` raises
    it, so a page shows it with ``st.error`` instead of solving without the constraint.
    """
    ss = st.session_state
    if "data" not in ss:
        init_state()
    # exact: json writes a float's shortest repr, which reads back to the same float
    sig = (ss["data_key"], json.dumps({k: ss[k] for k in SETTING_KEYS}, sort_keys=True,
                                      default=str))
    memo = ss.get("_scenario")
    if memo is not None and memo[0] == sig:
        return memo[1]
    params = build_params(ss["data"], {k: ss[k] for k in SETTING_KEYS})
    ss["_scenario"] = (sig, params)
    save_settings(params.scenario)
    return params


def build_params(data: EvalData, settings: dict) -> Params:
    """The :class:`Params` of ``settings`` on ``data`` (:func:`core.scenario.scenario_for`
    and :func:`core.scenario.constraints_of`, the same as ``hmceval assign``)."""
    sc = scenario_for(data, settings)
    try:
        constraints, error = constraints_of(data, sc), None
    except DataError as exc:
        constraints, error = None, exc
    return Params(lam=sc.lam, share=sc.share, n_human=sc.n_human, mode=sc.mode,
                  constraints=constraints, constraints_error=error, scenario=sc)


def build_constraints(data: EvalData, spec: dict) -> Constraints | None:
    """The UI's constraint settings (session key ``constraints``) as
    :class:`core.assignment.Constraints` (:func:`core.scenario.constraints_of`, the same
    :func:`core.assignment.constraints_from_settings` as ``hmceval assign``); None when unset.

    Raises
    ------
    DataError
        Settings the data refuses, naming the subgroup or value.
    """
    return constraints_of(data, scenario_for(data, {"constraints": spec}))


def save_settings(sc: Scenario) -> None:
    """Save the scenario's settings as its dataset's in the workspace, when they changed
    (a workspace that cannot be written is said in the sidebar; the session keeps them)."""
    ss = st.session_state
    settings = settings_of(sc)
    if ss.get("_settings_saved") == (ss["data_key"], settings):
        return
    try:
        ws = get_workspace()
        if ws.read_only:  # looked at, never written (the sidebar says so)
            return
        ws.save_live_settings(ss["data_key"], settings)
    except DataError as exc:
        ss["_settings_error"] = f"Settings not saved in the workspace: {exc}"
        return
    ss.pop("_settings_error", None)
    ss["_settings_saved"] = (ss["data_key"], settings)


# ------------------------------------------------------------------------------- cached work
@st.cache_data(show_spinner=False, max_entries=64)
def _solve_cached(scenario_key: str, _inp: SAEInputs, _sc: Scenario,
                  _constraints: Constraints | None) -> Assignment:
    return scenario_assignment(_inp, _sc, _constraints)


@st.cache_resource(show_spinner=False, max_entries=32)
def _inputs_cached(data_key: str, _data: EvalData) -> SAEInputs:
    # a resource, not a copy per call: the arrays are only read, and the labels' encoding
    # (SAEInputs.label_codes) is computed once per dataset on this one object
    return SAEInputs.from_data(_data)


def sae_inputs() -> SAEInputs:
    """The active dataset's SAE arrays (cached on its key)."""
    if "data" not in st.session_state:
        init_state()
    return _inputs_cached(st.session_state["data_key"], st.session_state["data"])


def current_assignment() -> tuple[SAEInputs, Assignment]:
    """The assignment at the current parameters (cached on data, parameters and constraints).

    Raises
    ------
    DataError
        When the extra constraints are infeasible or the solver fails.
    """
    p = get_params()
    if p.constraints_error is not None:
        raise p.constraints_error
    inp = sae_inputs()
    return inp, _solve_cached(p.key, inp, p.scenario, p.constraints)


@st.cache_data(show_spinner=False, max_entries=64)
def _lambda_range_cached(data_key: str, _inp: SAEInputs, n_human: int, mode: str,
                         _sc: Scenario) -> LambdaRange:
    return lambda_range(_inp, n_human=_sc.n_human, mode=_sc.mode)


def current_lambda_range() -> LambdaRange:
    """:func:`core.assignment.lambda_range` of the active data at the current N and mode
    (cached on the scenario's dataset, N and mode: it does not depend on λ)."""
    p = get_params()
    return _lambda_range_cached(st.session_state["data_key"], sae_inputs(), p.n_human, p.mode,
                                p.scenario)


@st.cache_data(show_spinner=False, max_entries=8)
def _data_lambda_range_cached(data_key: str, _inp: SAEInputs) -> LambdaRange:
    return lambda_range(_inp, n_human=_inp.M, mode="at_most")


def data_lambda_range() -> LambdaRange:
    """:func:`core.assignment.lambda_range` of the active data with every sample allowed to humans
    ("at most" M): a range that does not move with N or the mode (the Trade-off page's
    frontier grid); cached on the data."""
    return _data_lambda_range_cached(st.session_state["data_key"], sae_inputs())


@st.cache_data(show_spinner=False, max_entries=64)
def _result_cached(scenario_key: str, _data: EvalData, _inp: SAEInputs, _assignment: Assignment,
                   _lam_range: LambdaRange) -> dict:
    return assignment_report(_data, _inp, _assignment, lam_range=_lam_range)


def current_result() -> tuple[SAEInputs, Assignment, dict]:
    """The assignment at the current parameters and its metrics object
    (:func:`core.assignment.report.assignment_json`, with the cached λ range), cached like
    :func:`current_assignment`.

    Raises
    ------
    DataError
        As :func:`current_assignment`.
    """
    inp, assignment = current_assignment()
    p = get_params()
    res = _result_cached(p.key, st.session_state["data"], inp, assignment,
                         current_lambda_range())
    return inp, assignment, res


@st.cache_data(show_spinner=False, max_entries=64)
def cached_sweep(data_key: str, _inp: SAEInputs, lams: tuple, shares: tuple | None,
                 n_values: tuple | None, mode: str) -> pd.DataFrame:
    """:func:`core.assignment.sweep`, cached on the data fingerprint and the grid."""
    return sweep(_inp, lams=list(lams), shares=None if shares is None else list(shares),
                 n_values=None if n_values is None else list(n_values), mode=mode)


def current_sweep(lams, *, shares=None, n_values=None, mode: str | None = None) -> pd.DataFrame:
    """A sweep of the active dataset in ``mode`` (default: the current mode), cached; of a
    large table (:func:`pages._large.is_large`), of its seeded sample of rows, budgets in
    samples taken as the same share of the sample (the charts say so)."""
    from pages._large import is_large, sample_budget, sample_inputs

    inp = sae_inputs()
    if is_large(inp.M):
        m = inp.M
        key = st.session_state["data_key"] + ":sample"
        if key not in st.session_state:  # the sample's inputs, kept per dataset
            st.session_state[key] = sample_inputs(inp)
        if n_values is not None:
            n_values = [sample_budget(n, m) for n in n_values]
        return cached_sweep(key, st.session_state[key], tuple(map(float, lams)),
                            None if shares is None else tuple(map(float, shares)),
                            None if n_values is None else tuple(map(int, n_values)),
                            mode or st.session_state["mode"])
    return cached_sweep(st.session_state["data_key"], inp, tuple(map(float, lams)),
                        None if shares is None else tuple(map(float, shares)),
                        None if n_values is None else tuple(map(int, n_values)),
                        mode or st.session_state["mode"])


# ------------------------------------------------------------------------------- widgets
def _copy(widget_key: str, state_key: str) -> None:
    st.session_state[state_key] = st.session_state[widget_key]


def synced(widget, label: str, state_key: str, *, wkey: str | None = None, **kwargs):
    """Render ``widget`` (e.g. ``st.slider``) as a view of ``st.session_state[state_key]``.

    The widget's key is ``_w_<state_key>`` unless ``wkey`` names another (two widgets on one
    value, e.g. a slider and a number box, each need their own key).
    """
    wkey = wkey or f"_w_{state_key}"
    if st.session_state.get(wkey) != st.session_state[state_key]:
        st.session_state[wkey] = st.session_state[state_key]
    if widget is st.number_input:
        kwargs["help"] = range_help(kwargs.get("help"), kwargs.get("min_value"),
                                    kwargs.get("max_value"))
    return widget(label, key=wkey, on_change=_copy, args=(wkey, state_key), **kwargs)


def _bound(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{count(int(x))}"
    return f"{setting_number(x)}"


def range_help(help: str | None, lo: float | None, hi: float | None) -> str | None:
    """``help`` of a number box with its allowed range appended ("Allowed: 1 to 20."). A typed
    value outside the range is not taken: the browser shows a short notice and keeps the last
    value, so the range must be readable before typing."""
    if lo is None and hi is None:
        return help
    # a bound of 10^15 or more stands for none (written out it read "-1e+15", issue 33)
    lo = None if lo is not None and lo <= -1e15 else lo
    hi = None if hi is not None and hi >= 1e15 else hi
    if lo is None and hi is None:
        allowed = "Allowed: any number."
    elif hi is None:
        allowed = f"Allowed: {_bound(lo)} or more."
    elif lo is None:
        allowed = f"Allowed: up to {_bound(hi)}."
    else:
        allowed = f"Allowed: {_bound(lo)} to {_bound(hi)}."
    return f"{help} {allowed}" if help else allowed


def column_config(df: pd.DataFrame, order: list[str], columns: dict, *, helps: dict | None = None,
                  widths: dict | None = None, right: set | frozenset = frozenset()) -> dict:
    """``st.dataframe``'s column_config for the columns in ``order``: header, tooltip and width in
    pixels from ``columns`` (column -> (header, tooltip, width, ...); ``helps`` and ``widths``
    override), the column type from its values (checkbox, number, else text; the text columns in
    ``right`` aligned right, as numbers written as text)."""
    config = {}
    for col in order:
        label, help_, width = columns[col][:3]
        kind = df[col].dtype.kind
        kwargs = {"help": (helps or {}).get(col, help_), "width": (widths or {}).get(col, width)}
        if kind == "b":
            config[col] = st.column_config.CheckboxColumn(label, **kwargs)
        elif kind in "iuf":
            config[col] = st.column_config.NumberColumn(label, **kwargs)
        else:
            config[col] = st.column_config.TextColumn(
                label, alignment="right" if col in right else None, **kwargs)
    return config


def next_step(page: str | None, label: str, why: str = "") -> None:
    """End a page with the next step of the workflow: a link to ``pages/<page>``, a page declared
    in ``pages/_registry.py`` (``ValueError`` otherwise), or, when ``page`` is None, a step on
    this same page (shown as text).

    Run on its own (a page test, without the app's navigation) the page shows the step as text.
    """
    from streamlit.errors import StreamlitAPIException

    from pages._registry import page_path

    path = None if page is None else page_path(page)  # a page renamed away fails here
    st.divider()
    if path is None:
        st.markdown(f"**Next: {label}**")
    else:
        try:
            st.page_link(path, label=f"Next: {label}", icon="➡️")
        except StreamlitAPIException:
            st.markdown(f"**Next: {label}**")
    if why:
        st.caption(why)


#: What makes markdown active content: images and links (``[``, ``]``), HTML and autolinks
#: (``<``, ``>``), code spans and the escape itself; emphasis characters (``_``, ``*``) are
#: left, so a column name such as machine_confidence reads as written in messages
_MARKDOWN = re.compile(r"([\\`\[\]<>$])")


def md(value: Any) -> str:
    """``value`` as text that Streamlit's markdown cannot turn into active content: brackets,
    angle brackets, backticks and dollars escaped, so a file name, column name or cell like
    ``![x](http://host/x)`` is never an image the browser fetches, a link, HTML, a colour
    directive (``:red[...]``) or LaTeX (issue 24). Use it for
    every piece of data in ``st.markdown``/``caption``/``error``/``warning``/``info``/
    ``success``/``subheader``."""
    return _MARKDOWN.sub(r"\\\1", str(value))


def code(value: Any) -> str:
    """``value`` as an inline code span (inert: markdown is not read inside one), or escaped
    (:func:`md`) when it holds a backtick that would end the span."""
    text = str(value)
    return md(text) if "`" in text or "\n" in text else f"`{text}`"


def show_error(exc: BaseException, *, context: str = "") -> None:
    """Show a user-facing error (``DataError`` message; other errors summarised, no traceback).
    The message names columns, rows and values of the user's data: shown escaped (:func:`md`)."""
    prefix = f"{context}: " if context else ""
    if isinstance(exc, DataError):
        st.error(prefix + md(exc))
    else:
        st.error(f"{prefix}unexpected {type(exc).__name__}: {md(exc)}")


def sidebar() -> None:
    """Sidebar block naming the active dataset and the current parameters, and the
    workspace's saved scenarios."""
    data = get_data()
    p = get_params()
    with st.sidebar:
        st.markdown("**Active dataset**")
        st.caption(f"{md(data.name)} · {count(data.M)} samples · {len(data.labels)} classes")
        if st.session_state.get("_resumed") and st.session_state.get("data_source") == "workspace":
            st.caption(st.session_state["_resumed"])
        if st.session_state.get("_resume_error"):
            st.error(md(st.session_state["_resume_error"]))
        gold = "gold labels ✓" if data.has_gold else "no gold labels"
        st.caption(f"{gold} · confidence: {code(data.roles.get('machine_confidence'))} · "
                   f"effort: {data.effort_source.replace('_', ' ')}")
        st.markdown("**Current assignment**")
        # a place of its own, kept in the session: a page's fragment (the Trade-off page's moves
        # of N and λ, which do not rerun this script) writes the new setting there
        slot = st.empty()
        slot.caption(setting_caption(p))
        st.session_state["_sidebar_setting"] = slot
    workspace_sidebar()


def setting_caption(p: Params) -> str:
    """The sidebar's line on the current assignment (its setting, and whether extra constraints
    hold or were refused)."""
    return (p.label + (" · extra constraints" if p.constraints else "")
            + (" · extra constraints refused" if p.constraints_error else ""))


def _setting_text(name: str, value: Any) -> str:
    if name == "lam":
        return f"λ = {setting_number(value)}"
    if name == "share":
        return f"N / M = {setting_number(100 * float(value))}%"
    if name == "mode":
        return "at most N" if value == "at_most" else "exactly N"
    spec = value or {}
    parts = []
    if spec.get("effort_budget_share") is not None:
        parts.append(f"effort budget {setting_number(100 * float(spec['effort_budget_share']))}%")
    if spec.get("group_bounds"):
        parts.append(f"share bounds on {md(spec.get('group_column'))}")
    return "constraints: " + (", ".join(parts) if parts else "none")


def round_settings_note(round_id: int, used: dict, params: Params) -> None:
    """Say, beside a round's results, which settings the round was planned with when they
    differ from the current ones (the plan shown above follows the current settings)."""
    if "alpha" in used or "overall_error" in used or used.get("design") in ("active", "random", "pilot"):
        return  # its λ is the ranking's or the design's own, not the Trade-off page's
    diff = settings_differences(used, settings_of(params.scenario))
    if not diff:
        return
    was = ", ".join(_setting_text(n, a) for n, a, _ in diff)
    now = ", ".join(_setting_text(n, b) for n, _, b in diff)
    st.info(f"Round #{round_id} was planned with {was}; the current settings are {now}. Its "
            "queue, labels and results below are the round's, at its own settings.")


# ------------------------------------------------------------------------------- workspace
@st.cache_resource(show_spinner=False)
def _workspace(root: str):
    from core.workspace import Workspace

    return Workspace(root)


def get_workspace():
    """The workspace (``$HMCEVAL_WORKSPACE`` or ``~/.hmceval/workspace``), opened once per
    server process and folder."""
    from core.workspace import default_root

    return _workspace(str(default_root()))


#: why a button that would write to the workspace is greyed out (its help text)
READ_ONLY_HELP = ("The workspace is read-only: it can be looked at, nothing can be saved to it "
                  "(start the app with HMCEVAL_WORKSPACE set to a folder you can write).")


def workspace_read_only() -> bool:
    """True when the workspace opened for reading only (a read-only folder or database file;
    an unavailable workspace is reported where it is used)."""
    try:
        return bool(get_workspace().read_only)
    except DataError:
        return False


def writes(*, disabled: bool = False, help: str | None = None) -> dict[str, Any]:
    """The ``disabled`` and ``help`` arguments of a button that writes to the workspace (save,
    plan, import, certify, push/pull): greyed out, with :data:`READ_ONLY_HELP` saying why, when
    the workspace is read-only (issue 24); otherwise ``disabled`` and ``help`` as given.
    ``st.button("Plan the round", **writes(disabled=settings is None))``."""
    if workspace_read_only():
        return {"disabled": True, "help": READ_ONLY_HELP}
    return {"disabled": disabled, "help": help}


def scenario_settings() -> dict[str, Any]:
    """The session's scenario: SAE parameters, constraints and the Evaluate settings."""
    ss = st.session_state
    return json.loads(json.dumps({"lam": ss["lam"], "share": ss["share"], "mode": ss["mode"],
                                  "constraints": ss["constraints"],
                                  "evaluate": ss["evaluate"]}, default=str))


def save_scenario(name: str) -> int:
    """Store the active dataset (once) and the session's scenario under ``name``."""
    ws = get_workspace()
    dsid = store_dataset(ws, get_data(), source=st.session_state.get("data_source", "session"))
    st.session_state["dataset_id"] = dsid
    return ws.save_scenario(name, dsid, scenario_settings())


def restore_scenario(key: int | str) -> None:
    """Make a saved scenario the session's state exactly: its dataset (with its column
    mapping), N, lambda, mode, constraints and Evaluate settings (and round)."""
    from core.workspace.rounds import data_from_workspace

    ws = get_workspace()
    sc = ws.scenario(key)
    data = data_from_workspace(ws, sc["dataset_id"])
    set_data(data, source="workspace")
    ss = st.session_state
    ss["dataset_id"] = sc["dataset_id"]
    if not ws.read_only:  # a read-only workspace is looked at, never written
        ws.remember_active(sc["dataset_id"])
    settings = sc["settings"]
    for k in ("lam", "share", "mode", "constraints"):
        if k in settings:
            ss[k] = settings[k]
    ev = json.loads(json.dumps(DEFAULTS["evaluate"]))
    ev.update(settings.get("evaluate") or {})
    ss["evaluate"] = ev


def _restore_clicked(key: str) -> None:
    choice = st.session_state.get(key)
    if choice:
        try:
            restore_scenario(int(choice.split(" ", 1)[0].lstrip("#")))
            st.session_state["_restore_error"] = None
        except DataError as exc:
            st.session_state["_restore_error"] = str(exc)


def _open_clicked(key: str) -> None:
    from core.workspace.rounds import data_from_workspace

    choice = st.session_state.get(key)
    if choice:
        try:
            dsid = int(choice.split(" ", 1)[0].lstrip("#"))
            set_data(data_from_workspace(get_workspace(), dsid), source="workspace")
            if not get_workspace().read_only:
                get_workspace().remember_active(dsid)
            st.session_state["dataset_id"] = dsid
            st.session_state["_restore_error"] = None
        except DataError as exc:
            st.session_state["_restore_error"] = str(exc)


def workspace_sidebar() -> None:
    """Saved scenarios and datasets of the workspace, with a one-click restore."""
    try:
        ws = get_workspace()
        scenarios = ws.list_scenarios()
        datasets = ws.list_datasets()
    except DataError as exc:
        with st.sidebar:
            st.error(f"Workspace unavailable: {md(exc)}")
        return
    with st.sidebar:
        st.markdown("**Workspace**")
        if ws.read_only:
            st.info("This workspace is read-only: its datasets and scenarios can be opened, "
                    "nothing is saved to it (set HMCEVAL_WORKSPACE to a folder you can write).")
        st.caption(f"{code(ws.root)} · {len(datasets)} dataset{'' if len(datasets) == 1 else 's'} · "
                   f"{len(scenarios)} scenario{'' if len(scenarios) == 1 else 's'}")
        if len(scenarios):
            options = [f"#{r.id} {r.name} ({r.dataset})" for r in scenarios.itertuples()]
            st.selectbox("Saved scenarios", options, key="_w_restore_choice")
            st.button("Restore scenario", key="_w_restore", on_click=_restore_clicked,
                      args=("_w_restore_choice",), width="stretch")
            if st.session_state.get("_restore_error"):
                st.error(md(st.session_state["_restore_error"]))
        else:
            st.caption("No saved scenario yet: save one on the Evaluate page.")
        if len(datasets):
            with st.expander(f"Saved datasets ({len(datasets)})"):
                options = [f"#{r.id} {r.name} ({count(r.n_rows)} rows)" for r in datasets.itertuples()]
                st.selectbox("Dataset", options, key="_w_open_choice")
                st.button("Make active", key="_w_open", on_click=_open_clicked,
                          args=("_w_open_choice",), width="stretch")

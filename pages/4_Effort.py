"""Effort page: the HEE random-forest effort model, its metrics, correlations and importances,
and sending the predicted effort to the active dataset for the sample assignment."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.data import load_table
from core.defaults import HEE_FOLDS, HEE_N_ESTIMATORS, HEE_PERMUTATION_REPEATS
from core import defaults
from core.errors import DataError
from core.format import count, plain_number
from core.hee import (DEFAULT_MAX_FEATURES, DEFAULT_RANDOM_STATE, DIALOGUE_FEATURES, FEATURE_ALIASES,
                      ID_ALIASES, SPLIT_ALIASES, TIME_ALIASES, TURN_PARAPHRASED_ALIASES, EffortResult,
                      detect_column, effort_data_problems, effort_samples, estimate_effort,
                      features_from_samples, load_masked_lm, per_sample_effort,
                      effort_notices, resolve_feature_set)
from core.hee.model import SEED_MAX
from pages._common import fingerprint, get_data, init_state, md, next_step, set_data, show_error, synced
from pages._effort_campaign import campaign_section
from pages._effort_inputs import lm_choice, pick
from pages._effort_results import show_results
from pages._warm import effort_features, effort_fit

init_state()
ss = st.session_state

# Canonical state of this page (widgets are views of these keys):
#   eff_source   "active" or "upload"
#   eff_upload   the last uploaded annotation log: dict(name, bytes); kept when it fails to load
#   eff_kind     "dialogue" (one row per dialogue with feature columns) or "turn" (turn texts)
#   eff_map      dict of column choices for the uploaded table
#   eff_label    "machine_label" or "human_label": turn labels used for the malevolent counts
#   eff_lm       name of the masked LM (a model of the models folder) for the perplexity feature
#                ("" = skipped)
#   eff_sets     chosen feature sets ("D", "D+W", "W", "custom")
#   eff_custom   columns of the custom set
#   eff_eval     "cv" or "split";  eff_folds, eff_split_col, eff_max_features (0 = paper's rule),
#   eff_seed, eff_perm (permutation repeats), eff_send_set
for key, value in {"eff_source": "active", "eff_kind": "dialogue", "eff_map": {},
                   "eff_label": "machine_label", "eff_lm": "", "eff_sets": ["D", "D+W"],
                   "eff_custom": [], "eff_eval": "cv", "eff_folds": HEE_FOLDS, "eff_split_col": None,
                   "eff_max_features": 0, "eff_seed": DEFAULT_RANDOM_STATE, "eff_perm": HEE_PERMUTATION_REPEATS,
                   "eff_send_set": None}.items():
    ss.setdefault(key, value)

st.title("Effort")
st.caption(
    "Predicts how long a person needs to label each dialogue, so that the assignment can send "
    "humans the samples that are quick to check. The prediction learns from dialogues whose "
    "labelling time was recorded, using features of the dialogue (**D**: number of turns, "
    "harmful and harmless turns, first submission, paraphrased turns, length, readability, how "
    "surprising the text is to a language model) and of the worker (**W**: test score, "
    "approval ranking). A response's effort is its dialogue's predicted time (scaled to 0-1) "
    "divided by its number of turns. The model is a random forest of "
    f"{HEE_N_ESTIMATORS} decision trees.",
    help="The paper calls this step HEE, human effort estimation (section 3.4).",
)


# ----------------------------------------------------------------------------- cached work
@st.cache_data(show_spinner="Reading the annotation log…", max_entries=8)
def _read(name: str, content: bytes) -> pd.DataFrame:
    return load_table(content, name=name)


@st.cache_resource(show_spinner="Loading the masked language model…", max_entries=2)
def _scorer(path: str):
    return load_masked_lm(path)


@st.cache_data(show_spinner="Extracting dialogue features (readability, counts, perplexity)…",
               max_entries=16)
def _extract(key: str, _samples: pd.DataFrame, cols: tuple, lm_dir: str):
    if not lm_dir and (ahead := effort_features(key, cols)) is not None:
        return ahead  # the demo's, computed in the background at start (pages/_warm.py)
    c = dict(cols)
    scorer = _scorer(lm_dir) if lm_dir else None
    return features_from_samples(_samples, scorer=scorer, **c)


@st.cache_data(show_spinner="Fitting the effort model…", max_entries=32)
def _fit(key: str, _table: pd.DataFrame, time_col: str, spec: tuple | str, optional: tuple,
         folds: int, split_col: str | None, max_features: int | None, seed: int, perm: int,
         id_col: str | None, turns_col: str | None) -> EffortResult:
    ahead = effort_fit((key, time_col, spec, tuple(optional), folds, split_col, max_features,
                        seed, perm, id_col, turns_col))
    if ahead is not None:
        return ahead  # the demo's, computed in the background at start (pages/_warm.py)
    return estimate_effort(_table, time_col=time_col, features=spec if isinstance(spec, str) else list(spec),
                           n_splits=folds, split_col=split_col, max_features=max_features,
                           random_state=seed, n_jobs=2, permutation_repeats=perm,
                           optional_features=optional, id_col=id_col, turns_col=turns_col)


@st.cache_resource(show_spinner="Collecting the dataset's dialogues and turns…", max_entries=8)
def _samples(data_key: str, _data, text_col: str, label_col: str):
    # the dataset's samples as the model's input, and their fingerprint (the features' cache
    # key): once per dataset and choice, not on every rerun (a resource: only read)
    prepared = effort_samples(_data, text_col=text_col, label_col=label_col)
    return prepared, fingerprint(prepared.samples)


# ----------------------------------------------------------------------------- the data
synced(st.radio, "Data", "eff_source", options=["active", "upload"], horizontal=True,
       format_func={"active": "Active dataset (turn texts)", "upload": "Upload an annotation log"}.get)

table: pd.DataFrame | None = None      # one row per dialogue
table_key = ""
time_col = id_col = turns_col = None
optional: tuple = ("perplexity",)
notices: list[str] = []
data = get_data()

if ss["eff_source"] == "active":
    st.caption(f"**{md(data.name)}** · {count(data.M)} samples. Features are computed from the turn texts; "
               "the target is the dialogue's ground-truth effort (the samples' human effort summed "
               "per dialogue, in the dataset's units).")
    problems = effort_data_problems(data)
    if problems:
        st.info("This page needs dialogues with turn texts and a recorded labelling time, which "
                "the active dataset does not have (" + "; ".join(problems) + "). Upload an "
                "annotation log above, or skip this step: the assignment uses the effort the "
                "dataset already has.")
    else:
        c1, c2, c3 = st.columns(3)
        with c1:
            text_col = pick("Turn text", data.text_columns, "text_active", allow_none=False)
        with c2:
            label_opts = ["machine_label"] + (["human_label"] if data.has_gold else [])
            if ss["eff_label"] not in label_opts:
                ss["eff_label"] = "machine_label"
            synced(st.selectbox, "Malevolent turns from", "eff_label", options=label_opts,
                   format_func={"machine_label": "machine labels (as when predicting)",
                                "human_label": "gold labels"}.get,
                   help="The paper counts malevolent turns with the machine classifier's labels "
                        "when predicting. Labels must be 0/1.")
        with c3:
            lm_dir = lm_choice()
        prepared, work_key = _samples(ss["data_key"], data, text_col, ss["eff_label"])
        work, cols = prepared.samples, tuple(prepared.columns.items())
        if prepared.sources:
            st.caption("Also used from the dataset: " +
                       ", ".join(f"{k} ← `{v}`" for k, v in prepared.sources.items()))
        try:
            fx = _extract(work_key + lm_dir, work, cols, lm_dir)
        except DataError as exc:
            show_error(exc, context="feature extraction")
        else:
            table, notices = fx.features, list(fx.notices)
            time_col, id_col, turns_col = "time", "dialogue_id", "total_turns"
            optional = DIALOGUE_FEATURES  # features absent from the data are named in the notices
else:
    up = st.file_uploader("Annotation log (CSV, TSV, Parquet, JSON)",
                          type=["csv", "tsv", "txt", "parquet", "pq", "json", "jsonl"], key="_w_eff_upload")
    if up is not None:
        content = up.getvalue()
        if (ss.get("eff_upload") or {}).get("bytes") != content:
            ss["eff_upload"] = {"name": up.name, "bytes": content}
    upload = ss.get("eff_upload")
    raw = None
    if not upload:
        st.info("Upload a table with one row per dialogue (feature columns such as the HMCEval "
                "release's turns, Mal_number, …, worker_score, lifetime_ranking and the annotation "
                "time), or one row per turn with the turn text, the dialogue id and the time.")
    else:
        try:
            raw = _read(upload["name"], upload["bytes"])
        except DataError as exc:
            show_error(exc, context=upload["name"])
    if raw is not None:
        st.caption(f"**{md(upload['name'])}** · {count(len(raw))} rows × {raw.shape[1]} columns")
        synced(st.radio, "One row per", "eff_kind", options=["dialogue", "turn"], horizontal=True,
               format_func={"dialogue": "dialogue (feature columns)", "turn": "turn (texts)"}.get)
        cols_all = list(raw.columns)
        if ss["eff_kind"] == "dialogue":
            c1, c2 = st.columns(2)
            with c1:
                time_col = pick("Annotation time", cols_all, "time",
                                 default=detect_column(cols_all, TIME_ALIASES), allow_none=False)
            with c2:
                id_col = pick("Dialogue id", cols_all, "id", default=detect_column(cols_all, ID_ALIASES))
            table = raw
            turns_col = None
        else:
            c1, c2, c3 = st.columns(3)
            with c1:
                d_col = pick("Dialogue id", cols_all, "t_dialogue",
                              default=detect_column(cols_all, ID_ALIASES), allow_none=False)
                t_col = pick("Turn text", cols_all, "t_text",
                              default=detect_column(cols_all, ("text", "response", "utterance", "turn_text")),
                              allow_none=False)
                tm_col = pick("Annotation time of the dialogue", cols_all, "t_time",
                               default=detect_column(cols_all, TIME_ALIASES), allow_none=False)
            with c2:
                l_col = pick("Malevolent label (0/1)", cols_all, "t_label",
                              default=detect_column(cols_all, ("label", "malevolent", "machine_label",
                                                               "machine_predict")))
                p_col = pick("Paraphrased (0/1)", cols_all, "t_para",
                              default=detect_column(cols_all, TURN_PARAPHRASED_ALIASES))
                fs_col = pick("First submission (0/1)", cols_all, "t_first",
                               default=detect_column(cols_all, FEATURE_ALIASES["first_submission"]))
            with c3:
                ws_col = pick("Worker test score", cols_all, "t_ws",
                               default=detect_column(cols_all, FEATURE_ALIASES["worker_score"]))
                ar_col = pick("Approval-rate ranking", cols_all, "t_ar",
                               default=detect_column(cols_all, FEATURE_ALIASES["approval_ranking"]))
                tn_col = pick("Turn index (order)", cols_all, "t_turn",
                               default=detect_column(cols_all, ("turn", "turn_index", "turn_id")))
            lm_dir = lm_choice()
            chosen = [c for c in (d_col, t_col, tm_col, l_col, p_col, fs_col, ws_col, ar_col, tn_col) if c]
            if len(set(chosen)) != len(chosen):
                st.error("Each role needs its own column: a column is chosen twice.")
            else:
                cols = (("dialogue_col", d_col), ("text_col", t_col), ("time_col", tm_col),
                        ("label_col", l_col), ("paraphrased_col", p_col), ("first_submission_col", fs_col),
                        ("worker_score_col", ws_col), ("approval_ranking_col", ar_col),
                        ("turn_col", tn_col))
                try:
                    # the dialogue's time is checked constant across its turns by the core
                    fx = _extract(fingerprint(raw) + repr(cols) + lm_dir, raw, cols, lm_dir)
                    table, notices = fx.features, list(fx.notices)
                    time_col, id_col, turns_col = "time", "dialogue_id", "total_turns"
                    optional = DIALOGUE_FEATURES
                except DataError as exc:
                    show_error(exc, context=upload["name"])

campaign_section()  # the effort refitted on an evaluation round's own times

# ----------------------------------------------------------------------------- the model
if table is None:
    # nothing to fit: the model's settings could not be used, so they are not shown (their
    # values stay in the canonical state, synced() restores the widgets when a table comes)
    next_step("2_Trade-off.py", "Trade-off",
              "The assignment works with the effort the dataset already has; to predict effort, "
              "upload an annotation log above.")
    st.stop()
st.subheader("Feature sets and evaluation")
excluded = {time_col, id_col}
numeric_cols: list = []
split_opts: list = []
if table is not None:
    numeric_cols = [c for c in table.columns if c not in excluded
                    and pd.api.types.is_numeric_dtype(table[c])]
    ss["eff_custom"] = [c for c in ss["eff_custom"] if c in numeric_cols]
    split_opts = [c for c in table.columns
                  if c not in excluded and not pd.api.types.is_float_dtype(table[c])]
    if ss["eff_split_col"] not in split_opts:
        ss["eff_split_col"] = detect_column(split_opts, SPLIT_ALIASES)
c1, c2 = st.columns([3, 2])
with c1:
    synced(st.multiselect, "Feature sets", "eff_sets", options=["D", "D+W", "W", "custom"],
           help="D: dialogue features; W: worker features; custom: any numeric columns.")
    if "custom" in ss["eff_sets"] and table is not None:
        synced(st.multiselect, "Custom feature columns", "eff_custom", options=numeric_cols)
with c2:
    synced(st.radio, "Evaluation", "eff_eval", options=["cv", "split"], horizontal=True,
           format_func={"cv": "shuffled k-fold CV", "split": "train/test split column"}.get)
    if ss["eff_eval"] == "cv":
        synced(st.number_input, "Folds", "eff_folds", min_value=2, max_value=20, step=1)
    elif table is not None:
        synced(st.selectbox, "Split column (values 'train' / 'test')", "eff_split_col",
               options=[None] + split_opts, format_func=lambda c: "— choose —" if c is None else c)
with st.expander("Model settings"):
    s1, s2, s3 = st.columns(3)
    with s1:
        synced(st.number_input, f"Features tried per split (0 = {DEFAULT_MAX_FEATURES}, or all when fewer)",
               "eff_max_features", min_value=0, max_value=100, step=1,
               help="How many features each split of a tree may choose from (scikit-learn's "
                    "max_features).")
    with s2:
        synced(st.number_input, "Seed (folds and forest)", "eff_seed", min_value=0, max_value=SEED_MAX, step=1,
               help=f"0 to {count(SEED_MAX)}")
    with s3:
        synced(st.number_input, "Permutation-importance repeats (0 = off)", "eff_perm",
               min_value=0, max_value=20, step=1)

def _stop(why: str) -> None:
    """End the page early, still with its next step."""
    next_step("2_Trade-off.py", "Trade-off", why)
    st.stop()


if table is None:
    _stop("The assignment works with the effort the dataset already has; to predict effort, "
          "upload an annotation log above.")
table_key = fingerprint(table)
avail = {}
for spec in ("D", "D+W", "W"):
    try:
        avail[spec] = resolve_feature_set(spec, [c for c in table.columns if c not in (time_col, id_col)],
                                          optional=optional)
    except DataError as exc:
        avail[spec] = exc

specs: dict[str, object] = {}
for name in ss["eff_sets"]:
    if name == "custom":
        if ss["eff_custom"]:
            specs["custom"] = tuple(ss["eff_custom"])
        else:
            st.warning("Custom set: choose at least one column.")
    elif isinstance(avail[name], DataError):
        st.warning(f"Feature set {name} is unavailable here: {avail[name]}")
    else:
        specs[name] = name
if ss["eff_eval"] == "split" and ss["eff_split_col"] is None:
    st.warning("Choose the split column, or switch to cross-validation.")
    _stop("Or optimise the assignment with the effort the dataset already has.")
if not specs:
    if notices:
        st.info("Notes: " + "; ".join(dict.fromkeys(notices)) + ".")
    _stop("Choose a feature set above to fit the effort model, or optimise the assignment with "
          "the effort the dataset already has.")

if len(table) > defaults.EFFORT_AUTO_FIT_ROWS and ss.get("_eff_fit_for") != table_key:
    # a large table is fitted when asked: a visit must not block the page for minutes
    st.info(f"{count(len(table))} dialogues: fitting the forests ({' and '.join(specs)}, "
            f"{'cross-validated' if ss['eff_eval'] == 'cv' else 'train/test split'}) takes minutes "
            f"on a small machine (about 18 s for 18,000 dialogues on 2 cores), so it starts when you "
            "ask.")
    if not st.button("Fit the effort model", type="primary", key="_w_eff_fit"):
        _stop("Optimise the assignment; come back here to predict the effort first.")
    ss["_eff_fit_for"] = table_key

results: dict[str, EffortResult] = {}
# everything the fits depend on: the key of what is derived from them (downloads, figures)
fit_key = repr((table_key, time_col, sorted(specs.items()), tuple(optional), int(ss["eff_folds"]),
                ss["eff_split_col"] if ss["eff_eval"] == "split" else None, int(ss["eff_max_features"]),
                int(ss["eff_seed"]), int(ss["eff_perm"]), id_col, turns_col))
for name, spec in specs.items():
    try:
        results[name] = _fit(table_key, table, time_col, spec, tuple(optional), int(ss["eff_folds"]),
                             ss["eff_split_col"] if ss["eff_eval"] == "split" else None,
                             int(ss["eff_max_features"]) or None, int(ss["eff_seed"]), int(ss["eff_perm"]),
                             id_col, turns_col)
    except DataError as exc:
        show_error(exc, context=f"feature set {name}")
# one note per fact: the extraction's and every model's notes, each shown once
all_notices = effort_notices(notices, results)
if all_notices:
    st.info("Notes: " + "; ".join(all_notices) + ".")
if not results:
    _stop("No effort model could be fitted (see above); the assignment works with the effort "
          "the dataset already has.")

# ----------------------------------------------------------------------------- results
show_results(results, table, time_col=time_col, fit_key=fit_key, permutation_off=ss["eff_perm"] == 0)

# ----------------------------------------------------------------------------- send to the dataset
st.subheader("Use the predicted effort")
if ss["eff_send_set"] not in results:
    ss["eff_send_set"] = "D+W" if "D+W" in results else next(iter(results))
synced(st.selectbox, "Predictions of", "eff_send_set", options=list(results))
chosen = results[ss["eff_send_set"]]
st.caption("Each response of the active dataset gets its dialogue's held-out predicted time "
           "(normalised) divided by the dialogue's number of turns, joined by dialogue id; the "
           "Trade-off page then optimises with it.")
can_send = True
if chosen.mode == "split":
    st.info("In split mode only the test dialogues have held-out predictions; samples of training "
            "dialogues would have none. Use cross-validation to predict every dialogue.")
if "predicted_effort" not in chosen.predictions.columns:
    st.warning("The number of turns of each dialogue is unknown: the per-sample effort cannot be computed.")
    can_send = False
if ss["eff_source"] == "upload" and data.roles.get("dialogue_id") is None:
    st.warning("The active dataset's dialogue ids were derived from the row order, so an uploaded "
               "log cannot be joined to it by dialogue id.")
    can_send = False
if st.button(f"Send the {ss['eff_send_set']} predicted effort to the active dataset",
             type="primary", disabled=not can_send, key="_w_eff_send"):
    pr = chosen.predictions
    try:
        effort = per_sample_effort(data.frame["dialogue_id"].to_numpy(), pr["dialogue_id"].to_numpy(),
                                   pr["predicted_norm"].to_numpy(), pr["n_turns"].to_numpy())
        new = data.with_predicted_effort(effort, column="predicted_effort_hee")
    except DataError as exc:
        show_error(exc, context="sending the effort")
    else:
        set_data(new, source="effort")
        st.success(f"The active dataset now uses the {ss['eff_send_set']} predicted effort "
                   f"(column predicted_effort_hee, {count(new.M)} samples, total "
                   f"{plain_number(float(effort.sum()))}). Open the Trade-off page to use it.")

next_step("2_Trade-off.py", "Trade-off",
          "Optimise the assignment with the predicted effort sent to the active dataset.")

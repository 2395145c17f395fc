"""Data page: choose the active dataset (upload or built-in demo), map its columns, inspect it."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from core.data import REQUIRED_ROLES, ROLE_NAMES, ROLES, Detection, detect_columns, load_table, prepare
from core.errors import DataError
from core.figures.data import histogram, histogram_counts, label_balance
from core.defaults import AUTO_SAVE_ROWS
from core.format import count, pct
from core.summary import data_effort_unit, effort_unit
from pages._large import is_large
from pages._common import (demo_frame, get_data, init_state, md, next_step, remember_active,
                           set_data, show_error, workspace_read_only, writes)

init_state()
st.title("Data")
st.caption("Upload scored evaluation data (CSV, TSV, Parquet or a JSON list of objects) or use "
           "the built-in demo. One row per evaluated response; at least a machine label and its "
           "confidence in [0, 1]. Gold labels, efforts, turns, dialogue ids and subgroup columns "
           "are optional.")

ROLE_HELP = {
    "machine_label": "The machine evaluator's label (required).",
    "machine_confidence": "Confidence a_i of the machine label, in [0, 1] (required).",
    "human_label": "Gold (human) label. Without it, observed reliability is unavailable.",
    "human_label_2": "A second human rating (may be empty where not double-scored).",
    "human_effort": "Ground-truth annotation cost (reported as time cost).",
    "predicted_effort": "Predicted effort: what the optimiser weighs against confidence (falls back to the human effort, then 1 per sample).",
    "human_confidence": "b_i, default 1.",
    "machine_effort": "k_i, default 0.",
    "turn": "1-based turn of the response in its dialogue.",
    "n_turns": "Number of turns of the dialogue.",
    "dialogue_id": "Dialogue identifier (derived from turns when absent).",
    "sample_id": "Sample identifier.",
}


def _digest(name: str, content: bytes) -> str:
    """The upload's identity: computed once per file (the caches below are keyed on it, so the
    bytes are not hashed again on every rerun). SHA-1, the fastest of hashlib's here (10^6 rows,
    75 MB: 0.07 s; blake2b 0.24 s), fed the name and the bytes apart (no copy of the file)."""
    h = hashlib.sha1(name.encode() + b"\0")
    h.update(content)
    return h.hexdigest()


@st.cache_resource(show_spinner="Reading the file…", max_entries=4)
def _read(digest: str, name: str, _content: bytes) -> pd.DataFrame:
    """The uploaded table, shared, not copied on each rerun (pandas' copy-on-write keeps it
    unchanged: ``prepare`` and the preview derive new frames from it)."""
    return load_table(_content, name=name)


@st.cache_data(show_spinner=False, max_entries=8)
def _detect(digest: str, name: str, _content: bytes) -> Detection:
    return detect_columns(_read(digest, name, _content))


@st.cache_data(show_spinner=False, max_entries=8)
def _figures(data_key: str, _data) -> dict:
    """The active dataset's figures: counts per bin, not raw values (their size does not grow
    with the rows)."""
    f = _data.frame
    figs = {"labels": label_balance(f, [c for c in ("human_label", "machine_label") if c in f],
                                    names={"human_label": "gold (human)",
                                           "machine_label": "machine"})}
    split = None
    if _data.has_gold:
        split = (f["machine_label"] == f["human_label"]).to_numpy(dtype=bool, na_value=False)
    figs["confidence"] = histogram(
        histogram_counts(f["machine_confidence"], value_range=(0.0, 1.0), split=split),
        title="Machine confidence", x_title="confidence (0 to 1)",
        names={"True": "machine correct", "False": "machine wrong"})
    unit = data_effort_unit(_data)
    source = {"predicted_effort": "predicted", "human_effort": "ground truth",
              "uniform": "1 per sample"}.get(_data.effort_source, _data.effort_source)
    if _data.effort_source != "uniform":  # 1 per sample: a single bar says nothing
        # a short title: a long one runs under the chart's toolbar in a half-width column
        figs["effort"] = histogram(histogram_counts(f["predicted_effort"]),
                                   title="Effort the optimiser uses",
                                   x_title=f"{source} effort per sample ({unit})")
    if _data.has_effort:
        figs["human_effort"] = histogram(
            histogram_counts(f["human_effort"]), title="Ground-truth effort",
            x_title=f"effort per sample ({effort_unit(_data.roles.get('human_effort'))})")
    return figs


def _unhashable(data, exc: BaseException) -> DataError:
    """The error for a table whose content hash (the cache key of every page) cannot be
    computed, naming the columns."""
    bad = []
    for col in data.raw.columns:
        try:
            pd.util.hash_pandas_object(data.raw[[col]], index=False)
        except (TypeError, ValueError):
            bad.append(str(col))
    where = f"column(s) {', '.join(bad[:5])}" if bad else "the table"
    return DataError(f"{where} hold values that cannot be compared ({exc}); store them as "
                     "text or numbers")


def _activate(data, *, source: str, message: str) -> None:
    """Make ``data`` active, then rerun so that the sidebar (drawn before this page) names it.

    ``set_data`` hashes the table first (once): when that fails, the active dataset stays and a
    :class:`DataError` names the columns.
    """
    try:
        set_data(data, source=source)
    except (TypeError, ValueError) as exc:
        raise _unhashable(data, exc) from None
    if source == "demo" or data.M <= AUTO_SAVE_ROWS:
        failed = remember_active(data, source=source)  # survives reloads and restarts
        saved = failed is None and source != "demo" and not workspace_read_only()
    else:  # hashing and writing a large table takes seconds: on request (below)
        failed, saved = None, False
    ss["data_flash"] = message + (" Saved in the workspace: a reload or a restart reopens it."
                                  if saved else "")
    ss["data_save_error"] = failed
    st.rerun()


ss = st.session_state
flash = ss.pop("data_flash", None)
left, right = st.columns([2, 1])
with left:
    up = st.file_uploader("Upload an evaluation table", type=["csv", "tsv", "txt", "parquet", "pq",
                                                              "json", "jsonl", "jsonlines", "ndjson"])
with right:
    st.write("")
    st.write("")
    if st.button("Use the built-in demo data", width="stretch"):
        ss.pop("upload", None)
        _activate(prepare(demo_frame(), name="Built-in demo"), source="demo",
                  message="The built-in demo dataset is active.")
if flash:
    st.success(flash)
save_error = ss.pop("data_save_error", None)
if save_error:
    st.warning(f"The dataset is active for this session but could not be saved in the workspace, "
               f"so a reload will not reopen it: {md(save_error)}")
_active = get_data()
if (ss.get("data_source") == "upload" and _active.M > AUTO_SAVE_ROWS
        and ss.get("_saved_key") != ss.get("data_key")):
    st.info(f"{md(_active.name)} ({count(_active.M)} rows) is active for this session only: tables above "
            f"{count(AUTO_SAVE_ROWS)} rows are saved in the workspace on request (it takes a few "
            "seconds per million rows). Planning a round on the Evaluate page saves it too.")
    if st.button("Save it in the workspace", **writes()):
        with st.spinner("Saving the table in the workspace…"):
            failed = remember_active(_active, source="upload")
        if failed:
            st.error(f"Not saved: {md(failed)}")
        else:
            ss["_saved_key"] = ss.get("data_key")
            st.success("Saved in the workspace: a reload or a restart reopens it.")

if up is not None and (ss.get("upload") or {}).get("file_id") != up.file_id:
    content = up.getvalue()  # a new file: its bytes are read and hashed once
    ss["upload"] = {"name": up.name, "bytes": content, "file_id": up.file_id,
                    "digest": _digest(up.name, content)}

upload = ss.get("upload")
if upload and "digest" not in upload:
    upload = ss["upload"] = {**upload, "digest": _digest(upload["name"], upload["bytes"])}
if upload:
    # the mapping widgets belong to one file: their keys carry the file's digest, so a new file
    # starts from its own detected roles (the browser keeps a form's widget values across
    # reruns: with one key for every file, the next file showed the previous file's mapping)
    digest = upload["digest"]
    wkey = f"@{digest[:12]}"
    if ss.get("map_for") != digest:
        for key in [k for k in ss if isinstance(k, str) and k.startswith("map_")]:
            del ss[key]
        ss["map_for"] = digest
    try:
        raw = _read(digest, upload["name"], upload["bytes"])
    except DataError as exc:
        show_error(exc)  # the loader names the file in its message
        st.info("The active dataset is unchanged.")
        raw = None
    if raw is not None:
        st.subheader(f"Column mapping · {md(upload['name'])}")
        st.caption(f"{count(len(raw))} rows × {raw.shape[1]} columns. Roles were detected from the column "
                   "names and values; change any of them, then apply.")
        det = _detect(digest, upload["name"], upload["bytes"])
        detected = det.roles
        for ask in det.asks:
            st.warning(f"**Check the {ROLE_NAMES[ask.role]}.** {md(ask.message)}")
        for role, unit in det.units.items():
            st.caption(f"The {ROLE_NAMES[role]} column '{md(detected[role])}' is in **{md(unit)}** "
                       "(from its name).")
        options = ["—"] + list(raw.columns)
        roles: dict = {}
        with st.form("mapping"):
            cols = st.columns(3)
            for i, role in enumerate(ROLES):
                default = detected.get(role)
                label = ROLE_NAMES[role].capitalize() + (" *" if role in REQUIRED_ROLES else "")
                choice = cols[i % 3].selectbox(label, options,
                                               index=options.index(default) if default in options else 0,
                                               help=ROLE_HELP[role], key=f"map_{role}{wkey}")
                roles[role] = None if choice == "—" else choice
            roles["subgroups"] = st.multiselect(
                "Subgroup columns", list(det.subgroup_options), default=detected["subgroups"],
                key=f"map_subgroups{wkey}",
                help="Columns that split the samples into groups (system, topic, annotator...): "
                     "2 to 50 values, and not a label, prediction, probability, effort, "
                     "identifier or free text. A column mapped to a role above is not used as "
                     "a subgroup.")
            roles["text"] = st.multiselect("Free-text columns", list(raw.columns),
                                           default=detected["text"], key=f"map_text{wkey}")
            apply = st.form_submit_button("Validate and make active", type="primary")
        if apply:
            try:
                data = prepare(raw, roles, name=upload["name"], detection=det)
                _activate(data, source="upload",
                          message=f"{md(upload['name'])} is now the active dataset ({count(data.M)} samples).")
            except DataError as exc:
                show_error(exc)
                st.info("The active dataset is unchanged; fix the mapping or the file and try again.")

data = get_data()
st.divider()
st.subheader(f"Active dataset · {md(data.name)}")
for note in data.notices:
    st.info(md(note))
f = data.frame
# headline figures that apply to this data only (no "n/a" card, issue 25)
cards = [("Samples", f"{count(data.M)}", None), ("Classes", f"{count(len(data.labels))}", None)]
if data.roles.get("dialogue_id") or data.roles.get("turn"):
    cards.append(("Dialogues", f"{count(f['dialogue_id'].nunique())}", None))
if data.has_gold:
    cards.append(("Machine accuracy", f"{pct((f['machine_label'] == f['human_label']).mean())}",
                  "Share of samples where the machine label equals the gold label."))
for col, (name, value, why) in zip(st.columns(len(cards)), cards):
    col.metric(name, value, help=why)
if not data.has_gold:
    st.info("No gold labels: who labels what, the effort and the accuracy the confidences "
            "promise are computed; the observed accuracy (and precision, recall, F1) needs a gold "
            "label column. Map one below if the table has it.")
with st.expander("Column mapping in use · change it", expanded=False):
    # the active dataset's mapping, editable in place (issue 25): its own table, re-validated
    raw_cols = ["—"] + [str(c) for c in data.raw.columns]
    with st.form(f"remap_{ss['data_key']}"):
        cols = st.columns(3)
        remap: dict = {}
        for i, role in enumerate(ROLES):
            cur = data.roles.get(role)
            cur = str(cur) if cur is not None and str(cur) in raw_cols else "—"
            label = ROLE_NAMES[role].capitalize() + (" *" if role in REQUIRED_ROLES else "")
            pick = cols[i % 3].selectbox(label, raw_cols, index=raw_cols.index(cur),
                                         help=ROLE_HELP[role], key=f"remap_{role}")
            remap[role] = None if pick == "—" else pick
        remap["subgroups"] = st.multiselect(
            "Subgroup columns", [str(c) for c in data.raw.columns],
            default=[str(c) for c in data.subgroup_columns if str(c) in raw_cols],
            key="remap_subgroups")
        remap["text"] = st.multiselect("Free-text columns", [str(c) for c in data.raw.columns],
                                       default=[str(c) for c in data.text_columns
                                                if str(c) in raw_cols], key="remap_text")
        reapply = st.form_submit_button("Apply the new mapping")
    st.caption(f"Other confidence columns: {md(', '.join(data.confidence_columns[1:])) or '—'}")
    if reapply:
        try:
            new = prepare(data.raw, remap, name=data.name)
            _activate(new, source=ss.get("data_source") or "upload",
                      message=f"{md(data.name)}: the new column mapping is active.")
        except DataError as exc:
            show_error(exc)
            st.info("The active dataset is unchanged; fix the mapping and apply again.")

figs = _figures(ss["data_key"], data)
g1, g2 = st.columns(2)
with g1:
    st.plotly_chart(figs["labels"], width="stretch")
with g2:
    st.plotly_chart(figs["confidence"], width="stretch")
e1, e2 = st.columns(2)
with e1:
    if "effort" in figs:
        st.plotly_chart(figs["effort"], width="stretch")
    else:
        st.info("No effort column: every sample costs 1 unit of effort, so there is no "
                "distribution to show. Predict efforts on the Effort page, or map a time column.")
with e2:
    if "human_effort" in figs:
        st.plotly_chart(figs["human_effort"], width="stretch")
    else:
        st.info("No ground-truth effort column: time cost is unavailable.")
if is_large(data.M):  # binned counts of every row: exact, no sample needed
    st.caption(f"Large table: these figures count all {count(data.M)} rows in bins (exact); "
               "the Trade-off page draws its curves from a seeded sample.")
st.subheader("Preview")
# the mapped columns first (labels, confidence, effort, subgroups), then the others: the key
# columns are in view in a 1,400 px window, the rest a scroll away (issue 25); missing cells
# (a second rater's unlabelled rows) as "—", not the grid's default "None"
_mapped = [c for c in dict.fromkeys(
    [v for k, v in data.roles.items() if isinstance(v, str)]
    + [c for v in data.roles.values() if isinstance(v, list) for c in v]) if c in data.raw.columns]
with st.container(key="data_preview"):  # the one table whose width is the user's (e2e tests)
    st.dataframe(data.raw.head(200)[_mapped + [c for c in data.raw.columns if c not in _mapped]],
                 width="stretch", placeholder="—")

next_step("2_Trade-off.py", "Trade-off",
          "Choose how many samples go to humans (N) and how much their effort weighs (λ), and see what it buys.")

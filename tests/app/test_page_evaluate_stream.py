"""Evaluate page (AppTest), the "label until" mode: a labelling stream planned on the demo (gold
on every row), labels taken back through the usual imports (a CSV file, then the simulated
annotators), and the result checked against the round service's own confidence sequences
(:func:`core.workspace.stream_rounds.anytime_round`), never against what the page shows."""

from __future__ import annotations

import json
import os

from streamlit.testing.v1 import AppTest

from tests.app.conftest import figure_problems
from tests.app.test_page_evaluate import click, fresh_workspace  # noqa: F401  (a fixture)

PAGE = "2a_Evaluate.py"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _stream_chart(at: AppTest):
    charts = [c for c in at.get("plotly_chart")
              if json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "")
              .startswith("Intervals against labels spent")]
    assert len(charts) == 1, [json.loads(c.proto.spec)["layout"].get("title")
                              for c in at.get("plotly_chart")]
    return charts[0]


def _queue_in_order(rid: int):
    """The demo's sample ids and gold labels of a round's queue, in queue order."""
    from core.demo import make_demo
    from core.workspace import Workspace

    rank = Workspace(os.environ["HMCEVAL_WORKSPACE"]).round(rid)["queue_rank"]
    rows = sorted((r for r in range(len(rank)) if rank[r] == rank[r]), key=lambda r: rank[r])
    demo = make_demo()
    return demo.iloc[rows][["sample_id", "human_label"]].rename(columns={"human_label": "label"})


def test_stream_plan_import_simulate_and_stop(run_page, fresh_workspace):
    at = run_page(PAGE)
    at.radio(key="_w_ev_kind").set_value("stream").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.number_input(key="_w_ev_stream_labels").set_value(600).run()
    at.number_input(key="_w_ev_stream_target").set_value(4.0).run()
    at.radio(key="_w_ev_stream_question").set_value("share").run()
    at.selectbox(key="_w_ev_stream_class").set_value("1").run()
    at.radio(key="_w_ev_stream_op").set_value("<=").run()
    at.number_input(key="_w_ev_stream_threshold").set_value(40.0).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    plan = [m.value for m in at.markdown if m.value.startswith("**Humans will label at most 600")]
    assert plan and "± 4.0%" in plan[0] and "is the share of '1' at most 40.0%?" in plan[0], \
        [m.value for m in at.markdown]
    click(at, "Plan the round")
    assert any("Round #1 planned and saved" in s.value for s in at.success)
    from core.workspace import Workspace
    from core.workspace.stream_rounds import anytime_round, is_stream

    ws = Workspace(str(fresh_workspace))
    rnd = ws.round(1)
    assert is_stream(rnd["settings"])
    assert rnd["settings"] == {"labels": 600, "stream_design": "weighted", "seed": 0,
                               "target_half_width": 0.04, "decide": "share(1) <= 0.4",
                               "design": "stream"}
    # the queue goes out as before; no label yet: the result waits for them
    assert "Queue (CSV)" in [b.label for b in at.get("download_button")]
    assert any(i.value.startswith("Keep labelling: no label in queue order yet") for i in at.info)
    # the first 150 rows of the queue come back as a CSV file (the usual import)
    first = _queue_in_order(1).iloc[:150]
    at.file_uploader(key="_w_labels_csv_1").set_value(
        ("first.csv", first.to_csv(index=False).encode(), "text/csv")).run()
    click(at, "Import these labels")
    res = anytime_round(ws, 1, save=False)
    assert res["labels"] == 150
    # the next 50 as a Label Studio export (what a pull from the server imports too)
    nxt = _queue_in_order(1).iloc[150:200]
    tasks = [{"id": k + 1, "data": {"sample_id": int(sid)},
              "annotations": [{"completed_by": 1, "was_cancelled": False,
                               "result": [{"from_name": "label", "to_name": "show_sample_id",
                                           "type": "choices",
                                           "value": {"choices": [str(lab)]}}]}]}
             for k, (sid, lab) in enumerate(zip(nxt["sample_id"], nxt["label"]))]
    at.radio(key="_w_import_source").set_value("Label Studio export (JSON file)").run()
    at.file_uploader(key="_w_labels_ls_1").set_value(
        ("export.json", json.dumps(tasks).encode(), "application/json")).run()
    click(at, "Import these labels")
    assert anytime_round(ws, 1, save=False)["labels"] == 200
    # then the annotators, simulated from gold, label the queue to its end
    at.slider[0].set_value(1.0).run()
    click(at, "Fill labels from gold")
    assert not at.exception and not at.error, [e.value for e in at.error]
    res = anytime_round(ws, 1, save=False)
    assert res["labels"] == 600
    dec = res["decision"]
    share = res["class_shares"]["1"]
    # the demo's share of '1' is about 30%: the question is decided early, "yes"
    assert dec["decided"] and dec["answer"] is True and dec["labels"] < 600
    said = [s.value for s in at.success if s.value.startswith("Stop now:")]
    assert len(said) == 1, [s.value for s in at.success]
    half = (share["ci_high"] - share["ci_low"]) / 2
    assert said[0].startswith(f"Stop now: share of '1' {_pct(share['estimate'])} ± {_pct(half)} "
                              "after 600 labels, decided after "
                              f"{dec['labels']:,} labels"), said[0]
    assert said[0].endswith("at most 40.0%? yes).")
    saved = 600 - dec["labels"]
    assert any(m.value == f"**Stopping at {dec['labels']:,} labels instead of labelling the "
                          f"whole planned queue of 600 saves {saved:,} labels "
                          f"({saved / 600:.0%}). The {600 - dec['labels']:,} labelled after "
                          "that were not needed for this answer.**" for m in at.markdown)
    # the metrics are the sequence's at 600 labels
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Share of '1'"] == _pct(share["estimate"])
    assert metrics["Share of '0'"] == _pct(res["class_shares"]["0"]["estimate"])
    assert metrics["Accuracy of the final labels"] == _pct(res["accuracy"]["estimate"])
    assert any(c.value.startswith(f"95% interval [{_pct(share['ci_low'])}, "
                                  f"{_pct(share['ci_high'])}]") for c in at.caption)
    # the price of looking, in words, with the sequence's own ratio
    price = res["price"]
    assert any(c.value.startswith("The price of looking after every import: this interval is "
                                  f"{price['ratio']:.2f} times as wide as a one-look interval")
               for c in at.caption)
    # the chart: a point after each import (150, 200, then 600 labels), the question's threshold,
    # the stop where the question was decided; nothing a reader would miss
    chart = _stream_chart(at)
    assert figure_problems(chart) == []
    traces = {t.get("name"): t for t in json.loads(chart.proto.spec)["data"]}
    imports = traces["after each import: share of '1'"]
    assert imports["x"] == [150, 200, 600]
    assert imports["y"][-1] == share["estimate"]
    assert traces["question: is the share of '1' at most 40.0%?"]["y"] == [0.4, 0.4]
    assert traces[f"stop reached after {dec['labels']:,} labels"]["x"] == [dec["labels"]] * 2
    assert "target: ± 4.0 points around the latest estimate" in traces
    # the final labels' accuracy by group: the sequence's own, per group
    groups = at.multiselect(key="_ev_stream_groups_1").value
    assert "system" in groups
    by = anytime_round(ws, 1, groups=groups, save=False)["by_group"]
    table = next(d.value for d in at.dataframe if "95% interval" in d.value.columns)
    blender = table[(table["column"] == "system") & (table["group"] == "blender")].iloc[0]
    acc = by["system"]["blender"]["accuracy"]
    assert blender["accuracy"] == 100 * acc["estimate"]  # shown as a percentage
    assert blender["95% interval"] == f"[{_pct(acc['ci_low'])}, {_pct(acc['ci_high'])}]"
    assert blender["labelled"] == by["system"]["blender"]["n_labelled"]
    # the round's downloads: the result JSON is the stream's
    assert {"Final labelled table (CSV)", "Result (JSON)",
            "Report for stakeholders (HTML)"} <= {b.label for b in at.get("download_button")}
    # a new session on the same workspace shows the round in the "label until" mode
    again = AppTest.from_file(at._script_path, default_timeout=120)
    again.run()
    assert not again.exception
    assert again.radio(key="_w_ev_kind").value == "stream"
    assert again.selectbox(key="_w_ev_round_id").options[0].startswith("#1 · stream · planned")
    assert any(s.value.startswith("Stop now:") for s in again.success)
    # Home's summary of the latest round answers with the stop sentence
    home = AppTest.from_file(at._script_path.replace(PAGE, "0_Home.py"), default_timeout=120)
    home.run()
    assert not home.exception
    answer = [m.value for m in home.markdown if "**Answer:**" in m.value]
    assert answer and (f"**Answer:** Stop now: share of '1' {_pct(share['estimate'])} ± "
                       f"{_pct(half)} after 600 labels, decided after {dec['labels']:,} labels"
                       in answer[0]), answer


def test_stream_keep_labelling_without_a_question(run_page, fresh_workspace):
    at = run_page(PAGE)
    at.radio(key="_w_ev_kind").set_value("stream").run()
    at.number_input(key="_w_ev_stream_labels").set_value(300).run()
    at.number_input(key="_w_ev_stream_target").set_value(1.0).run()
    # the plan says how many labels the target is expected to take, on the machine's
    # confidences: more than this queue holds
    import numpy as np

    from core.demo import make_demo
    from core.evaluation.estimate.sequences import labels_for_half_width

    q = make_demo()["confidence_ts"].to_numpy(float)
    need = labels_for_half_width(float(np.sqrt(np.mean(q * (1 - q)))), 0.01)
    assert need > 300
    plan = [m.value for m in at.markdown if m.value.startswith("**Humans will label at most 300")]
    assert plan and plan[0].endswith(f"(expected to need about {need:,} labels, more than the "
                                     "queue holds, on the machine's confidences; the labels "
                                     "will tell).**"), plan
    click(at, "Plan the round")
    at.slider[0].set_value(0.2).run()
    click(at, "Fill labels from gold")
    from core.workspace import Workspace
    from core.workspace.stream_rounds import anytime_round

    res = anytime_round(Workspace(str(fresh_workspace)), 1, save=False)
    assert res["labels"] == 60 and not res["stop"]["reached"]
    widest = max((s["ci_high"] - s["ci_low"]) / 2 for s in res["class_shares"].values())
    said = [i.value for i in at.info if i.value.startswith("Keep labelling:")]
    assert len(said) == 1 and "after 60 labels" in said[0], [i.value for i in at.info]
    assert said[0].endswith(f"the target is ± 1.0%, the widest class share is ± {_pct(widest)} now.")
    # not stopped: nothing is saved yet
    assert not any(m.value.startswith("**Stopping at") for m in at.markdown)

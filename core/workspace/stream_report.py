"""The HTML report's parts for a labelling stream (:mod:`core.workspace.report` calls them for a
round :func:`core.workspace.stream_rounds.is_stream` says is one): the plan in words, and the
result as the Evaluate page shows it: the stop sentence, the labels saved, the price of looking
at every label, the trace as a table and the chart against labels spent."""

from __future__ import annotations

import html
from typing import Any, Callable

from core.evaluation.estimate import parse_decision
from core.evaluation.estimate import (SEQUENCE_HELP, question_words, stream_verdict,
                                           trace_looks)
from core.figures.evaluation import stream_figure
from core.format import pct
from core.workspace.store import Workspace
from core.workspace.stream_rounds import stream_view

__all__ = ["stream_scenario", "stream_plan_words", "stream_result", "stream_result_html"]


def stream_scenario(settings: dict[str, Any]) -> dict[str, Any]:
    """A stream's settings as the Evaluate page keeps them (``st.session_state["evaluate"]``),
    so a scenario plans the same stream again (a strict ``<`` or ``>`` becomes ``<=``/``>=``:
    the page offers those two)."""
    out: dict[str, Any] = {"kind": "stream", "stream_labels": int(settings["labels"]),
                           "stream_design": settings.get("stream_design", "weighted"),
                           "seed": int(settings.get("seed", 0)),
                           "stream_use_target": settings.get("target_half_width") is not None,
                           "stream_question": "none"}
    if settings.get("target_half_width") is not None:
        out["stream_target"] = float(settings["target_half_width"])
    if settings.get("decide"):
        d = parse_decision(settings["decide"])
        out.update(stream_question=d.kind, stream_op="<=" if "<" in d.op else ">=",
                   stream_threshold=d.threshold,
                   **({"stream_class": d.label} if d.label is not None else {}))
    return out


def stream_plan_words(settings: dict[str, Any], n_rows: int) -> str:
    """A stream's plan in words (plain text)."""
    draw = ("weighted towards the responses the machine was unsure of"
            if settings.get("stream_design", "weighted") == "weighted" else "uniform")
    when = []
    if settings.get("target_half_width") is not None:
        when.append(f"every class share is within ± {pct(settings['target_half_width'])}")
    if settings.get("decide"):
        when.append(f"the question is decided ({question_words(settings['decide'])})")
    return (f"Labelling stream: humans label a queue of up to {int(settings['labels']):,} of the "
            f"{n_rows:,} responses from its top, in order, drawn at random ({draw}) with known "
            "chances, and stop when "
            + (" or when ".join(when) if when else "the intervals are narrow enough") + ". "
            + SEQUENCE_HELP)


def stream_result(ws: Workspace, round_id: int) -> tuple[dict[str, Any], dict[str, Any],
                                                         float | None]:
    """A stream round's result (:func:`core.workspace.stream_rounds.stream_view`), its verdict
    (:func:`core.evaluation.estimate.anytime_words.stream_verdict`) and its target half-width."""
    target = ws.round(round_id)["settings"].get("target_half_width")
    res = stream_view(ws, round_id)
    return res, stream_verdict(res, target_half_width=target), target


def stream_result_html(res: dict[str, Any], verdict: dict[str, Any], target: float | None,
                       figure_html: Callable[[Any], str]) -> tuple[str, str | None]:
    """The result section of a stream round (HTML; the three parts of :func:`stream_result`)
    and its chart (``figure_html`` of :func:`core.figures.evaluation.stream_figure`; None
    before the first label)."""
    e = html.escape
    cls = "guarantee" if verdict["stop"] else "warning"
    parts = [f"<h2>The result</h2><p class='{cls}'>{e(verdict['sentence'])}</p>"]
    if not res["labels"]:
        return "".join(parts), None
    if verdict["saved"]:
        parts.append(f"<p><b>{e(verdict['saved'])}</b></p>")
    level = f"{res['confidence']:.0%}"
    rows = "".join(f"<tr><td>share of {e(str(c))}</td><td><b>{pct(v['estimate'])}</b></td>"
                   f"<td>{pct(v['ci_low'])} – {pct(v['ci_high'])}</td></tr>"
                   for c, v in res["class_shares"].items())
    a = res["accuracy"]
    rows += (f"<tr><td>accuracy of the final labels</td><td><b>{pct(a['estimate'])}</b></td>"
             f"<td>{pct(a['ci_low'])} – {pct(a['ci_high'])}</td></tr>")
    parts.append(f"<table><tr><th>after {res['labels']:,} labels</th><th>estimate</th>"
                 f"<th>{level} interval, valid however often one looks</th></tr>{rows}</table>")
    if verdict["price"]:
        parts.append(f"<p class='muted'>{e(verdict['price'])}</p>")
    parts.extend(f"<p class='warning'>{e(n)}</p>" for n in res["notes"])
    classes = list(res["class_shares"])
    head = "".join(f"<th>share of {e(str(c))}</th>" for c in classes)
    body = "".join(
        f"<tr><td>{t['labels']:,}</td>"
        + "".join(f"<td>{pct(t['class_shares'][c]['estimate'])} ({pct(t['class_shares'][c]['ci_low'])}"
                  f" – {pct(t['class_shares'][c]['ci_high'])})</td>" for c in classes)
        + f"<td>{pct(t['accuracy']['estimate'])} ({pct(t['accuracy']['ci_low'])} – "
          f"{pct(t['accuracy']['ci_high'])})</td></tr>"
        for t in trace_looks(res["trace"]))
    parts.append("<h3>The stream's trace</h3><p class='muted'>The intervals as the labels came "
                 "in (in queue order): each held at its number of labels and at every other one "
                 f"at once ({level}).</p><table class='trace'><tr><th>labels</th>{head}"
                 f"<th>accuracy of the final labels</th></tr>{body}</table>")
    return "".join(parts), figure_html(stream_figure(res, target_half_width=target))

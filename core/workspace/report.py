"""A stakeholder report of one evaluation round: a single self-contained HTML file.

The file carries its own copy of plotly.js (no CDN, no network), so it opens in any browser
with no server. It states the question, the data, the plan, the human effort spent and saved,
the final result with its intervals, the guarantee in plain words, the key figures and the
settings needed to reproduce the round. The Evaluate page's button and ``hmceval report`` both
call :func:`round_report_html`.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
from typing import Any

import pandas as pd

from core.figures.evaluation import (forest_figure, forest_rows, frontier_figure,
                                     group_accuracy_figure, progress_figure, worth_text)
from core.workspace.active_rounds import group_table, is_weighted
from core.format import pct as _pct
from core.workspace.digest import round_digest
from core.workspace.fonts import CJK_FAMILY, cjk_font_face
from core.workspace.rounds import round_summary
from core.workspace.store import SCENARIO_FORMAT, Workspace
from core.workspace.stream_report import (stream_plan_words, stream_result, stream_result_html,
                                          stream_scenario)
from core.workspace.stream_rounds import is_stream

__all__ = ["annotators_html", "resolve_round", "round_report_html", "round_scenario", "summary_box", "FONT_STACK"]

#: Fonts of the report and its figures: the usual sans-serif faces first, then the CJK font the
#: report embeds when its text has CJK characters (:func:`core.workspace.fonts.cjk_font_face`),
#: then system faces that cover Chinese, Japanese and Korean, so that such text in the data does
#: not show as boxes on a machine whose default font lacks them.
FONT_STACK = (f"-apple-system, 'Segoe UI', Helvetica, Arial, 'Noto Sans', '{CJK_FAMILY}', "
              "'Noto Sans CJK JP', "
              "'Noto Sans JP', 'Noto Sans CJK SC', 'Hiragino Sans', 'Hiragino Kaku Gothic ProN', "
              "'Yu Gothic', Meiryo, 'Microsoft YaHei', 'PingFang SC', 'Source Han Sans', "
              "'Apple SD Gothic Neo', 'Malgun Gothic', sans-serif")

_CSS = """
body { font-family: FONTS; margin: 2rem auto;
       max-width: 960px; color: #222; line-height: 1.45; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
.lead { font-size: 1.15rem; } .muted { color: #666; font-size: 0.9rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
td, th { border: 1px solid #ddd; padding: 0.3rem 0.6rem; text-align: right; }
th { background: #f5f5f5; } td:first-child, th:first-child { text-align: left; }
.guarantee { background: #eef7ee; border-left: 4px solid #2ca02c; padding: 0.6rem 1rem; }
.warning { background: #fff6e5; border-left: 4px solid #e69500; padding: 0.6rem 1rem; }
pre { background: #f7f7f7; padding: 0.8rem; overflow-x: auto; font-size: 0.85rem; }
.summary { background: #f3f6fb; border: 1px solid #c9d6ea; border-radius: 6px;
           padding: 0.8rem 1.2rem; margin: 1rem 0 1.5rem; }
.summary h2 { margin-top: 0.2rem; border: none; } .summary ul { margin: 0.3rem 0; padding-left: 1.2rem; }
@media print { body { margin: 0 auto; } h2 { break-after: avoid; }
               .summary, .figure, table, .warning, .guarantee { break-inside: avoid; } }
""".replace("FONTS", FONT_STACK)


def resolve_round(ws: Workspace, scenario: int | str) -> tuple[dict[str, Any], int]:
    """The scenario and the round it reports: its saved ``round_id``, else the dataset's latest
    round."""
    from core.errors import DataError

    sc = ws.scenario(scenario)
    rid = (sc["settings"].get("evaluate") or {}).get("round_id")
    if rid is None:
        rounds = ws.list_rounds(sc["dataset_id"])
        if rounds.empty:
            raise DataError(f"scenario '{sc['name']}' has no evaluation round yet; plan one on "
                            "the Evaluate page")
        rid = int(rounds["id"].iloc[0])
    return sc, int(rid)


#: the plotly template of the report's figures, named so a report looks the same whoever writes
#: it: inside the app Streamlit makes its own template the default, one without ``automargin``
#: and with placeholder colours its front end replaces (a file has no such front end).
FIGURE_TEMPLATE = "plotly_white"


def _figure_html(fig: Any) -> str:
    fig.update_layout(template=FIGURE_TEMPLATE, font={"family": FONT_STACK})
    return fig.to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})


def round_scenario(ws: Workspace, round_id: int) -> dict[str, Any]:
    """The scenario that plans round ``round_id`` again, in the export format of
    :meth:`Workspace.export_scenario` (``hmceval workspace import`` reads it): the dataset by
    content hash with its column mapping, and the round's settings as the Evaluate page keeps
    them (N share, λ and mode for a budget round; the calibration size and the certificate's
    settings for a guarantee round)."""
    rnd = ws.round(round_id)
    ds = ws.dataset(rnd["dataset_id"])
    st_ = rnd["settings"]
    evaluate = {"kind": rnd["kind"]}
    evaluate.update({k: st_[k] for k in ("audit", "seed", "alpha", "delta", "calibration") if k in st_})
    if is_stream(st_):  # the Evaluate page's "label until" mode
        evaluate.update(stream_scenario(st_))
        settings: dict[str, Any] = {}
    elif rnd["kind"] == "budget" and is_weighted(st_):  # the active or random design
        evaluate.update({k: st_[k] for k in ("design", "labels", "effort_budget", "stratify",
                                             "min_share") if k in st_})
        evaluate["budget_in"] = "effort" if st_.get("effort_budget") is not None else "labels"
        settings = {}
    elif rnd["kind"] == "budget":
        settings = {k: st_[k] for k in ("lam", "share", "mode") if k in st_}
    else:  # a guarantee round's λ is the certificate's (the Evaluate page's cert_lam)
        settings = {}
        if "lam" in st_:
            evaluate["cert_lam"] = st_["lam"]
    settings["evaluate"] = {**evaluate, "round_id": None}
    return {"format": SCENARIO_FORMAT, "version": 1, "name": f"{ds['name']}, round {round_id}",
            "dataset": {"name": ds["name"], "content_hash": ds["content_hash"],
                        "n_rows": ds["n_rows"], "roles": ds["roles"]},
            "settings": settings}


def _design_plan(st_: dict[str, Any], record: dict[str, Any], n_rows: int) -> str:
    """The plan of an active or random round in words, with its expectations."""
    if st_.get("labels") is not None:
        budget = f"a budget of {float(st_['labels']):,.0f} expected labels"
    else:
        budget = f"a budget of {float(st_['effort_budget']):,.4g} in expected predicted effort"
    if st_["design"] == "random":
        text = (f"Random design: every response had the same probability of being labelled by "
                f"a human, for {budget}.")
    else:
        text = (f"Active design: every response had a known probability of being labelled by "
                f"a human, larger where the machine was unsure and smaller where labelling "
                f"takes long, for {budget}; each label counts for the final labels and, "
                f"weighted by its probability, for the estimates.")
    if st_.get("stratify"):
        mins = ", ".join(f"{st_['stratify']} = {g}: at least {_pct(v, 0)}"
                         for g, v in (st_.get("min_share") or {}).items())
        text += (f" The budget was split over the values of '{st_['stratify']}' by size"
                 + (f" (least human shares: {mins})" if mins else "") + ".")
    if record.get("expected_labels") is not None:
        text += (f" Planned: about {record['expected_labels']:,.0f} of {n_rows:,} responses "
                 f"labelled ({record['n_routed']:,} for sure), final labels expected "
                 f"{_pct(record['expected_accuracy'])} accurate, a class share expected to "
                 f"± {_pct(record['expected_half_width'])} "
                 f"({worth_text(record['random_equivalent'])}).")
    carried = record.get("calibrated_on")
    if carried:
        text += (f" It was planned on the {carried['labels']:,} labels of {carried['source']}: "
                 "the confidences recalibrated on them, those rows carried into this round.")
    if st_["design"] == "active" and record.get("frontier"):
        from core.evaluation.sampling import target_note

        note = target_note(pd.DataFrame(record["frontier"]),
                           calibrated_on=(record.get("calibrated_on") or {}).get("source"))
        if note:
            text += " " + note
    if record.get("expected_range"):  # what the expectations rest on, their range (issue 30)
        from core.evaluation.sampling import range_sentence

        text += " " + range_sentence(record["expected_range"],
                                     source=(carried or {}).get("source"))
    return text


def _groups_html(table: Any, notes: list[str], level: str) -> str:
    """The per-group accuracy of the final labels as an HTML table, then its warnings."""
    e = html.escape
    body = "".join(
        f"<tr><td>{e(str(r.column))} = {e(str(r.group))}</td><td>{r.rows:,}</td>"
        f"<td><b>{_pct(r.accuracy)}</b></td><td>{_pct(r.ci_low)} – {_pct(r.ci_high)}</td>"
        f"<td>{'' if r.worth_random is None or r.worth_random != r.worth_random else format(int(r.worth_random), ',')}</td>"
        f"<td>{_pct(r.machine_accuracy)}</td><td>{_pct(r.human_share)}</td>"
        f"<td>{'' if r.effort != r.effort else format(r.effort, '.3g')}</td>"
        f"<td>{'worse' if r.worse else ''}</td></tr>"
        for r in table.itertuples())
    return ("<h2>Accuracy of the final labels by group</h2>"
            f"<table><tr><th>group</th><th>rows</th><th>accuracy</th><th>{level} interval</th>"
            "<th>rows labelled at random for the same precision</th><th>machine accuracy</th>"
            "<th>human share</th><th>effort per row</th><th></th></tr>"
            f"{body}</table>"
            + ("".join(f"<p class='warning'>{e(n)}</p>" for n in notes) if notes else
               "<p>No group's final labels are significantly worse than the rest's.</p>"))


def summary_box(s: dict[str, Any], roles: dict[str, Any]) -> str:
    """The report's first screen: the question, the answer with its interval, the hours spent
    and saved, the groups, the guarantee and the caveats, in a few lines (HTML).

    ``s`` is :func:`core.workspace.rounds.round_summary`; ``roles`` the dataset's column
    mapping (the effort column's name gives its unit, so that effort reads in hours). The lines
    are :func:`core.workspace.digest.round_digest`'s, the Home page's summary too.
    """
    e = html.escape
    items = []
    for line in round_digest(s, roles)["lines"]:
        text = "".join(f"<b>{e(p)}</b>" if bold else e(p) for p, bold in line.parts)
        items.append(f"<li class='digest-{line.key}'>"
                     + (f"<b>{e(line.label)}:</b> " if line.label else "") + text + "</li>")
    return ("<div class='summary'><h2>Summary</h2><ul>" + "".join(items) + "</ul></div>")


def annotators_html(ws: Workspace, round_id: int) -> str:
    """The report's section on the annotators (:func:`core.workspace.round_annotators.
    round_annotators`, majority aggregate): Krippendorff's alpha with its interval, Fleiss'
    kappa, Cohen's kappa per pair and, per annotator, labels, agreement with the aggregate and
    with gold, median time and confusion matrix. Empty when fewer than two annotators voted."""
    from core.workspace.round_annotators import round_annotators, several_annotators

    rep = round_annotators(ws, round_id)
    if not several_annotators(rep):
        return ""
    e = html.escape

    def num(v: float | None, fmt: str = ".3f") -> str:
        return "n/a" if v is None else format(v, fmt)

    a = rep["krippendorff_alpha"]
    alpha = ("undefined (no row labelled twice or more)" if a["estimate"] is None else
             f"<b>{num(a['estimate'])}</b>" + ("" if a["ci_low"] is None else
             f", {a['confidence']:.0%} bootstrap interval {num(a['ci_low'])} – "
             f"{num(a['ci_high'])}") + f" ({e(str(a['level']))}, {a['n_units']:,} rows)")
    head = (f"<h2>The annotators</h2><p>{rep['n_labels']:,} labels by {rep['n_annotators']} "
            f"annotators on {rep['n_rows']:,} rows, {rep['n_multi']:,} of them labelled twice or "
            f"more. Krippendorff's alpha: {alpha}. Fleiss' kappa: {num(rep['fleiss_kappa'])}; "
            f"observed agreement {_pct(rep['percent_agreement'])}.</p>")
    if rep["adjudication"]:
        head += (f"<p class='warning'>{len(rep['adjudication']):,} rows tie and wait for "
                 "adjudication.</p>")
    per = "".join(
        f"<tr><td>{e(p['annotator'] or '(unnamed)')}</td><td>{p['items']:,}</td>"
        f"<td>{_pct(p['agreement_with_aggregate'])} of {p['n_compared']:,}</td>"
        f"<td>{_pct(p['agreement_with_gold'])} of {p['n_gold']:,}</td>"
        f"<td>{num(p['median_seconds'], '.1f')}</td></tr>" for p in rep["per_annotator"])
    pairs = "".join(
        f"<tr><td>{e(p['annotators'][0])} / {e(p['annotators'][1])}</td><td>{p['n_items']:,}"
        f"</td><td>{_pct(p['agreement'])}</td><td>{num(p['cohen_kappa'])}</td></tr>"
        for p in rep["pairwise"])
    conf = []
    for p in rep["per_annotator"]:
        c = p["confusion"]
        cells = "".join(f"<tr><th>{e(k)}</th>" + "".join(f"<td>{n:,}</td>" for n in row)
                        + "</tr>" for k, row in zip(c["classes"], c["matrix"]))
        conf.append(f"<p class='muted'>{e(p['annotator'] or '(unnamed)')}: rows the "
                    f"{e(rep['aggregate'])} label, columns the annotator's</p><table><tr><th></th>"
                    + "".join(f"<th>{e(k)}</th>" for k in c["classes"]) + f"</tr>{cells}</table>")
    return (head + "<table><tr><th>annotator</th><th>labels</th><th>agrees with the "
            f"{e(rep['aggregate'])} label</th><th>agrees with gold</th><th>median seconds</th>"
            f"</tr>{per}</table>"
            + (f"<table><tr><th>pair</th><th>rows both labelled</th><th>agreement</th>"
               f"<th>Cohen's kappa</th></tr>{pairs}</table>" if pairs else "")
            + "<details><summary>Confusion matrices</summary>" + "".join(conf) + "</details>")


def round_report_html(ws: Workspace, round_id: int, *, title: str | None = None,
                      scenario: dict[str, Any] | None = None) -> str:
    """The report of one round as a complete HTML document (string).

    Parameters
    ----------
    ws : Workspace
    round_id : int
    title : str, optional
    scenario : dict, optional
        The scenario it belongs to (its export is embedded as the settings to reproduce).
    """
    import plotly.offline

    s = round_summary(ws, round_id)
    rnd = s["round"]
    stream = stream_result(ws, round_id) if is_stream(rnd["settings"]) else None
    if stream:  # its answer is the stop sentence
        s["stream_sentence"] = stream[1]["sentence"]
    ds = ws.dataset(rnd["dataset_id"])
    prog, effort, est, cert = s["progress"], s["effort"], s["estimate"], s["certificate"]
    e = html.escape
    name = title or f"Evaluation of {ds['name']} (round {round_id})"
    parts: list[str] = [f"<h1>{e(name)}</h1>",
                        f"<p class='muted'>Written {_dt.date.today().isoformat()} by HMCEval "
                        "Studio from the saved round; every number below is computed from the "
                        "labels stored with it.</p>", summary_box(s, ds.get("roles") or {})]
    parts.append("<h2>The question</h2><p class='lead'>What share of the responses falls in each "
                 "class, judged as a human would, and how accurate are the final labels? Humans "
                 "labelled some responses, a machine evaluator the rest; the intervals account "
                 "for the rows no human saw.</p>")
    parts.append(f"<h2>The data</h2><p>{e(ds['name'])}: {ds['n_rows']:,} responses, "
                 f"{ds['n_columns']} columns (content hash <code>{ds['content_hash'][:12]}</code>)."
                 "</p>")
    st_ = rnd["settings"]
    if stream:
        plan = stream_plan_words(st_, ds["n_rows"])
    elif rnd["kind"] == "budget" and is_weighted(st_):
        plan = _design_plan(st_, s.get("design") or {}, ds["n_rows"])
    elif rnd["kind"] == "budget":
        plan = (f"Budget mode: the exact HMCEval assignment sent up to N = "
                f"{st_.get('share', 0):.0%} of the responses to humans (λ = {st_.get('lam')}, "
                f"{'exactly' if st_.get('mode') == 'exactly' else 'at most'} N), and a random "
                f"audit of {st_.get('audit', 0):,} of the machine's responses was labelled too.")
    else:
        plan = (f"Guarantee mode: a random calibration sample of {st_.get('calibration', 0):,} "
                f"responses was labelled first; the machine then kept the largest share of the "
                f"other responses for which its error rate is at most {st_.get('alpha')} with "
                f"probability at least 1 − {st_.get('delta')}; an audit of "
                f"{st_.get('audit', 0):,} of its responses was labelled too.")
    parts.append(f"<h2>The plan</h2><p>{e(plan)}</p>")
    rows = "".join(f"<tr><td>{'stream queue' if stream and k == 'audit' else k}</td><td>{v['labelled']:,}</td><td>{v['rows']:,}</td></tr>"
                   for k, v in ((k, prog[k]) for k in ("calibration", "routed", "audit"))
                   if v["rows"])
    parts.append("<h2>Human effort</h2>"
                 f"<p>Humans labelled <b>{effort['rows_labelled']:,} of {effort['rows_total']:,}"
                 f"</b> responses"
                 + (f", <b>{_pct(effort['effort_share'], 0)}</b> of the "
                    f"{'annotation time' if effort['effort_unit'] == 'human_effort' else 'predicted effort'}"
                    f" of labelling everything (saved: {_pct(1 - effort['effort_share'], 0)})"
                    if effort["effort_share"] is not None else "")
                 + f"; the machine's label stands unchecked on the other {prog['machine']:,}"
                 + (f" (the machine keeps {prog['machine'] + prog['audit']['rows']:,} rows; humans "
                    f"audited {prog['audit']['rows']:,} of them)" if prog["audit"]["rows"]
                    and not stream else "")
                 + ".</p>"
                 f"<table><tr><th>selection</th><th>labelled</th><th>rows</th></tr>{rows}</table>")
    if cert:
        parts.append(f"<h2>The guarantee</h2><p class='guarantee'>{e(cert['guarantee'])}</p>")
    figures: list[str] = []
    if stream:  # a labelling stream: its confidence sequence, its trace and chart
        section, chart = stream_result_html(*stream, _figure_html)
        parts.append(section)
        figures.extend([chart] if chart else [])
    elif est is None:
        parts.append(f"<h2>The result</h2><p class='warning'>No result yet: "
                     f"{e(s['estimate_error'] or '')}.</p>")
    else:
        level = f"{est['confidence']:.0%}"
        body = "".join(
            f"<tr><td>{e(str(c))}</td><td><b>{_pct(v['estimate'])}</b></td>"
            f"<td>{_pct(v['ci_low'])} – {_pct(v['ci_high'])}</td><td>{_pct(v['machine_only'])}"
            f"</td><td>{'' if v['random_equivalent'] is None else format(v['random_equivalent'], ',')}"
            "</td></tr>" for c, v in est["class_shares"].items())
        acc = est["accuracy"]
        acc_text = ("n/a (an audit is needed)" if acc["estimate"] is None else
                    f"<b>{_pct(acc['estimate'])}</b>, at least {_pct(acc['ci_low'])} with "
                    f"{level} confidence (exact bound)" if est.get("design", "routing") == "routing"
                    else f"<b>{_pct(acc['estimate'])}</b>, {level} interval "
                    f"{_pct(acc['ci_low'])} – {_pct(acc['ci_high'])}")
        group_notes = s.get("group_notes") or []
        parts.append(
            "<h2>The result</h2>"
            f"<table><tr><th>class</th><th>share</th><th>{level} interval</th>"
            "<th>machine alone</th><th>rows labelled at random for the same precision</th></tr>"
            f"{body}</table><p class='muted'>The last column: how many rows a simple random "
            f"sample would need to estimate the share as precisely as this round, which had "
            f"{est['n_labelled']:,} rows labelled by humans"
            + ("; a smaller number means random labelling would have estimated that share "
               "more cheaply (routing buys correct final labels, not a tighter share)"
               if any(v["random_equivalent"] is not None
                      and v["random_equivalent"] < est["n_labelled"]
                      for v in est["class_shares"].values()) else "")
            + f".</p><p>Accuracy of the final labels: {acc_text}.</p>"
            + "".join(f"<p class='warning'>{e(n)}</p>" for n in est["notes"]
                      if n not in group_notes))
        for c in est["class_shares"]:
            figures.append(_figure_html(forest_figure(forest_rows(est, c), label=c,
                                                      confidence=est["confidence"])))
        if s.get("group_accuracy"):
            table = group_table(s["group_accuracy"], s["worse_groups"],
                                confidence=est["confidence"])
            parts.append(_groups_html(table, group_notes, level))
            figures.append(_figure_html(group_accuracy_figure(table,
                                                              confidence=est["confidence"])))
    parts.append(annotators_html(ws, round_id))
    if (s.get("design") or {}).get("frontier"):
        import pandas as pd

        figures.append(_figure_html(frontier_figure(pd.DataFrame(s["design"]["frontier"]))))
    figures.insert(0, _figure_html(progress_figure(prog, stream=bool(stream))))
    parts.append("<h2>Key figures</h2>" + "".join(f"<div class='figure'>{f}</div>"
                                                   for f in figures))
    repro = scenario if scenario is not None else round_scenario(ws, round_id)
    text = json.dumps(repro, indent=2, default=str)
    href = "data:application/json;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")
    parts.append("<hr><p class='muted'>Appendix</p>"
                 "<h2>Settings to reproduce</h2><p class='muted'>The scenario holds the "
                 "column mapping and the settings of this round (planned "
                 f"{e(str(rnd['created'])[:10])} by {e(str(rnd['created_by']))}). "
                 f"<a download='scenario.json' href='{href}'>Save it as scenario.json</a> and "
                 "load it with <code>hmceval workspace import scenario.json --data TABLE</code>, "
                 f"where TABLE is the same table (content hash <code>{ds['content_hash'][:12]}</code>"
                 "); the Evaluate page then plans the same round.</p>"
                 "<details><summary>Show the scenario (JSON)</summary>"
                 f"<pre>{e(text)}</pre></details>")
    js = plotly.offline.get_plotlyjs()
    content = "\n".join(parts)
    face = cjk_font_face(name + content)  # "" unless the report's text has CJK characters
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{e(name)}</title><style>{face}{_CSS}</style>"
            f"<script type='text/javascript'>{js}</script></head><body>"
            + content + "</body></html>\n")

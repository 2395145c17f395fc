"""Every page in a real browser, as a manager reads it (issue 25's acceptance).

For every page of ``pages/_registry.py``, on (a) the built-in demo and (b) a judge-style CSV
uploaded through the Data page with names of its own (sample id ``item_key``, three verdict
classes, a confidence, the reviewers' verdict ``human_verdict`` as gold, review time in seconds
``review_secs``, language and model as subgroups, no turns), in a 1,400 px wide window: no
exception and no red error box; no visible "None", "nan"/"NaN" or number in scientific notation
(in the text, the metrics and the figures' tick labels); in the text, no number with more than
4 significant digits and no count of 1,000 or more without thousands separators
(:func:`tests.app.page_text.number_problems`, issue 33), and no abbreviation without its words
within 300 characters (:data:`ABBREVIATIONS`; the technical names belong in tooltips, which a
reader opens, next to plain words); every figure has a title and axis titles, with a unit (in
parentheses, or "%") on an axis that is a quantity; every table fits the window (its right edge
within 1,400 px, no column hidden behind a horizontal scroll); and the page ends with a "Next:"
link (nothing but its caption after it).

One server for the module (``python app.py`` with a temporary workspace), one browser context,
one tab per dataset moved between pages through the app's own navigation (the session, and so
the uploaded dataset, is kept). Each case collects every problem of its page before asserting,
so a failure lists all of them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pages._registry import PAGES
from tests.app.page_text import number_problems
from tests.e2e.servers import app_nav, streamlit_server

pytestmark = pytest.mark.e2e

WIDTH = 1400
JUDGE_ROWS = 450


def judge_frame(n: int = JUDGE_ROWS, seed: int = 25) -> pd.DataFrame:
    """A judge-style table as a user exports it: an LLM judge's verdict with its confidence,
    the reviewers' verdict, review time in seconds, language and model of the judged answer."""
    rng = np.random.default_rng(seed)
    classes = np.array(["safe", "unsafe", "borderline"])
    gold = rng.choice(classes, n, p=[0.6, 0.3, 0.1])
    conf = rng.uniform(0.4, 1.0, n)
    wrong = rng.uniform(size=n) > conf
    pred = np.where(wrong, rng.choice(classes, n), gold)
    return pd.DataFrame({
        "item_key": [f"q{i:04d}" for i in range(n)],
        "judge_verdict": pred,
        "judge_confidence": conf.round(3),
        "human_verdict": gold,
        "review_secs": (rng.gamma(2.0, 25.0, n) + 5).round(1),
        "language": rng.choice(["en", "de", "ja"], n),
        "model": rng.choice(["model-a", "model-b"], n),
    })


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages_browser")
    with streamlit_server(root / "server.log",
                          env={"HMCEVAL_WORKSPACE": str(root / "ws")}) as url:
        yield url


@pytest.fixture(scope="module")
def context(browser):
    ctx = browser.new_context(viewport={"width": WIDTH, "height": 1000})
    ctx.set_default_timeout(90_000)
    ctx.add_init_script(f"({LAST_CHANGE_JS})()")
    yield ctx
    ctx.close()


#: the time of the page's last change, kept by a MutationObserver installed in every page:
#: with the app's minimal toolbar there is no running indicator to wait for
LAST_CHANGE_JS = """() => {
  window.__lastChange = performance.now();
  new MutationObserver(() => { window.__lastChange = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""
_QUIET_JS = """([ms, longer]) => {
  const quiet = performance.now() - (window.__lastChange || 0);
  const next = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink]')]
    .some(e => /(^|\\s)Next:/.test(e.innerText));
  return !document.querySelector('[data-testid=stSpinner], [data-testid=stSkeleton]')
    && quiet > (next ? ms : longer); }"""


def settle(page, quiet_ms: int = 1000, longer_ms: int = 6000, timeout: float = 240_000) -> None:
    """Wait until the script run is over: no spinner and nothing on the page changed for
    ``quiet_ms`` once its Next link is drawn (the last element of every page), or for
    ``longer_ms`` without it (a page that lacks it, or a loaded machine between two elements)."""
    page.wait_for_function(_QUIET_JS, arg=[quiet_ms, longer_ms], timeout=timeout, polling=250)


@pytest.fixture(scope="module")
def tabs(context, app_url, tmp_path_factory):
    """One tab per dataset, opened on first use: ``demo`` as the app starts, ``judge`` with the
    judge CSV uploaded and validated on the Data page."""
    opened: dict = {}

    def get(dataset: str):
        if dataset in opened:
            return opened[dataset]
        page = context.new_page()
        page.goto(app_url, wait_until="domcontentloaded")
        app_nav(page)
        if dataset == "judge":
            path = tmp_path_factory.mktemp("judge") / "judge_reviews.csv"
            judge_frame().to_csv(path, index=False)
            app_nav(page).locator('a[href$="/data"]').first.click()
            page.locator("h1", has_text="Data").wait_for()
            page.locator('input[type="file"]').first.set_input_files(str(path))
            page.get_by_text("Column mapping · judge_reviews.csv").wait_for()
            page.get_by_role("button", name="Validate and make active").click()
            page.get_by_text("judge_reviews.csv is now the active dataset").wait_for()
        opened[dataset] = page
        return page

    yield get
    for page in opened.values():
        page.close()


# what the page shows: text of the main block, metric values, figures' tick labels
_TEXT_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]') || document.body;
  const ticks = [...main.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text,'
                 + ' .js-plotly-plot .legendtext, .js-plotly-plot .annotation-text')]
                .map(t => t.textContent);
  return {text: main.innerText, ticks: ticks};
}"""

# every figure: its title, and each cartesian axis's title and type
_FIGURES_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].map(el => {
  const lay = el._fullLayout || {};
  const text = t => (t && (t.text !== undefined ? t.text : t)) || '';
  const axes = Object.keys(lay).filter(k => /^[xy]axis\\d*$/.test(k) && lay[k].visible !== false)
    .filter(k => lay[k].showticklabels !== false)  // a shared axis drawn without labels
    .map(k => ({name: k, title: String(text(lay[k].title)), type: lay[k].type}));
  const types = (el.data || []).map(t => t.type || 'scatter');
  return {title: String(text(lay.title)), axes: axes, types: types};
})"""

# every table: its box, and whether its grid scrolls sideways (a column hidden at this width)
_TABLES_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stDataFrame],'
                 + ' [data-testid=stMain] [data-testid=stTable]')].map(el => {
  const r = el.getBoundingClientRect();
  const sc = el.querySelector('.dvn-scroller');
  return {right: r.right, width: r.width, preview: !!el.closest('.st-key-data_preview'),
          hidden: sc ? Math.max(0, sc.scrollWidth - sc.clientWidth) : 0,
          head: el.innerText.slice(0, 60)};
})"""

# the last "Next:" link of the main block, and what follows it in document order
_NEXT_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const links = [...main.querySelectorAll('[data-testid=stPageLink]')]
                .filter(e => /(^|\\s)Next:/.test(e.innerText));
  if (!links.length) return {found: false, after: []};
  const link = links[links.length - 1];
  const heavy = [...main.querySelectorAll('[data-testid=stPlotlyChart], [data-testid=stDataFrame],'
      + ' [data-testid=stTable], [data-testid=stAlert], [data-testid=stMetric], [data-testid=stButton],'
      + ' [data-testid=stExpander], [data-testid=stTabs], [data-testid=stForm], h2, h3')];
  const after = heavy.filter(e => link.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)
                     .map(e => (e.getAttribute('data-testid') || e.tagName) + ': '
                          + e.innerText.slice(0, 50));
  return {found: true, after: after, href: (link.querySelector('a') || {}).href || ''};
}"""

#: a number in scientific notation (7.234e+04, 1e-05) or an empty value shown as such
_SCIENTIFIC = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d")
_EMPTY = re.compile(r"(?<![\w-])(None|nan|NaN)(?![\w-])")
#: an axis title names its unit: in parentheses, a percent sign, or a count ("number of ...")
_UNIT = re.compile(r"\(.+\)|%|^number of |\bcount\b", re.IGNORECASE)
#: plotly's placeholder for an empty axis title (in the layout it completes)
_PLACEHOLDER = "Click to enter"


#: Abbreviations a manager may not know, each with words of which one must be shown within
#: 300 characters of it (its plain name or its definition; case-insensitive)
ABBREVIATIONS = {
    "PPI++": ("prediction-powered", "labels and predictions", "machine's labels"),
    "AUC": ("right from wrong", "area under"),
    "AURC": ("surest kept", "area under", "most confident"),
    "ECE": ("confidence off by", "calibration"),
    "MCP": ("confidence", "top class"),
    "TCP": ("confidence", "true class"),
    "HEE": ("effort estimation",),
    "MSE": ("squared",),
    "RMSE": ("root",),
    "MAE": ("absolute",),
    "R²": ("explain", "variation"),
}


def abbreviation_problems(text: str) -> list[str]:
    """Each abbreviation of :data:`ABBREVIATIONS` in ``text`` without one of its words within
    300 characters, with the text around it."""
    problems = []
    for abbr, words in ABBREVIATIONS.items():
        for m in re.finditer(r"(?<![\w+])" + re.escape(abbr) + r"(?![\w+])", text):
            near = text[max(0, m.start() - 300):m.end() + 300].lower()
            if not any(w.lower() in near for w in words):
                ctx = text[max(0, m.start() - 60):m.end() + 60].replace("\n", " | ")
                problems.append(f"{abbr} without its words ({' / '.join(words)}) near it: …{ctx}…")
    return problems


def page_problems(page) -> list[str]:
    """Every problem of the page the tab shows, as readable lines (empty when it is clean)."""
    problems: list[str] = []
    if page.locator('[data-testid="stException"]').count():
        problems.append("exception: " + page.locator('[data-testid="stException"]').first
                        .inner_text()[:300])
    errors = page.locator('[data-testid="stAlertContentError"]')
    for i in range(errors.count()):
        problems.append("red box: " + errors.nth(i).inner_text()[:300])
    shown = page.evaluate(_TEXT_JS)
    for where, text in [("text", shown["text"])] + [("figure label", t) for t in shown["ticks"]]:
        for rx, what in ((_EMPTY, "empty value"), (_SCIENTIFIC, "scientific notation")):
            for m in rx.finditer(text):
                ctx = text[max(0, m.start() - 40):m.end() + 40].replace("\n", " | ")
                problems.append(f"{what} in the {where}: …{ctx}…")
    problems += [f"in the text: {p}" for p in number_problems(shown["text"].splitlines())]
    problems += abbreviation_problems(shown["text"])
    for i, fig in enumerate(page.evaluate(_FIGURES_JS)):
        if not fig["title"].strip():
            problems.append(f"figure {i} has no title (axes {[a['title'] for a in fig['axes']]})")
        cartesian = [t for t in fig["types"] if t not in ("pie", "indicator", "table", "sankey")]
        if not cartesian:
            continue
        for ax in fig["axes"]:
            title = re.sub(r"<[^>]+>", " ", ax["title"]).strip()
            title = "" if title.startswith(_PLACEHOLDER) else title
            if not title:
                problems.append(f"figure {i} '{fig['title'][:60]}': {ax['name']} has no title")
            elif ax["type"] in ("linear", "log") and not _UNIT.search(title):
                problems.append(f"figure {i} '{fig['title'][:60]}': {ax['name']} '{title}' "
                                "is a quantity without a unit")
    for t in page.evaluate(_TABLES_JS):
        if t["right"] > WIDTH + 0.5:
            problems.append(f"table ends at {t['right']:.0f} px > {WIDTH}: {t['head']!r}")
        # the Data page's preview shows the user's whole table: its mapped columns first, the
        # rest may be a scroll away; every other table fits whole
        if t["hidden"] > 1 and not t["preview"]:
            problems.append(f"table hides {t['hidden']:.0f} px of columns behind a scroll: "
                            f"{t['head']!r}")
    nxt = page.evaluate(_NEXT_JS)
    if not nxt["found"]:
        problems.append("no Next link")
    elif nxt["after"]:
        problems.append(f"the page does not end with its Next link: after it {nxt['after']}")
    return problems


CASES = [pytest.param(dataset, spec, id=f"{dataset}-{spec.url_path}")
         for dataset in ("demo", "judge") for spec in PAGES]


@pytest.mark.parametrize("dataset,spec", CASES)
def test_page_reads_clean(tabs, app_url, dataset, spec, tmp_path_factory):
    page = tabs(dataset)
    nav = app_nav(page)
    link = nav.locator(f'a[href="{app_url}/{spec.url_path}"]' if spec.url_path != "home"
                       else f'a[href="{app_url}/"]').first
    if not link.count():  # the home page's link may be written without the slash
        link = nav.locator("a").nth([p.file for p in PAGES].index(spec.file))
    link.click()
    page.wait_for_url(re.compile(re.escape(app_url) + "/" + ("" if spec.url_path == "home"
                                                            else re.escape(spec.url_path)) + "$"))
    title = "HMCEval Studio" if spec.file == "0_Home.py" else spec.title
    page.locator("h1", has_text=title).first.wait_for(timeout=120_000)
    settle(page)
    problems = page_problems(page)
    if problems and os.environ.get("HMCEVAL_E2E_SHOTS"):
        shots = Path(os.environ["HMCEVAL_E2E_SHOTS"])
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / f"{dataset}-{spec.url_path}.png"), full_page=True)
    assert not problems, f"{dataset} · {spec.title}:\n  " + "\n  ".join(problems)


def test_judge_frame_is_what_the_cases_claim():
    """The generated table is the judge-style case: three classes, seconds, two subgroups."""
    f = judge_frame()
    assert len(f) == JUDGE_ROWS
    assert set(f["judge_verdict"]) == set(f["human_verdict"]) == {"safe", "unsafe", "borderline"}
    assert f["review_secs"].min() > 0 and f["judge_confidence"].between(0, 1).all()
    assert "turn" not in f.columns


def test_the_checks_find_what_issue_33_saw():
    """The text checks themselves, on the issue's examples and on plain text."""
    assert abbreviation_problems("Method: PPI++ (4,000 labels)")
    assert abbreviation_problems("AURC ↓ 0.031")
    assert not abbreviation_problems("Labels and predictions combined (PPI++)")
    assert not abbreviation_problems("error, surest kept ↓ (AURC)")
    assert not abbreviation_problems("ECEs of PPI++x")  # words, not the abbreviations
    assert number_problems(["λ = 0.0014706064690026956", "1210 of 3000 labelled"])
    assert not number_problems(["λ = 0.001471", "1,210 of 3,000 labelled (40.3%)"])

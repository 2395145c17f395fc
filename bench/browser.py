"""Browser wall time of a slider move on the Trade-off page (issue 25, item 6).

Run from the project root: ``python bench/browser.py`` (the demo and a 10^5-row table; about
2-4 minutes on a busy 2-core machine), ``--rows 0`` for the demo only, ``--moves 9`` for more
moves. Figures, never assertions; targets: <= 0.5 s on the demo, <= 1 s at 10^5 rows.

A real ``python app.py`` server on 127.0.0.1 (temporary workspace) and Debian's chromium
(``/usr/bin/chromium``) driven by Playwright, in a 1,400 x 1,000 window. The 10^5-row table is
the demo generator's (``core.demo.make_demo(20_001, seed=7)``, its first 10^5 rows), written to a temporary CSV and
uploaded through the Data page as a user would.

What is timed: the "Human share N / M" slider on the Trade-off page is focused and moved one
step to the left with the keyboard (a new N each time, never a visited one), and the time runs
from the key press to the page settling: the "Human ratio" metric shows a new value, no spinner
is shown, and nothing on the page changed for 1.5 s. The time of the last change of the page
(a MutationObserver) is the settle time, so the quiet window is not counted. All times are the
browser's ``performance.now()``. Each move is split into:

- ``first``: key press to the first message of the server (the rerun started and its first
  element sent);
- ``server``: key press to the last message of the server (the script run over, everything sent:
  server time plus the socket);
- ``render``: last message to the last change of the page (the browser drawing what it got).

Printed: median, min and max over the moves, and two references timed in the same run: a plain
reload of the Trade-off page (a new session: the page drawn from the server's caches) and
``bench/_timing.py``'s argsort of 10^5 floats (the machine's speed), with each median's ratio to
them.

First visits (``--visits``, on by default; target <= 3 s a page once the app is warm): once the
demo's Trade-off moves are timed (the server has imported everything and drawn one page), every
page of ``pages/_registry.py`` is opened once through the sidebar, in its order, on the demo: the
time from the click to the page settling (its "Next:" link drawn, no spinner, nothing changed
for 1.5 s; the quiet window not counted). A second round of visits in the same session is the
reference (the page from the server's caches).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import argsort_reference  # noqa: E402

from tests.e2e.servers import ARGS, CHROMIUM, app_nav, streamlit_server  # noqa: E402

#: Installed in every page before the app's own scripts: the time of the page's last change
#: and of the last message the server sent on the app's socket.
INIT_JS = """
window.__lastChange = performance.now(); window.__firstFrame = null; window.__lastFrame = 0;
new MutationObserver(() => { window.__lastChange = performance.now(); })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
const _WS = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new _WS(...args);
  ws.addEventListener('message', () => {
    const t = performance.now();
    if (window.__firstFrame === null) window.__firstFrame = t;
    window.__lastFrame = t;
  });
  return ws;
};
window.WebSocket.prototype = _WS.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""

METRIC_JS = """(label) => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]
  .find(e => e.innerText.includes(label));
  return m ? m.querySelector('[data-testid=stMetricValue]').innerText : null; }"""

SETTLED_JS = """([label, old, quiet]) => {
  const m = [...document.querySelectorAll('[data-testid=stMetric]')].find(e => e.innerText.includes(label));
  const v = m ? m.querySelector('[data-testid=stMetricValue]').innerText : null;
  return v !== null && v !== old && !document.querySelector('[data-testid=stSpinner]')
    && performance.now() - window.__lastChange > quiet; }"""

QUIET_JS = """(quiet) => !document.querySelector('[data-testid=stSpinner], [data-testid=stSkeleton]')
  && performance.now() - window.__lastChange > quiet"""

SLIDER = 'Human share N / M'
QUIET_MS = 1500


def settle(page, timeout: float = 600_000) -> None:
    page.wait_for_function(QUIET_JS, arg=QUIET_MS, timeout=timeout, polling=100)


def open_tradeoff(page, url: str) -> None:
    app_nav(page).locator('a[href$="/trade-off"]').first.click()
    page.locator("h1", has_text="Trade-off").wait_for(timeout=600_000)
    page.locator(f'input[type="range"][aria-label="{SLIDER}"]').wait_for(timeout=600_000)
    settle(page)


def upload(page, path: Path) -> None:
    app_nav(page).locator('a[href$="/data"]').first.click()
    page.locator("h1", has_text="Data").wait_for()
    page.locator('input[type="file"]').first.set_input_files(str(path))
    page.get_by_text(f"Column mapping · {path.name}").wait_for(timeout=600_000)
    page.get_by_role("button", name="Validate and make active").click()
    page.get_by_text(f"{path.name} is now the active dataset").wait_for(timeout=600_000)
    settle(page)


NEXT_QUIET_JS = """(quiet) => {
  const next = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink]')]
    .some(e => /(^|\\s)Next:/.test(e.innerText));
  return next && !document.querySelector('[data-testid=stSpinner], [data-testid=stSkeleton]')
    && performance.now() - window.__lastChange > quiet; }"""


def visit(page, url: str, spec) -> float:
    """Seconds from a click on ``spec``'s sidebar link to its page settled (see the module
    docstring), the quiet window not counted."""
    nav = app_nav(page)
    link = nav.locator(f'a[href="{url}/{spec.url_path}"]' if spec.url_path != "home"
                       else f'a[href="{url}/"]').first
    page.evaluate("window.__t0 = performance.now()")
    link.click()
    title = "HMCEval Studio" if spec.file == "0_Home.py" else spec.title
    page.locator("h1", has_text=title).first.wait_for(timeout=600_000)
    page.wait_for_function(NEXT_QUIET_JS, arg=QUIET_MS, timeout=600_000, polling=100)
    return page.evaluate("(window.__lastChange - window.__t0) / 1000")


def visits(page, url: str) -> list[tuple[str, float, float]]:
    """Every declared page visited twice in order: (title, first visit s, second visit s)."""
    from pages._registry import PAGES

    first = {}
    for spec in PAGES:
        print(f"  first visit: {spec.title}…", file=sys.stderr, flush=True)
        first[spec.title] = visit(page, url, spec)
    return [(spec.title, first[spec.title], visit(page, url, spec)) for spec in PAGES]


def moves(page, n: int) -> list[dict]:
    """``n`` keyboard moves of the share slider, one step left each; the times of each."""
    thumb = page.locator(f'input[type="range"][aria-label="{SLIDER}"]').first
    out = []
    for _ in range(n):
        old = page.evaluate(METRIC_JS, "Human ratio")
        thumb.focus()
        page.evaluate("window.__firstFrame = null; window.__t0 = performance.now()")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(SETTLED_JS, arg=["Human ratio", old, QUIET_MS], timeout=600_000,
                               polling=100)
        t = page.evaluate("({t0: window.__t0, first: window.__firstFrame, last: window.__lastFrame,"
                          " change: window.__lastChange})")
        out.append({"settle": (t["change"] - t["t0"]) / 1000,
                    "first": ((t["first"] or t["t0"]) - t["t0"]) / 1000,
                    "server": (t["last"] - t["t0"]) / 1000,
                    "render": max(0.0, t["change"] - t["last"]) / 1000,
                    "value": page.evaluate(METRIC_JS, "Human ratio")})
    return out


def reload_time(page, repeat: int = 3) -> float:
    """Median time from a reload of the Trade-off page to it settling (its last change)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        page.reload(wait_until="domcontentloaded")
        page.locator(f'input[type="range"][aria-label="{SLIDER}"]').wait_for(timeout=600_000)
        settle(page)
        waited = QUIET_MS / 1000  # the quiet window is not the page's time
        times.append(time.perf_counter() - t0 - waited)
    return statistics.median(times)


def report(name: str, rows: list[dict], reload_s: float, ref: float) -> None:
    def stats(key: str) -> str:
        v = [r[key] for r in rows]
        return (f"median {statistics.median(v):6.3f} s  min {min(v):6.3f}  max {max(v):6.3f}")

    med = statistics.median(r["settle"] for r in rows)
    print(f"\n{name}: {len(rows)} moves of the N slider (keyboard, one step each)")
    print(f"  settle  {stats('settle')}")
    print(f"  first   {stats('first')}   (key press -> first message of the server)")
    print(f"  server  {stats('server')}   (key press -> last message of the server)")
    print(f"  render  {stats('render')}   (last message -> last change of the page)")
    print(f"  reload of the page (reference): {reload_s:.3f} s; settle median / reload = "
          f"{med / reload_s:.2f}; / argsort reference = {med / ref:,.0f}")
    print(f"  human ratio shown after each move: {', '.join(r['value'] for r in rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000,
                        help="rows of the generated table (0: the demo only)")
    parser.add_argument("--moves", type=int, default=7)
    parser.add_argument("--no-visits", dest="visits", action="store_false",
                        help="skip the first visit of every page")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    ref_before = argsort_reference()
    tmp = Path(tempfile.mkdtemp(prefix="hmceval_browser_bench_"))
    results = []
    with streamlit_server(tmp / "server.log", env={"HMCEVAL_WORKSPACE": str(tmp / "ws"),
                                                   "HMCEVAL_WARMUP": "1"}) as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.add_init_script(INIT_JS)
        page = ctx.new_page()
        page.set_default_timeout(600_000)
        page.goto(url, wait_until="domcontentloaded")
        open_tradeoff(page, url)
        moves(page, 1)  # warm-up: the first move fills the per-session caches
        print("demo: timing the moves…", file=sys.stderr, flush=True)
        results.append(("demo (3,557 rows)", moves(page, args.moves), reload_time(page)))
        visited = visits(page, url) if args.visits else []
        if args.rows:
            from core.demo import make_demo

            path = tmp / f"generated_{args.rows}.csv"
            # the demo's dialogues average about 5.1 rows: enough of them, cut at the rows
            make_demo(args.rows // 5 + 1, seed=7).head(args.rows).to_csv(path, index=False)
            print(f"{args.rows:,} rows: uploading…", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            upload(page, path)
            print(f"\nupload and validation of {args.rows:,} rows: "
                  f"{time.perf_counter() - t0 - QUIET_MS / 1000:.1f} s")
            open_tradeoff(page, url)
            moves(page, 1)
            results.append((f"generated ({args.rows:,} rows)", moves(page, args.moves),
                            reload_time(page)))
        browser.close()
    ref = (ref_before + argsort_reference()) / 2
    print(f"\nreference: one stable argsort of 10^5 floats, {ref * 1e3:.3f} ms (median, before "
          f"and after)")
    for name, rows, reload_s in results:
        report(name, rows, reload_s, ref)
    if visited:
        print("\nfirst visit of every page on the demo, once the app is warm (click -> settled; "
              "target <= 3 s), and a second visit (reference)")
        for title, first_s, again_s in visited:
            print(f"  {title:<13} {first_s:6.2f} s   again {again_s:6.2f} s")


if __name__ == "__main__":
    main()

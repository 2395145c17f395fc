"""Paired A/B of ``bench/browser.py``'s slider move: the code before and after a change, timed
in one run on a shared, loaded machine (issue 33).

``python bench/browser_ab.py --a /tmp/base`` with ``/tmp/base`` a copy of the code before
(``git archive HEAD | tar -x -C /tmp/base``); ``--b`` is this tree by default. Two servers
(``python app.py`` of each tree, temporary workspaces) and one chromium, a page each; the moves
of ``bench/browser.py`` (one keyboard step of the N slider, to a settled page) alternate
A, B, B, A, ... so both sides see the same load; then a reload of each. ``--rows 100000``
uploads the demo generator's table to both first. Printed per side: the medians of
``bench/browser.py``'s split (settle, first, server, render), the reload, and the browser main
thread's own work per move (Chrome's ``Performance.getMetrics``: ``ThreadTime``, CPU time, is
the least sensitive to the load; ``TaskDuration``, wall time of its tasks). Figures, never
assertions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import browser as B  # noqa: E402

from tests.e2e.servers import ARGS, CHROMIUM, free_port  # noqa: E402


def server(root: Path, tmp: Path, tag: str):
    """``python app.py`` of the tree ``root`` on a free port: (process, URL)."""
    port = free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", PYTHONPATH=str(root),
               HMCEVAL_WORKSPACE=str(tmp / f"ws_{tag}"), HMCEVAL_WARMUP="1")
    with open(tmp / f"server_{tag}.log", "w") as fh:
        proc = subprocess.Popen([sys.executable, str(root / "app.py"), "--server.port", str(port),
                                 "--browser.gatherUsageStats", "false"], cwd=root, stdout=fh,
                                stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(180):
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.5)
    return proc, url


def metrics(cdp) -> dict:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the tree before (a copy of the code)")
    parser.add_argument("--b", default=str(ROOT), help="the tree after (default: this one)")
    parser.add_argument("--rounds", type=int, default=10, help="moves of each side")
    parser.add_argument("--rows", type=int, default=0, help="rows of a generated table (0: demo)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="hmceval_browser_ab_"))
    procs = {tag: server(Path(root).resolve(), tmp, tag) for tag, root in (("A", args.a),
                                                                           ("B", args.b))}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            pages, cdps = {}, {}
            for tag, (_, url) in procs.items():
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                ctx.add_init_script(B.INIT_JS)
                page = ctx.new_page()
                page.set_default_timeout(600_000)
                page.goto(url, wait_until="domcontentloaded")
                if args.rows:
                    from core.demo import make_demo

                    path = tmp / f"generated_{args.rows}.csv"
                    if not path.exists():
                        make_demo(args.rows // 5 + 1, seed=7).head(args.rows).to_csv(path, index=False)
                    B.app_nav(page)
                    B.upload(page, path)
                B.open_tradeoff(page, url)
                B.moves(page, 1)  # warm-up
                pages[tag], cdps[tag] = page, ctx.new_cdp_session(page)
                cdps[tag].send("Performance.enable")
            rows = {"A": [], "B": []}
            work = {"A": [], "B": []}
            for r in range(args.rounds):
                for tag in ("AB" if r % 2 == 0 else "BA"):
                    m0 = metrics(cdps[tag])
                    rows[tag] += B.moves(pages[tag], 1)
                    m1 = metrics(cdps[tag])
                    work[tag].append((m1.get("ThreadTime", 0) - m0.get("ThreadTime", 0),
                                      m1["TaskDuration"] - m0["TaskDuration"]))
            reloads = {tag: B.reload_time(pages[tag], repeat=1) for tag in "AB"}
            reloads = {tag: statistics.median([reloads[tag], B.reload_time(pages[tag], repeat=1)])
                       for tag in "BA"}
            browser.close()
    finally:
        for proc, _ in procs.values():
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"{'demo' if not args.rows else f'{args.rows:,} rows'}: {args.rounds} moves a side, "
          "alternated (A: before, B: after)")
    for tag in "AB":
        def med(key: str) -> float:
            return statistics.median(r[key] for r in rows[tag])

        print(f"  {tag}: settle median {med('settle'):.3f} s (min "
              f"{min(r['settle'] for r in rows[tag]):.3f}), first {med('first'):.3f}, server "
              f"{med('server'):.3f}, render {med('render'):.3f}; reload {reloads[tag]:.3f} s; "
              f"browser main thread per move: CPU {statistics.median(w[0] for w in work[tag]):.3f} s"
              f", tasks {statistics.median(w[1] for w in work[tag]):.3f} s")
        print(f"     human ratio after each move: {', '.join(r['value'] for r in rows[tag])}")


if __name__ == "__main__":
    main()

"""kill -9 at random moments of queue, labels, labelstudio pull, certify and estimate on a
large table (issue 32, item 3): files and workspace both as before or both as after, every time.

For each command the bench sets up the state before its step (a workspace and an output
folder), runs the command to its end once from that state to get the state after (and its
wall time T), puts the state before back, then ``--kills`` times: starts the command, sends
it SIGKILL after a random delay drawn uniformly in [0, T), runs the next command that opens
the workspace (``hmceval workspace list``: a step's journal is replayed there), and compares.
A state is the bytes of every file of the output folder (hidden temporaries included; the
lock files ``*.lock``, which stay by design, left out) and the workspace read with sqlite3:
the row count of every table, the rounds (plan file, rows to label, settings), the labels
(round, row, label), the results' kinds, the meta rows and the table files. Each killed run
ends "before", "after" or "MIXED" (a failure); a kill that came after the command ended is
counted as "ended" (its state must be "after") and not as one of the ``--kills``: another
moment is drawn, from a window no longer than that run took.

``labelstudio pull`` pulls from a real Label Studio 1.23 server started for the bench
(``tests.e2e.test_labelstudio.launch``; ``--label-studio EXE``, default
``.venv-labelstudio/bin/label-studio``), where the round's queue was pushed and
``--annotate`` of its tasks were labelled through the API as the editor does.

Run: ``python bench/kill.py`` (200,000 rows, 20 kills per command; about 20 minutes on two
cores). ``--rows 20000 --kills 3`` for a quick look.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TABLES = ("rounds", "labels", "annotations", "label_imports", "results", "events", "datasets",
          "scenarios")


def workspace_state(ws: Path) -> dict:
    """What a step may change in the workspace, read with sqlite3 (no timestamps)."""
    con = sqlite3.connect(ws / "workspace.sqlite")
    try:
        out = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
        out["rounds_rows"] = [list(r) for r in con.execute(
            "SELECT id, plan_file, n_to_label, settings_json FROM rounds ORDER BY id")]
        digest = hashlib.sha256()
        for row in con.execute("SELECT round_id, row, label_json FROM labels ORDER BY 1, 2, 3"):
            digest.update(repr(tuple(row)).encode())
        out["labels_digest"] = digest.hexdigest()
        out["results_kinds"] = [list(r) for r in con.execute(
            "SELECT round_id, kind FROM results ORDER BY id")]
        out["meta"] = sorted(list(r) for r in con.execute("SELECT key, value FROM meta"))
    finally:
        con.close()
    out["files"] = sorted(os.listdir(ws / "tables"))
    return out


def folder_state(folder: Path) -> dict:
    """Every file of ``folder`` (hidden ones too; not ``*.lock``) with its SHA-256."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file() and not p.name.endswith(".lock")}


class Scene:
    """A workspace and an output folder under ``root``, run with ``hmceval``."""

    def __init__(self, root: Path):
        self.root = root
        self.ws = root / "ws"
        self.out = root / "out"
        self.out.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "HMCEVAL_WORKSPACE": str(self.ws), "PYTHONPATH": str(ROOT)}
        self.env.pop("HMCEVAL_TEST_KILL_AT", None)

    def argv(self, *args) -> list[str]:
        return [sys.executable, "-m", "core.cli", *map(str, args)]

    def run(self, *args) -> str:
        proc = subprocess.run(self.argv(*args), env=self.env, capture_output=True, text=True,
                              cwd=self.root)
        if proc.returncode != 0:
            raise SystemExit(f"hmceval {' '.join(map(str, args))} failed:\n{proc.stderr}")
        return proc.stdout + proc.stderr

    def state(self) -> tuple[dict, dict]:
        return folder_state(self.out), workspace_state(self.ws)

    def save(self) -> None:
        self.saved = self.root / "saved"
        shutil.rmtree(self.saved, ignore_errors=True)
        self.saved.mkdir()
        for d in (self.ws, self.out):
            shutil.copytree(d, self.saved / d.name, symlinks=True)

    def restore(self) -> None:
        for d in (self.ws, self.out):
            shutil.rmtree(d)
            shutil.copytree(self.saved / d.name, d, symlinks=True)


def trials(scene: Scene, args: list, kills: int, rng: np.random.Generator) -> dict:
    """The state before and after ``args`` run whole, then ``kills`` runs killed at random."""
    scene.save()
    before = scene.state()
    t0 = time.monotonic()
    scene.run(*args)
    wall = full = time.monotonic() - t0
    after = scene.state()
    assert after != before, "the command changed nothing"
    outcomes, notes, mixed = [], [], []
    attempts = 0
    while sum(o != "ended" for o in outcomes) < kills and attempts < 3 * kills:
        attempts += 1
        scene.restore()
        assert scene.state() == before
        delay = float(rng.uniform(0, wall))
        proc = subprocess.Popen(scene.argv(*args), env=scene.env, cwd=scene.root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        ended = proc.poll() is not None
        if ended:  # not a kill: drawn again, from a window no longer than this run took
            wall = min(wall, delay)
        else:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        repair = scene.run("workspace", "list", "--json")
        state = scene.state()
        journal = list((scene.ws / "journal").glob("step-*")) if (scene.ws / "journal").is_dir() else []
        if journal:
            mixed.append(f"journal left: {journal}")
        kind = ("ended" if ended else "before") if state == before else None
        if state == after:
            kind = "ended" if ended else "after"
        if kind is None or (ended and kind != "ended"):
            kind = "MIXED"
            diff = [k for k in state[0].keys() | before[0].keys() | after[0].keys()
                    if state[0].get(k) not in (before[0].get(k), after[0].get(k))]
            mixed.append(f"at {delay:.2f} s: files {diff}; workspace "
                         f"{'before' if state[1] == before[1] else 'after' if state[1] == after[1] else 'neither'}")
        outcomes.append(kind)
        if "taken back" in repair:
            notes.append("taken back")
        elif "finished" in repair:
            notes.append("finished")
    scene.restore()
    return {"wall_s": round(full, 2), "window_s": round(wall, 2), "kills": sum(o != "ended" for o in outcomes),
            **{k: outcomes.count(k) for k in ("before", "after", "ended", "MIXED")},
            "journal_taken_back": notes.count("taken back"),
            "journal_finished": notes.count("finished"), "problems": mixed}


def label_studio(exe: Path, tmp: Path):
    """A Label Studio server and the admin's personal access token."""
    from tests.e2e.test_labelstudio import ADMIN, ADMIN_PW, launch, personal_access_token

    tmp.mkdir(parents=True, exist_ok=True)
    proc, base, started = launch(tmp, exe)
    return proc, base, personal_access_token(base, ADMIN, ADMIN_PW), started


def annotate(url: str, token: str, title: str, gold: dict, n: int, rng) -> int:
    """Label ``n`` of the project's tasks with their gold label, as the editor does."""
    from core.evaluation.labelstudio import LabelStudioClient

    client = LabelStudioClient(url, token)
    project = client.find_project(title)
    tasks = client.export(int(project["id"]))
    config = client.request("GET", f"/api/projects/{project['id']}/")["label_config"]
    to_name = config.split('toName="', 1)[1].split('"', 1)[0]
    chosen = rng.choice(len(tasks), size=min(n, len(tasks)), replace=False)
    for i in chosen:
        task = tasks[int(i)]
        client.request("POST", f"/api/tasks/{task['id']}/annotations/", body={"result": [
            {"from_name": "label", "to_name": to_name, "type": "choices",
             "value": {"choices": [str(gold[str(task["data"]["sample_id"])])]}}],
            "lead_time": 3.0})
    return len(chosen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--annotate", type=int, default=300,
                    help="Label Studio tasks labelled before the pull (default 300)")
    ap.add_argument("--label-studio", type=Path,
                    default=Path(os.environ.get("HMCEVAL_LABEL_STUDIO",
                                                ROOT / ".venv-labelstudio/bin/label-studio")))
    ap.add_argument("--only", action="append",
                    help="run only these commands (queue, labels, pull, certify, estimate)")
    ap.add_argument("--json", type=Path, help="also write the results to this file")
    args = ap.parse_args(argv)
    from core.demo import make_demo

    rng = np.random.default_rng(args.seed)
    only = set(args.only or ["queue", "labels", "pull", "certify", "estimate"])
    tmp = Path(tempfile.mkdtemp(prefix="hmceval-kill-"))
    print(f"working in {tmp}", flush=True)
    df = make_demo(max(1, round(args.rows / 5.0)), seed=11)
    table = tmp / "big.csv"
    df.drop(columns=["human_label", "human_label_2"]).to_csv(table, index=False)
    gold = dict(zip(df["sample_id"].astype(str), df["human_label"]))
    print(f"table: {len(df):,} rows, {table.stat().st_size / 1e6:.1f} MB", flush=True)

    def back(scene: Scene, to_label: str, share: float, name: str) -> Path:
        """Gold labels for the first ``share`` of the rows still to label."""
        ids = pd.read_csv(scene.out / to_label)["sample_id"].astype(str)
        ids = ids.iloc[:max(1, int(share * len(ids)))]
        path = scene.root / name
        pd.DataFrame({"sample_id": ids, "label": [gold[i] for i in ids]}).to_csv(path,
                                                                                 index=False)
        return path

    results: dict[str, dict] = {}
    budget = ["--human-share", 0.01, "--audit", 50]
    if "queue" in only:  # a second plan over the first round's files
        s = Scene(tmp / "queue")
        s.run("queue", table, *budget, "--seed", 1, "-o", s.out / "q.csv")
        results["queue"] = trials(s, ["queue", table, *budget, "--seed", 2, "-o",
                                      s.out / "q.csv"], args.kills, rng)
        print("queue", json.dumps(results["queue"]), flush=True)
    if "labels" in only:  # half the queue's labels into a round with a tenth already
        s = Scene(tmp / "labels")
        s.run("queue", table, *budget, "--seed", 1, "-o", s.out / "q.csv")
        first = back(s, "q_to_label.csv", 0.1, "first.csv")
        s.run("labels", s.out / "q.csv", "--from", first, "-o", s.out / "q.csv")
        more = back(s, "q_to_label.csv", 0.5, "more.csv")
        results["labels"] = trials(s, ["labels", s.out / "q.csv", "--from", more, "-o",
                                       s.out / "q.csv"], args.kills, rng)
        print("labels", json.dumps(results["labels"]), flush=True)
    if "certify" in only or "estimate" in only:  # a guarantee round, 1,000 calibration labels
        s = Scene(tmp / "certify")
        s.run("queue", table, "--calibration", 1000, "--seed", 1, "-o", s.out / "g.csv")
        cal = back(s, "g_to_label.csv", 1.0, "cal.csv")
        s.run("labels", s.out / "g.csv", "--from", cal, "-o", s.out / "g.csv")
        certify = ["certify", s.out / "g.csv", "--alpha", 0.1, "--delta", 0.1, "--audit", 50,
                   "--seed", 3, "-o", s.out / "c.csv"]
        if "certify" in only:
            results["certify"] = trials(s, certify, args.kills, rng)
            print("certify", json.dumps(results["certify"]), flush=True)
        if "estimate" in only:  # the certified round, its queue labelled
            s.run(*certify)
            rest = back(s, "c_to_label.csv", 1.0, "rest.csv")
            s.run("labels", s.out / "c.csv", "--from", rest, "-o", s.out / "c.csv")
            results["estimate"] = trials(s, ["estimate", s.out / "c.csv", "--json"],
                                         args.kills, rng)
            print("estimate", json.dumps(results["estimate"]), flush=True)
    if "pull" in only:
        proc, url, token, started = label_studio(args.label_studio, tmp / "ls-server")
        print(f"Label Studio up in {started:.0f} s at {url}", flush=True)
        try:
            s = Scene(tmp / "pull")
            s.run("queue", table, *budget, "--seed", 1, "-o", s.out / "q.csv")
            pushed = s.run("labelstudio", "push", s.out / "q.csv", "--url", url, "--token", token)
            title = pushed.split("'", 1)[1].rsplit("'", 1)[0]
            n = annotate(url, token, title, gold, args.annotate, rng)
            print(f"pushed: {pushed.strip()}; {n} tasks annotated", flush=True)
            results["labelstudio pull"] = trials(
                s, ["labelstudio", "pull", s.out / "q.csv", "--url", url, "--token", token,
                    "-o", s.out / "q.csv"], args.kills, rng)
            print("labelstudio pull", json.dumps(results["labelstudio pull"]), flush=True)
        finally:
            from tests.e2e.test_labelstudio import stop

            stop(proc)
    print(f"\n{'command':<18}{'wall s':>8}{'kills':>7}{'before':>8}{'after':>7}{'ended':>7}"
          f"{'MIXED':>7}")
    for name, r in results.items():
        print(f"{name:<18}{r['wall_s']:>8}{r['kills']:>7}{r['before']:>8}{r['after']:>7}"
              f"{r['ended']:>7}{r['MIXED']:>7}")
        for p in r["problems"]:
            print(f"   {p}")
    if args.json:
        args.json.write_text(json.dumps({"rows": len(df), **results}, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if any(r["MIXED"] for r in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A real Label Studio 1.23 server: push a planned queue, annotate through the API as annotators
do, pull the export and check that it gives the same estimate as the same labels in a CSV.

The server comes from ``.venv-labelstudio`` (``make labelstudio``; ``make test`` builds it). It
runs on 127.0.0.1 on a free port with its data (and the home folders it writes to) in a
temporary folder, and is stopped at the end even when a test fails.

Users and tokens are set up as Label Studio's documentation describes for 1.23, where legacy
tokens are off by default: the admin is created by ``label-studio start --username ...
--password ...``; the second annotator signs up on ``/user/signup/`` (the page a user opens);
each user logs in (``/user/login/``) and creates a personal access token with ``POST
/api/token/`` (what *Account & Settings > Personal Access Token > Create* does). The client
exchanges it for access tokens at ``/api/token/refresh/``.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling.design import load_design, plan_queue, queue_table
from core.evaluation.estimate.shares import estimate
from core.evaluation.labels.imports import join_labels, labels_from_table
from core.evaluation.labelstudio.export import labels_from_labelstudio
from core.evaluation.labelstudio.project import labelling_config, tasks
from core.evaluation.labelstudio.client import LabelStudioClient

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXE = ROOT / ".venv-labelstudio" / "bin" / "label-studio"
ADMIN, ADMIN_PW = "admin@example.org", "admin-pass-1234"
ANN2, ANN2_PW = "second@example.org", "second-pass-1234"
START_TIMEOUT = 240


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)


def personal_access_token(base: str, email: str, password: str, *, signup: bool = False) -> str:
    """Log in (or sign up) through the web form, then create the user's personal access token
    with ``POST /api/token/`` in that session, as the Account & Settings page does."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = "/user/signup/" if signup else "/user/login/"
    opener.open(base + page, timeout=30).read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode({"email": email, "password": password,
                                   "csrfmiddlewaretoken": csrf}).encode()
    opener.open(urllib.request.Request(base + page, data=form,
                                       headers={"Referer": base + page}), timeout=30).read()
    assert any(c.name == "sessionid" for c in jar), f"{page} did not log {email} in"
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    req = urllib.request.Request(base + "/api/token/", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-CSRFToken": csrf, "Referer": base + "/"})
    with opener.open(req, timeout=30) as r:
        return json.loads(r.read())["token"]


def launch(tmp: Path, exe: Path = EXE) -> tuple[subprocess.Popen, str, float]:
    """Start a fresh Label Studio server with its data (and home folders) in ``tmp``, on
    127.0.0.1 on a free port; ``(process, URL, seconds it took to answer)``. Also used by
    ``bench/kill.py``. A server that exits or does not answer in time is stopped and a
    RuntimeError says why, with the end of its log."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LABEL_STUDIO_", "HEARTEX_", "PYTHON", "DJANGO_"))
           and k not in ("USERNAME", "PASSWORD", "USER_TOKEN", "HOST", "PORT", "DATABASE_NAME")}
    env.update({
        "HOME": str(tmp / "home"), "XDG_DATA_HOME": str(tmp / "xdg-data"),
        "XDG_CONFIG_HOME": str(tmp / "xdg-config"), "XDG_CACHE_HOME": str(tmp / "xdg-cache"),
        # no calls out: version check, analytics and error reporting off
        "LATEST_VERSION_CHECK": "false", "COLLECT_ANALYTICS": "false",
        "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "",
    })
    log = tmp / "server.log"
    cmd = [str(exe), "start", "--no-browser", "--host", base, "--internal-host", "127.0.0.1",
           "--port", str(port), "--data-dir", str(tmp / "data"),
           "--username", ADMIN, "--password", ADMIN_PW]
    t0 = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp,
                                start_new_session=True)
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"label-studio exited with code {proc.returncode}:\n"
                               f"{_log_tail(log)}")
        if time.monotonic() - t0 > START_TIMEOUT:
            _stop(proc)
            raise RuntimeError(f"label-studio did not answer on {base} within "
                               f"{START_TIMEOUT} s:\n{_log_tail(log)}")
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as r:
                if r.status == 200:
                    return proc, base, time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    """Stop a server :func:`launch` started (its whole process group)."""
    _stop(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A fresh Label Studio server; yields its URL and the two users' personal access tokens."""
    if not EXE.is_file():
        pytest.fail(f"Label Studio is not installed at {EXE}: run `make labelstudio` (make test "
                    "does it) to create .venv-labelstudio")
    tmp = tmp_path_factory.mktemp("labelstudio")
    try:
        proc, base, started = launch(tmp)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    log = tmp / "server.log"
    try:
        admin_pat = personal_access_token(base, ADMIN, ADMIN_PW)
        second_pat = personal_access_token(base, ANN2, ANN2_PW, signup=True)
        yield {"url": base, "admin": admin_pat, "second": second_pat, "started": started,
               "log": log}
    finally:
        _stop(proc)
        assert proc.poll() is not None, "the Label Studio server is still running"


def small_round() -> tuple[pd.DataFrame, np.ndarray]:
    """40 responses, machine labels and confidences, gold labels that annotators will give."""
    rng = np.random.default_rng(7)
    m = 40
    gold = rng.integers(0, 2, size=m)
    conf = np.round(rng.uniform(0.5, 1.0, size=m), 3)
    wrong = rng.random(m) < 0.4 * (1 - conf) / 0.5
    machine = np.where(wrong, 1 - gold, gold)
    df = pd.DataFrame({"sample_id": np.arange(101, 101 + m), "response": [
        f"response number {i} about topic {i % 5}" for i in range(m)],
        "machine_label": machine, "machine_confidence": conf})
    return df, gold


def _annotate(client: LabelStudioClient, task_id: int, value: str | None, *,
              to_name: str) -> None:
    """Submit (or, with value None, skip) a task as the Label Studio editor does."""
    if value is None:
        client.request("POST", f"/api/tasks/{task_id}/annotations/",
                       params={"was_cancelled": 1}, body={"result": [], "was_cancelled": True})
        return
    client.request("POST", f"/api/tasks/{task_id}/annotations/", body={"result": [
        {"from_name": "label", "to_name": to_name, "type": "choices",
         "value": {"choices": [value]}}], "lead_time": 4.2})


def test_round_trip_through_label_studio_gives_the_csv_estimate(server, tmp_path):
    t_start = time.monotonic()
    df, gold = small_round()
    design = load_design(df, {"sample_id": "sample_id", "text": ["response"]})
    plan = plan_queue(design, lam=0.0, share=0.3, audit=8, seed=3)
    queued = np.flatnonzero(np.isfinite(plan.queue_rank))
    assert len(queued) == plan.counts["routed"] + 8 >= 15
    task_list = tasks(design, plan.queue_rank)
    config = labelling_config([0, 1], design.data.text_columns)

    admin = LabelStudioClient(server["url"], server["admin"])
    assert admin.auth == "pat"
    assert admin.check()["email"] == ADMIN
    pushed = admin.push_queue("HMCEval round 1", config, task_list)
    assert pushed.project.created and pushed.n_sent == len(task_list) and pushed.n_existing == 0
    # pushing again reuses the project and imports nothing twice
    again = admin.push_queue("HMCEval round 1", config, task_list)
    assert again.project.id == pushed.project.id and not again.project.created
    assert again.n_sent == 0 and again.n_existing == len(task_list)
    pid = pushed.project.id

    # the annotators: the admin labels every task with its gold label but skips one audit row;
    # the second annotator labels two routed rows too (agreeing with the admin) and one audit
    # row, where they disagree: a tie that leaves the row for adjudication
    second = LabelStudioClient(server["url"], server["second"])
    assert second.check()["email"] == ANN2
    exported = admin.export(pid)
    task_of = {str(t["data"]["sample_id"]): t["id"] for t in exported}
    assert len(task_of) == len(task_list) and all(not t["annotations"] for t in exported)
    ids = design.sample_ids()
    audit_rows = [i for i in queued if plan.selection[i] == "audit"]
    routed_rows = [i for i in queued if plan.selection[i] == "routed"]
    skipped_row, tie_row = audit_rows[0], audit_rows[1]
    to_name = "show_" + design.data.text_columns[-1]
    csv_rows = []
    for i in queued:
        sid = str(ids[i])
        if i == skipped_row:
            _annotate(admin, task_of[sid], None, to_name=to_name)
            continue
        _annotate(admin, task_of[sid], str(gold[i]), to_name=to_name)
        csv_rows.append((sid, "admin", int(gold[i])))
    for i in routed_rows[:2]:
        _annotate(second, task_of[str(ids[i])], str(gold[i]), to_name=to_name)
        csv_rows.append((str(ids[i]), "second", int(gold[i])))
    _annotate(second, task_of[str(ids[tie_row])], str(1 - gold[tie_row]), to_name=to_name)
    csv_rows.append((str(ids[tie_row]), "second", int(1 - gold[tie_row])))

    # pull the export through the client and join it
    export = admin.export(pid)
    from_ls = join_labels(labels_from_labelstudio(export), sample_ids=ids, classes=[0, 1])
    # the same labels as a CSV file with an annotator column
    path = tmp_path / "labels.csv"
    pd.DataFrame(csv_rows, columns=["sample_id", "annotator", "label"]).to_csv(path, index=False)
    from_csv = join_labels(labels_from_table(pd.read_csv(path), label_col="label",
                                             annotator_col="annotator"),
                           sample_ids=ids, classes=[0, 1])

    # what came back is what the annotators did
    expect = np.full(design.M, None, dtype=object)
    for i in queued:
        if i not in (skipped_row, tie_row):
            expect[i] = int(gold[i])
    assert from_ls.label.tolist() == expect.tolist()
    assert from_csv.label.tolist() == expect.tolist()
    assert from_ls.state[skipped_row] == "skipped" and from_ls.n_skips[skipped_row] == 1
    assert from_ls.adjudication == (str(ids[tie_row]),)
    assert from_ls.n_annotators[routed_rows[:2]].tolist() == [2, 2]
    assert from_ls.n_annotators[tie_row] == 2
    assert from_ls.counts["labelled"] == len(queued) - 2
    assert from_ls.counts["skips"] == 1 and from_ls.counts["annotators"] == 2
    assert from_ls.counts["unannotated"] == 0
    # three samples with two annotators (admin and second), who agree on two: Cohen's kappa
    assert from_ls.agreement.method == "cohen" and from_ls.agreement.n_items == 3
    assert from_ls.agreement.percent_agreement == pytest.approx(2 / 3)

    def final(joined):
        table = queue_table(design, plan.selection, plan.queue_rank)
        table["human_label"] = joined.label.to_numpy(dtype=object)
        return estimate(load_design(table, {"sample_id": "sample_id", "text": ["response"],
                                            "human_label": "human_label"}))

    # an expired access token is renewed from the personal access token once
    admin._access = "expired.access.token"
    assert admin.check()["email"] == ADMIN
    # a reused project takes a new config (once); an invalid config is Label Studio's error
    wider = labelling_config([0, 1, 2], design.data.text_columns)
    assert admin.ensure_project("HMCEval round 1", wider).config_updated
    assert not admin.ensure_project("HMCEval round 1", wider).config_updated
    assert "<Choice value=\"2\"/>" in admin.request("GET", f"/api/projects/{pid}/")["label_config"]
    with pytest.raises(DataError, match=r"Label Studio refused PATCH /api/projects/\d+/ "
                                        r"\(HTTP 400\)"):
        admin.ensure_project("HMCEval round 1", "<View><Choices name='x'/></View>")
    assert len(admin.export(pid)) == len(task_list)

    est_ls, est_csv = final(from_ls), final(from_csv)
    assert est_ls == est_csv
    # and it is the estimate of the labelled rows: every routed row labelled, the audit with
    # two unlabelled rows (skip, tie) counted as machine rows
    assert est_ls["n_routed"] == len(routed_rows) and est_ls["n_audit"] == len(audit_rows) - 2
    assert est_ls["n_machine"] == plan.counts["machine"] + 2
    elapsed = time.monotonic() - t_start
    print(f"\nLabel Studio started in {server['started']:.1f} s; round trip {elapsed:.1f} s")


def test_wrong_url_token_and_legacy_tokens_are_clear_errors(server):
    closed = _free_port()
    with pytest.raises(DataError, match="cannot reach Label Studio.*connection refused"):
        LabelStudioClient(f"http://127.0.0.1:{closed}", server["admin"], timeout=3).check()
    with pytest.raises(DataError, match="refused the personal access token"):
        LabelStudioClient(server["url"], server["admin"][:-4] + "abcd").check()
    with pytest.raises(DataError, match="must start with http"):
        LabelStudioClient("127.0.0.1:8080", server["admin"])
    # the user's legacy token exists but 1.23 turns legacy tokens off for the organization
    legacy = LabelStudioClient(server["url"], server["admin"]).request(
        "GET", "/api/current-user/token")["token"]
    with pytest.raises(DataError, match="legacy tokens off by default.*Personal Access Token"):
        LabelStudioClient(server["url"], legacy).check()
    with pytest.raises(DataError, match="no such Label Studio API.*HTTP 404"):
        LabelStudioClient(server["url"], server["admin"]).export(999999)


def test_a_server_that_never_answers_times_out():
    # no Label Studio needed: a socket that accepts connections and never answers
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        client = LabelStudioClient(f"http://127.0.0.1:{port}", "0123456789abcdef", timeout=0.5)
        assert client.auth == "legacy"
        t0 = time.monotonic()
        with pytest.raises(DataError, match=r"did not answer .*within 0.5 s"):
            client.check()
        assert time.monotonic() - t0 < 5


def test_cli_push_annotate_pull_estimate(server, tmp_path, capsys):
    """The command line's round trip: queue -> labelstudio push -> annotate -> labelstudio pull
    -> estimate, equal to estimating the same labels given as a CSV through hmceval labels."""
    from core.cli import main

    df, gold = small_round()
    src = tmp_path / "round.csv"
    df.to_csv(src, index=False)
    queue = tmp_path / "queue.csv"
    assert main(["queue", str(src), "--lam", "0", "--human-share", "0.3", "--audit", "8",
                 "--seed", "4", "--col", "text=response", "-o", str(queue)]) == 0
    assert main(["labelstudio", "push", str(queue), "--url", server["url"], "--token",
                 server["admin"], "--project", "cli round", "--col", "text=response"]) == 0
    out = capsys.readouterr().out
    assert "tasks sent to project" in out
    client = LabelStudioClient(server["url"], server["admin"])
    project = client.find_project("cli round")
    gold_of = dict(zip(df["sample_id"].astype(str), gold))
    for task in client.export(int(project["id"])):
        _annotate(client, task["id"], str(gold_of[str(task["data"]["sample_id"])]),
                  to_name="show_response")
    pulled = tmp_path / "pulled.csv"
    assert main(["labelstudio", "pull", str(queue), "--url", server["url"], "--token",
                 server["admin"], "--project", "cli round", "-o", str(pulled)]) == 0
    q = pd.read_csv(queue)
    rows = q[q["queue_rank"].notna()]
    labels_csv = tmp_path / "labels.csv"
    pd.DataFrame({"sample_id": rows["sample_id"],
                  "label": [gold_of[str(s)] for s in rows["sample_id"]]}).to_csv(labels_csv,
                                                                                 index=False)
    via_csv = tmp_path / "via_csv.csv"
    assert main(["labels", str(queue), "--from", str(labels_csv), "-o", str(via_csv)]) == 0
    capsys.readouterr()
    assert main(["estimate", str(pulled), "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["estimate", str(via_csv), "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a == b and a["n_audit"] == 8
    # a wrong token is a clear error with exit 2
    assert main(["labelstudio", "pull", str(queue), "--url", server["url"], "--token",
                 "not-a-token", "--project", "cli round", "-o", str(pulled)]) == 2


def test_evaluate_page_pushes_and_pulls(server, tmp_path, monkeypatch):
    """The Evaluate page's Label Studio section against the real server (AppTest)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    at = AppTest.from_file(str(ROOT / "pages" / "2a_Evaluate.py"), default_timeout=120)
    at.run()
    at.session_state["share"] = 0.02  # a small queue: 71 routed rows of the demo
    at.session_state["evaluate"] = {**at.session_state["evaluate"], "audit": 5}
    at.run()
    [b for b in at.button if b.label == "Plan the round"][0].click()
    at.run()
    at.radio(key="_w_import_source").set_value("Label Studio server").run()
    at.text_input[1].set_value(server["url"]).run()  # [0] is the scenario name
    at.text_input[2].set_value(server["admin"]).run()
    title = at.text_input[3].value
    [b for b in at.button if b.label == "Send the queue"][0].click()
    at.run()
    assert not at.error, [e.value for e in at.error]
    sent = [s.value for s in at.success if "tasks sent to project" in s.value]
    assert sent and sent[0].startswith("76 tasks sent")
    client = LabelStudioClient(server["url"], server["admin"])
    from core.demo import make_demo

    gold = dict(zip(make_demo()["sample_id"].astype(str), make_demo()["human_label"]))
    exported = client.export(int(client.find_project(title)["id"]))
    for task in exported[:40]:
        _annotate(client, task["id"], str(gold[str(task["data"]["sample_id"])]),
                  to_name="show_response")
    [b for b in at.button if b.label == "Pull the labels"][0].click()
    at.run()
    assert not at.error, [e.value for e in at.error]
    assert any("40 rows labelled from Label Studio project" in s.value for s in at.success)
    # the caption under the round selector (its option labels do not carry the progress)
    assert any(c.value.startswith("Round #") and c.value.endswith(": 40 of 76 labelled")
               for c in at.caption), [c.value for c in at.caption]


def test_two_annotators_with_lead_times_pulled_aggregated_and_timed(server, tmp_path, capsys,
                                                                    monkeypatch):
    """Issue 23: two Label Studio users label the same tasks (disagreeing on some, each with
    their own ``lead_time``); ``labelstudio pull`` into the workspace round (the Evaluate page's
    ``core.workspace.rounds.import_joined``) keeps both votes and their seconds, majority leaves
    the disagreements for adjudication, Dawid-Skene equals crowd-kit's, and ``hmceval
    annotators`` shows both annotators with their median times."""
    import krippendorff
    from crowdkit.aggregation import DawidSkene

    from core.cli import main
    from core.cli.round_table import round_link
    from core.evaluation.labels.votes import read_votes, votes_path
    from core.workspace.store import Workspace

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df, gold = small_round()
    src = tmp_path / "round.csv"
    df.to_csv(src, index=False)
    queue = tmp_path / "queue.csv"
    assert main(["queue", str(src), "--lam", "0", "--human-share", "0.3", "--audit", "6",
                 "--seed", "5", "--col", "text=response", "-o", str(queue)]) == 0
    assert main(["labelstudio", "push", str(queue), "--url", server["url"], "--token",
                 server["admin"], "--project", "two annotators", "--col", "text=response"]) == 0
    capsys.readouterr()
    admin = LabelStudioClient(server["url"], server["admin"])
    second = LabelStudioClient(server["url"], server["second"])
    assert admin.check()["id"] != second.check()["id"]
    # issue 33: a pull names annotators by their e-mail (the export's completed_by is an id)
    who = {"admin": admin.check()["email"], "second": second.check()["email"]}
    assert who == {"admin": ADMIN, "second": ANN2}
    exported = admin.export(int(admin.find_project("two annotators")["id"]))
    exported.sort(key=lambda t: t["id"])
    assert len(exported) >= 12
    gold_of = dict(zip(df["sample_id"].astype(str), gold))
    # hand-made campaign: admin gives the gold label in 2 + k/2 s; second is slower
    # (10 + k s) and gives the other class on the first three tasks
    votes, seconds = {}, {"admin": [], "second": []}
    for k, task in enumerate(exported):
        sid = str(task["data"]["sample_id"])
        g = int(gold_of[sid])
        for name, client, label, t in (("admin", admin, g, 2.0 + 0.5 * k),
                                       ("second", second, 1 - g if k < 3 else g, 10.0 + k)):
            client.request("POST", f"/api/tasks/{task['id']}/annotations/", body={
                "result": [{"from_name": "label", "to_name": "show_response",
                            "type": "choices", "value": {"choices": [str(label)]}}],
                "lead_time": t})
            votes[(sid, who[name])] = (label, t)
            seconds[name].append(t)
    disputed = sorted(str(t["data"]["sample_id"]) for t in exported[:3])

    # the workspace path: the queue's sidecar names its round, the pull imports into it
    pulled = tmp_path / "pulled.csv"
    assert main(["labelstudio", "pull", str(queue), "--url", server["url"], "--token",
                 server["admin"], "--project", "two annotators", "--json",
                 "-o", str(pulled)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["adjudication"]) == disputed  # majority: 1-1 ties wait for adjudication
    assert out["n_annotators"] == 2 and out["n_labels"] == 2 * len(exported)
    per = {p["annotator"]: p for p in out["per_annotator"]}
    assert set(per) == set(who.values())
    for name in ("admin", "second"):
        assert per[who[name]]["items"] == len(exported)
        assert per[who[name]]["median_seconds"] == pytest.approx(np.median(seconds[name]))
    [pair] = out["pairwise"]
    assert pair["n_items"] == len(exported)
    assert pair["agreement"] == pytest.approx((len(exported) - 3) / len(exported))
    # Krippendorff's alpha against the krippendorff package on the same two rows of votes
    ids = sorted({s for s, _ in votes})
    matrix = np.array([[votes[(s, who[n])][0] for s in ids] for n in ("admin", "second")],
                      dtype=float)
    assert out["krippendorff_alpha"]["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-9)

    # every vote and its seconds stored: in the workspace round and in OUT.labels.csv
    rid = round_link(queue)["round_id"]
    ann = Workspace(tmp_path / "ws").current_annotations(rid)
    assert len(ann) == 2 * len(exported)
    stored = read_votes(votes_path(pulled))
    assert len(stored) == 2 * len(exported)
    got = {(s, a): (int(lab), t) for s, a, lab, t in zip(
        stored["sample_id"], stored["annotator"], stored["label"], stored["seconds"])}
    assert got == votes
    assert sorted(ann["seconds"].astype(float)) == sorted(t for _, t in votes.values())
    table = pd.read_csv(pulled)
    lab = dict(zip(table["sample_id"].astype(str), table["human_label"]))
    assert all(np.isnan(lab[s]) for s in disputed)
    assert all(lab[s] == gold_of[s] for s, _ in votes if s not in disputed)

    # hmceval annotators: both annotators with their median times
    assert main(["annotators", str(pulled), "--json", "--boot", "200"]) == 0
    rep = json.loads(capsys.readouterr().out)
    med = {p["annotator"]: p["median_seconds"] for p in rep["per_annotator"]}
    assert med == {who["admin"]: pytest.approx(np.median(seconds["admin"])),
                   who["second"]: pytest.approx(np.median(seconds["second"]))}
    assert main(["annotators", str(pulled)]) == 0
    text = capsys.readouterr().out
    assert f"annotator {who['second']}:" in text and "median" in text

    # Dawid-Skene: the same export pulled into a table of no round equals crowd-kit's labels
    plain = tmp_path / "plain.csv"
    plain.write_bytes(queue.read_bytes())  # no sidecar: read alone, OUT.labels.csv beside it
    ds_out = tmp_path / "ds.csv"
    assert main(["labelstudio", "pull", str(plain), "--url", server["url"], "--token",
                 server["admin"], "--project", "two annotators", "--aggregate", "dawid-skene",
                 "-o", str(ds_out)]) == 0
    capsys.readouterr()
    crowd = pd.DataFrame([(s, a, lab) for (s, a), (lab, _) in votes.items()],
                         columns=["task", "worker", "label"])
    ref = DawidSkene(n_iter=100).fit_predict(crowd)
    ds = pd.read_csv(ds_out)
    ds_lab = dict(zip(ds["sample_id"].astype(str), ds["human_label"]))
    assert all(ds_lab[s] == ref[s] for s in ids), {s: (ds_lab[s], ref[s]) for s in ids}
    assert len(read_votes(votes_path(ds_out))) == 2 * len(exported)

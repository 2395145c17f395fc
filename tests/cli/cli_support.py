"""What the command-line tests share: running ``hmceval`` in-process."""

from __future__ import annotations

from core.cli import main


def run_cli(capsys, *argv):
    """Run ``hmceval argv...`` (arguments as text); ``(exit code, stdout, stderr)``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


#: The workspace's tables whose rows a round step may add.
WORKSPACE_TABLES = ("rounds", "labels", "annotations", "label_imports", "results", "events",
                    "datasets")


def workspace_rows(ws_dir) -> dict:
    """What a step may change in a workspace, read with sqlite3 itself: each table's row
    count, the meta rows, each round's plan file and rows to label; and its table files."""
    import os
    import sqlite3

    con = sqlite3.connect(ws_dir / "workspace.sqlite")
    try:
        out = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
               for t in WORKSPACE_TABLES}
        out["meta"] = sorted(con.execute("SELECT key, value FROM meta").fetchall())
        out["plans"] = sorted(con.execute("SELECT id, plan_file, n_to_label FROM rounds"))
    finally:
        con.close()
    out["files"] = sorted(os.listdir(ws_dir / "tables"))
    return out


def folder_files(folder) -> dict:
    """Every file of ``folder`` (hidden ones too) with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def demo_round(tmp_path, monkeypatch, *queue_args):
    """The demo's table without its gold (``demo.csv``), a workspace ``ws`` named by
    ``HMCEVAL_WORKSPACE`` and a round planned by ``hmceval queue demo.csv QUEUE_ARGS`` into
    ``out/q.csv``; returns ``(ws, table, out folder, the demo frame)``."""
    from core.demo import make_demo

    ws = tmp_path / "ws"
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(ws))
    df = make_demo()
    table = tmp_path / "demo.csv"
    df.drop(columns=["human_label", "human_label_2"]).to_csv(table, index=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    assert main(["queue", str(table), *map(str, queue_args), "-o", str(out_dir / "q.csv")]) == 0
    return ws, table, out_dir, df

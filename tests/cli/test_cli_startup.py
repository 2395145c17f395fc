"""The command line starts in a blink: parsing the options imports no heavy library.

Speed itself is measured by ``bench/cli.py``; this test guards the cause of a slow start (a
subcommand module importing numpy, pandas, scipy, torch, ... when its parser is registered).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "pandas", "scipy", "sklearn", "torch", "transformers", "plotly", "cvxpy",
         "pyarrow", "statsmodels", "streamlit")

_PROBE = """
import json, sys
from core.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy})))
"""


def _imported(*argv: str) -> list[str]:
    code = _PROBE.replace("{heavy}", repr(set(HEAVY)))
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_help_imports_no_heavy_library():
    assert _imported("--help") == []


def test_every_subcommand_help_imports_no_heavy_library():
    from core.cli import build_parser

    commands = sorted(build_parser()._subparsers._group_actions[0].choices)
    assert len(commands) >= 15
    for name in commands:
        assert _imported(name, "--help") == [], name


def test_assign_imports_only_numpy_pandas_and_pyarrow(tmp_path):
    """``hmceval assign`` (bench/cli.py times it against a minimal numpy script, issue 24 item 6)
    imports no library beyond numpy and pandas (and the pyarrow pandas itself loads): no scipy,
    scikit-learn, cvxpy, torch, plotly, statsmodels or streamlit on that path."""
    table = tmp_path / "t.csv"
    table.write_text("machine_label,human_label,machine_confidence,human_effort\n"
                     "a,a,0.9,3\nb,a,0.4,5\na,b,0.6,2\nb,b,0.8,4\n")
    loaded = _imported("assign", str(table), "--lam", "0.01", "--human-share", "0.5", "--json")
    tops = {m.split(".")[0] for m in loaded}
    assert {"numpy", "pandas"} <= tops  # the probe sees the command's imports
    assert tops <= {"numpy", "pandas", "pyarrow"}, sorted(tops)

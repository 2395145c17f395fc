"""Benchmark of the ToolTalk evaluation: loading, matching, the MiniLM text similarity.

Run: ``python bench/tooltalk.py`` from the project root. Reads the 78 ToolTalk conversations
from ``../shared/data/tooltalk`` (ground truth fed back as predictions) and builds one large
synthetic conversation for the quadratic matching loop.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import best_of  # noqa: E402

import torch  # noqa: E402

import core.tooltalk as tt  # noqa: E402
import core.demo.tooltalk as tt_demo  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "tooltalk"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=400, help="calls in the large synthetic conversation")
    args = ap.parse_args()

    files = sorted((SHARED / "easy").glob("*.json")) + sorted((SHARED / "tooltalk").glob("*.json"))
    raw = [(p.name, tt_demo.ground_truth_as_predictions(json.loads(p.read_text(encoding="utf-8")))) for p in files]
    blobs = [(n, json.dumps(o).encode()) for n, o in raw]
    t_load = best_of(lambda: [tt.load_conversation_bytes(b, source=n) for n, b in blobs])
    convs = [tt.load_conversation_bytes(b, source=n) for n, b in blobs]
    n_calls = sum(len(c.ground_truths) for c in convs)
    print(f"conversations: {len(convs)}, ground-truth calls: {n_calls}")
    print(f"load + validate 78 conversations (JSON bytes): {t_load * 1e3:.1f} ms")

    t_exact = best_of(lambda: tt.evaluate_conversations(convs, similarity=tt.exact_similarity))
    print(f"score 78 conversations, exact text similarity: {t_exact * 1e3:.1f} ms")

    texts = sorted({c.params[k] for conv in convs for c in conv.ground_truths
                    for k in tt.TEXT_THRESHOLDS.get(c.api_name, {}) if k in c.params})
    sim = tt.MiniLMSimilarity()
    t0 = time.perf_counter()
    sim._load()
    t_model = time.perf_counter() - t0
    print(f"MiniLM encoder load (cold, from the installed package): {t_model:.2f} s")
    t0 = time.perf_counter()
    for x in texts:
        sim.embed(x)
    t_one = time.perf_counter() - t0
    print(f"embed {len(texts)} distinct free-text arguments, 1 torch thread: {t_one:.2f} s "
          f"({t_one / len(texts) * 1e3:.1f} ms/text)")
    sim_default = tt.MiniLMSimilarity(num_threads=None)
    sim_default._tokenizer, sim_default._model = sim._tokenizer, sim._model
    t0 = time.perf_counter()
    for x in texts:
        sim_default.embed(x)
    t_many = time.perf_counter() - t0
    print(f"same with torch's default {torch.get_num_threads()} threads: {t_many:.2f} s "
          f"(ratio default / 1 thread = {t_many / t_one:.2f})")
    t_cached = best_of(lambda: tt.evaluate_conversations(convs, similarity=sim))
    print(f"score 78 conversations, MiniLM, embeddings cached: {t_cached * 1e3:.1f} ms "
          f"(ratio to exact similarity = {t_cached / t_exact:.1f})")

    # quadratic worst case: every prediction compared with every ground truth of its tool
    gts = [tt.ToolCall("AddAlarm", {"session_token": "t", "time": f"{i // 60 % 24:02d}:{i % 60:02d}:00"},
                       {"alarm_id": str(i)}, None, {}) for i in range(args.calls)]
    preds = [tt.ToolCall("AddAlarm", {"session_token": "t", "time": g.params["time"]}, {"alarm_id": "x"}, None, {})
             for g in reversed(gts)]
    t_big = best_of(lambda: tt.match_tool_calls(gts, preds, similarity=tt.exact_similarity), repeat=3)
    comparisons = args.calls * (args.calls + 1) // 2
    print(f"one conversation, {args.calls} AddAlarm predictions in reverse order ({comparisons:,} comparisons): "
          f"{t_big:.3f} s ({t_big / comparisons * 1e6:.2f} us/comparison)")


if __name__ == "__main__":
    main()

"""Label Studio export builders shared by the tests of returned labels (one copy, imported by
each test file)."""

from __future__ import annotations


def choice(value, user, *, ann_id=None, cancelled=False):
    """One annotation as Label Studio 1.23 exports it (JSON export)."""
    a = {"id": ann_id, "completed_by": user, "was_cancelled": cancelled,
         "result": [] if cancelled else [{"from_name": "label", "to_name": "show_text",
                                          "type": "choices", "value": {"choices": [value]}}],
         "ground_truth": False, "lead_time": 3.2}
    return a


def task(tid, sample_id, *annotations):
    return {"id": tid, "data": {"sample_id": sample_id, "queue_rank": tid, "text": "..."},
            "annotations": list(annotations), "drafts": [], "predictions": [],
            "meta": {}, "total_annotations": len(annotations)}


EXPORT = [
    task(11, 1, choice("unsafe", 1, ann_id=1), choice("unsafe", 2, ann_id=2)),
    task(12, 2, choice(None, 2, ann_id=3, cancelled=True)),
    task(13, 3),
    task(14, "4", choice("safe", 1, ann_id=4), choice("unsafe", 2, ann_id=5)),
    task(15, 5, choice("safe", {"id": 2, "email": "b@x.org"}, ann_id=6),
         choice(None, 1, ann_id=7, cancelled=True)),
]

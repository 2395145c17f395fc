"""``hmceval tooltalk``: score ToolTalk conversations with predictions, as ToolTalk's evaluator."""

from __future__ import annotations

import argparse
import sys

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tooltalk`` subcommand."""
    p = subparsers.add_parser(
        "tooltalk",
        help="ToolTalk tool-call evaluation (precision, recall, incorrect actions, success)",
        description=(
            "Score conversations in ToolTalk's format (ground-truth 'apis' and model 'predictions' in the "
            "assistant turns) the way ToolTalk's evaluator does: greedy matching in prediction order, "
            "per-tool comparators, incorrect actions; then the pooled aggregate. PATH may be conversation "
            ".json files, folders of them (not recursive) or zip archives. With --json prints "
            "{'conversations': [{'conversation', 'source', 'predictions', 'ground_truths', 'matches', "
            "'actions', 'valid_actions', 'bad_actions', 'precision', 'recall', 'action_precision', "
            "'bad_action_rate', 'success', 'soft_success'}, ...], 'aggregate': {...}}. Free-text arguments "
            "are compared by cosine similarity of the packaged MiniLM encoder (ToolTalk used DistilBERT, "
            "so similarities near the 0.8/0.9 thresholds may differ slightly)."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="conversation file, folder or zip archive")
    p.add_argument("--json", action="store_true", help="print JSON instead of a text table")
    p.add_argument(
        "--similarity", choices=["minilm", "exact"], default="minilm",
        help="free-text similarity: MiniLM cosine (default) or exact string equality (1 or 0)",
    )
    p.add_argument(
        "--strict-receiver", action="store_true",
        help="also require the same SendMessage receiver (ToolTalk's comparator does not check it)",
    )
    p.add_argument(
        "--ground-truth-as-predictions", action="store_true",
        help="ignore stored predictions and feed each conversation's ground truth back as its predictions "
             "(a perfect model: every metric must be 1)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load, score and print."""
    from core.cli.common import print_json
    from core.tooltalk import (
        aggregate_scores,
        conversation_table,
        default_similarity,
        evaluate_conversations,
        exact_similarity,
        load_conversations,
        tooltalk_report,
    )
    from core.demo.tooltalk import with_ground_truth_predictions

    conversations = load_conversations(args.paths)
    if args.ground_truth_as_predictions:
        conversations = [with_ground_truth_predictions(c) for c in conversations]
    else:
        bare = [c.source for c in conversations if not c.has_predictions]
        if bare:
            shown = ", ".join(bare[:3]) + (f" and {len(bare) - 3} more" if len(bare) > 3 else "")
            sys.stderr.write(
                f"hmceval tooltalk: warning: {len(bare)} conversation(s) carry no 'predictions' "
                f"({shown}); they are scored as having no predicted call\n"
            )
    similarity = exact_similarity if args.similarity == "exact" else default_similarity()
    scores = evaluate_conversations(conversations, similarity=similarity, strict_receiver=args.strict_receiver)
    if args.json:
        print_json(tooltalk_report(scores))
        return 0
    aggregate = aggregate_scores(scores)
    table = conversation_table(scores)
    text = table.drop(columns=["source", "has_predictions"]).to_string(index=False, float_format="{:.4f}".format)
    sys.stdout.write(text + "\n\n")
    for key, value in aggregate.items():
        sys.stdout.write(f"{key}: {value:.4f}\n" if isinstance(value, float) else f"{key}: {value}\n")
    return 0

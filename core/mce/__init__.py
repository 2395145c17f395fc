"""Model confidence estimation (MCE): the machine evaluator and its confidence.

- :mod:`core.mce.classifier` -- BERT-style (context, response) classifier (torch + transformers,
  local model folders only);
- :mod:`core.mce.confidence` -- MCP, trust score and TCP estimators (fit/predict);
- :mod:`core.mce.metrics` -- confidence quality: AUC, top-k accuracy, risk-coverage/AURC, ECE;
- :mod:`core.mce.pipeline` -- train everything and score a table (CLI and dashboard);
- :mod:`core.mce.testing` -- a tiny random BERT for tests.

Submodules are imported on demand, so that the metrics do not pull in torch.
"""

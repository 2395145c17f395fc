"""HMCEval Studio core library: human-machine collaborative evaluation.

A pure library (no Streamlit): the data contract, the sample assignment ILP (SAE),
reliability/effort metrics, confidence (MCE) and effort (HEE) estimation, agreement and
fairness metrics, dialogue-game scorers and plotly figure builders.
"""

__version__ = "0.1.0"

"""The large-table path: Parquet tables planned, labelled and estimated in chunked passes
(local, or on Ray), equal to the in-memory path; see README, "Large tables"."""

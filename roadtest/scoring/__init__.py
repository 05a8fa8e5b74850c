"""The scoring room, above rules/ and metrics/: one run's record (score.py), its keys and JSON form (record.py),
the metrics it reports (registry.py: one line a metric) and the VLM agent's figures (vlm_figures.py).

rules/ and metrics/ never import each other or this package; what both produce is in roadtest.findings.
"""

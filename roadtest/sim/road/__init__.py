"""OpenDRIVE road model: reader, lane geometry, lane graph, queries (see api.py)."""

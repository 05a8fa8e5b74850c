"""The builtin backend's parts (NOT a VLM): a small sign classifier, a colour-based sign and lamp finder, and a
planner that applies the rule catalogue to what they see."""

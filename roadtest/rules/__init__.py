"""The traffic-rule catalogue, its signal vocabulary and its STL monitors: one home for the DSL (to compose) and the metrics (to judge)."""

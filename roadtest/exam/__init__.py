"""The written exam built from the same scenes as the road test, its scoring, and the exam-vs-road matrix."""

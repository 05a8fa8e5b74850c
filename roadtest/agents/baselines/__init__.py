"""End-to-end baselines (UniAD, VAD, any model) behind a model server: the server script (e2e_server.py, run in
the model's own environment), its client, the agent, and Bench2DriveZoo's rig, inputs, route command and PID."""

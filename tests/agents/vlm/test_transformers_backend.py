"""The transformers backend on tiny random models built from configs (tests/agents/vlm/tiny_models.py), loaded
through the backend's own loader; their answers are garbage, which must end in the parse/fallback path."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from roadtest.sim.embedded import EmbeddedSimulator  # noqa: E402
from roadtest.agents.vlm.backends.transformers_backend import TransformersBackend  # noqa: E402
from roadtest.agents.vlm.config import merge_config  # noqa: E402
from tiny_models import FAMILIES, build_tiny  # noqa: E402

CAM = {"cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}]}


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory):
    return {fam: build_tiny(fam, tmp_path_factory.mktemp(f"tiny-{fam}")) for fam in FAMILIES}


def _config(path, **extra):
    return merge_config({"backend": "transformers", "transformers": {"model_path": str(path), "max_new_tokens": 12}, **CAM,
                         **extra})


@pytest.mark.parametrize("family", FAMILIES)
def test_tiny_model_loads_through_the_real_loader_and_answers(tiny_dirs, family):
    be = TransformersBackend(_config(tiny_dirs[family]))
    has_tv = importlib.util.find_spec("torchvision") is not None
    # Qwen2-VL's processor has a video part that needs torchvision: without it, the fallback
    want = "image_processor+tokenizer" if family == "qwen2vl" and not has_tv else "processor"
    assert be.loader == want
    img = (np.random.default_rng(0).random((36, 64, 3)) * 255).astype(np.uint8)
    with_image = be.complete([{"role": "user", "content": "signs?"}], [img], None, 10.0)
    text_only = be.complete([{"role": "user", "content": "signs?"}], [], None, 10.0)
    assert with_image.tokens_out == 12 and isinstance(with_image.text, str)
    # the image's placeholder tokens are in the prompt
    assert with_image.tokens_in > text_only.tokens_in


def test_qwen_fallback_expands_one_placeholder_per_vision_token(tiny_dirs):
    be = TransformersBackend(_config(tiny_dirs["qwen2vl"]))
    if be.loader != "image_processor+tokenizer":
        pytest.skip("torchvision present: AutoProcessor builds, no fallback to test")
    img = np.zeros((224, 224, 3), np.uint8)
    batch = be.inputs([{"role": "user", "content": "x"}], [img])
    pad = be.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    # 224 px / 14 px patches = 16 x 16 grid, merged 2 x 2: 64 tokens (the reference recipe's figure)
    assert int((batch["input_ids"] == pad).sum()) == 64
    assert list(batch["image_grid_thw"][0]) == [1, 16, 16]


@pytest.mark.parametrize("family", ["llava", pytest.param("qwen2vl", marks=pytest.mark.slow),
                                    pytest.param("idefics3", marks=pytest.mark.slow)])
def test_garbage_answers_take_the_parse_failure_path_and_the_car_brakes(smoke_bundles, tiny_dirs, family):
    cfg = {"backend": "transformers", "transformers": {"model_path": str(tiny_dirs[family]), "max_new_tokens": 12}, **CAM}
    trace, _, fig, _ = _drive_local(smoke_bundles["straight-speed-limit"], cfg, max_time=2.0)
    recs = [a.record for a in trace.agent if a.record]
    assert len(recs) == 4 and all(r["outcome"] == "braking" for r in recs)
    assert all(r["stages"][0]["error"].startswith(("unreadable answer", "invalid answer")) for r in recs)
    assert fig["parse"]["failure_rate"] == 1.0 and fig["backend"] == "transformers" and fig["not_a_vlm"] is False
    assert trace.states[-1].ego.speed < trace.states[0].ego.speed  # braking, not cruising on nothing


def test_a_good_generation_becomes_a_plan(smoke_bundles, tiny_dirs, monkeypatch):
    import torch

    from roadtest.agents.vlm.backends import transformers_backend as tb

    answers = {"perception": {"signs": [{"id": "speed_limit", "value": 50, "side": "right", "distance": "mid"}],
                              "light": "none", "road_users": []},
               "planning": {"waypoints": [[4.0 * k, 0.0] for k in range(1, 7)], "target_speed": 29, "reason": "limit 50"}}
    real = tb.TransformersBackend.complete

    def canned(self, messages, images, schema, timeout):  # the real path, with generate returning a canned answer
        stage = "planning" if "waypoints" in schema["properties"] else "perception"
        enc = self.tokenizer(json.dumps(answers[stage]), return_tensors="pt")["input_ids"]
        monkeypatch.setattr(self.net, "generate", lambda **kw: torch.cat([kw["input_ids"], enc], dim=1))
        return real(self, messages, images, schema, timeout)

    monkeypatch.setattr(tb.TransformersBackend, "complete", canned)
    cfg = {"backend": "transformers", "transformers": {"model_path": str(tiny_dirs["llava"])}, **CAM}
    trace, _, fig, _ = _drive_local(smoke_bundles["straight-speed-limit"], cfg, max_time=1.0)
    recs = [a.record for a in trace.agent if a.record]
    assert [r["outcome"] for r in recs] == ["new_plan", "new_plan"]
    assert recs[0]["plan"]["target_speed"] == pytest.approx(29 / 3.6)
    assert recs[0]["perception"]["signs"][0]["value"] == 50.0


def _drive_local(bundle, cfg, max_time):
    """drive() without the fake server: the agent's backend is the config's own."""
    from roadtest.agents import load_agent
    from roadtest.scoring.vlm_figures import run_figures
    from roadtest.bundle import load_bundle
    from roadtest.sim.api import SimSettings

    b = load_bundle(bundle)
    sim = EmbeddedSimulator().load(b, 0, SimSettings(max_time=max_time))
    agent = load_agent("vlm", cfg)
    agent.set_global_plan(b.meta["route"]["waypoints"])
    specs = agent.sensors()
    while not sim.done:
        data = sim.observe(specs)
        control = agent(data, sim.state.time if sim.state is not None else 0.0)
        sim.step(control, agent.last_output)
    agent.destroy()
    sim.close()
    return sim.trace, None, run_figures(sim.trace, b.meta, b), None


def test_missing_checkpoint_folder_is_a_user_error(tmp_path):
    from roadtest.errors import UserError

    with pytest.raises(UserError, match="is not a folder"):
        TransformersBackend(_config(tmp_path / "nope"))
    with pytest.raises(UserError, match="transformers.model_path: the transformers backend needs"):
        merge_config({"backend": "transformers"})


@pytest.mark.slow
def test_smoke_suite_through_the_cli_with_a_tiny_local_model(tiny_dirs, tmp_path):
    import yaml

    from conftest import REPO
    from roadtest.cli import main

    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(yaml.safe_dump({"backend": "transformers", **CAM,
                                   "transformers": {"model_path": str(tiny_dirs["llava"]), "max_new_tokens": 8}}))
    out = tmp_path / "r"
    code = main(["run", str(REPO / "scenarios" / "suites" / "smoke.yaml"), "--agent", "vlm", "--agent-config", str(cfg),
                 "-o", str(out), "-j", "2"])
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert code == 0 and len(records) == 5
    for r in records:  # scored; garbage answers never move the car to the goal
        assert r["status"] == "failed" and r["scores"]["score_route"] < 100.0
        assert r["vlm"]["parse"]["failure_rate"] == 1.0 and r["vlm"]["backend"] == "transformers"

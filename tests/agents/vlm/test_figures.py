"""The VLM figures' small rules, against hand values: percentiles, printed sign values, suite sums."""

from __future__ import annotations

import numpy as np

from roadtest.scoring.vlm_figures import _same_value, percentile, suite_figures


def test_percentile_matches_numpys_linear_interpolation():
    xs = [0.3, 0.1, 0.9, 0.5, 0.7, 0.2]
    for q in (0, 50, 95, 100):
        assert percentile(xs, q) == np.percentile(xs, q)
    assert percentile([], 50) is None


def test_sign_values_compare_as_the_face_prints_them():
    # the catalogue's 30 km/h is 18.6 mph, which a US face prints as 20 (nearest 5)
    assert _same_value("speed_limit", 30.0, 20, "US") and not _same_value("speed_limit", 30.0, 30, "US")
    assert _same_value("speed_limit", 30.0, 30, "DE") and not _same_value("speed_limit", 30.0, 20, "DE")
    assert _same_value("speed_limit", 30.0, None, "DE") is False
    assert _same_value("end_speed_limit", 30.0, None, "DE")  # an end sign counts without its value
    assert _same_value("stop", None, None, "JP")


def _run(country, weather, light, n, k):
    return {"backend": "builtin", "not_a_vlm": True, "privileged_hints": False, "decisions": 10,
            "labels": {"country": country, "weather": weather, "light": light},
            "signs": {"within_30m": {"instances": n, "recognised": k}},
            "parse": {"answers": 20, "failures": 2, "repaired": 1, "failed_calls": 0},
            "lights": {"decisions_with_light": 4, "correct": 3},
            "instruction_following": {"decisions": 8, "obeyed": 6},
            "_samples": {"latency_s": {"decision": [0.1, 0.2]}}}


def test_suite_sums_and_groups():
    fig = suite_figures([_run("DE", "clear", "day", 10, 9), _run("DE", "fog_dense", "day", 10, 5),
                         _run("US", "clear", "night", 4, 1), None])
    assert fig["runs"] == 3 and fig["decisions"] == 30
    assert fig["sign_accuracy_30m"] == round(15 / 24, 6)
    assert fig["sign_accuracy_30m_by"]["weather"]["fog_dense"] == {"instances": 10, "accuracy": 0.5}
    assert fig["sign_accuracy_30m_by"]["country_clear_day"] == {"DE": {"instances": 10, "accuracy": 0.9}}
    assert fig["parse_failure_rate"] == 0.1 and fig["light_accuracy"] == 0.75 and fig["instruction_following"] == 0.75
    assert fig["latency_s"]["decision"]["n"] == 6 and fig["not_a_vlm"] is True

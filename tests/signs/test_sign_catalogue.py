"""signs.yaml and the faces agree: every DSL sign id resolves where its country has it; rule ids exist."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np

from roadtest.signs.catalogue import load_signs, sign_code
from roadtest.signs.faces import COUNTRIES, face_ids, sign_face, sign_id_for_code, sign_meta, _recipe

RULES = {p.stem for p in Path(str(files("roadtest").joinpath("rules", "catalogue"))).glob("*.yaml")}


def test_every_coded_sign_has_a_face_and_back():
    for sid, entry in load_signs().items():
        assert set(entry["codes"]) >= set(COUNTRIES), sid
        for c in COUNTRIES:
            coded = entry["codes"][c] is not None
            assert coded == (sid in face_ids(c)), (sid, c)
            if coded:
                assert sign_code(sid, c)["type"] == str(entry["codes"][c]["type"])


def test_rule_ids_exist():
    assert RULES, "rule catalogue not found"
    for sid, entry in load_signs().items():
        assert set(entry["rules"]) <= RULES, (sid, set(entry["rules"]) - RULES)
    assert load_signs()["stop"]["rules"] == ["stop_sign"]


def test_yaml_shape_and_colours_match_the_drawings():
    for c in COUNTRIES:
        for sid in face_ids(c):
            code = load_signs()[sid]["codes"][c]
            face = _recipe(sid, c)
            assert (code["shape"], tuple(code["colours"])) == (face.shape, face.colours), (sid, c)


def test_real_national_codes():
    # Spot checks against the national catalogues.
    assert sign_code("speed_limit", "DE")["type"] == "274" and sign_code("stop", "DE")["type"] == "206"
    assert sign_code("stop", "US")["type"] == "R1-1" and sign_code("yield", "US")["type"] == "R1-2"
    assert sign_code("stop", "GB")["type"] == "601.1" and sign_code("speed_limit", "GB")["type"] == "670"
    assert sign_code("stop", "FR")["type"] == "AB4" and sign_code("speed_limit", "FR")["type"] == "B14"
    assert sign_code("speed_limit", "JP")["type"] == "323" and sign_code("no_entry", "JP")["type"] == "303"


def test_opendrive_code_finds_its_face():
    for c in COUNTRIES:
        for sid in face_ids(c):
            m = sign_meta(sid, c)
            found = sign_id_for_code(c, m["type"], m["subtype"])
            assert found is not None
            assert np.array_equal(sign_face(found, c, 50), sign_face(sid, c, 50)), (c, sid, found)
    assert sign_id_for_code("DE", "274", "-1") == "speed_limit"
    assert sign_id_for_code("DE", "9999") is None and sign_id_for_code("XX", "274") is None

"""A centre line written as a style alone takes the country's colour: yellow between the directions in CN (GB 5768.3)
and the US (MUTCD 3A.05), white in DE (StVO Anlage 3, Zeichen 295/340) and JP (white unless passing is banned)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

SCENE = """
name: centre
country: {country}
road: {{kind: straight, length: 200, markings: {{center: {center}}}}}
ego: {{route: {{distance: 100}}}}
"""


def _centre_mark(tmp_path, country: str, center: str) -> tuple[str, str]:
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.loader import load_variants

    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / "centre.yaml"
    src.write_text(SCENE.format(country=country, center=center))
    (variant,) = load_variants(src)
    root = ET.parse(write_bundle(variant, tmp_path / "out") / "road.xodr").getroot()
    mark = root.find("./road[@id='1']/lanes/laneSection/center/lane/roadMark")
    return mark.get("type"), mark.get("color")


@pytest.mark.parametrize("country,colour", [("CN", "yellow"), ("US", "yellow"), ("DE", "white"), ("JP", "white")])
def test_a_style_alone_takes_the_country_colour(tmp_path, country, colour):
    assert _centre_mark(tmp_path, country, "solid") == ("solid", colour)
    assert _centre_mark(tmp_path / "b", country, "solid_solid") == ("solid solid", colour)


def test_a_written_colour_is_kept(tmp_path):
    assert _centre_mark(tmp_path, "DE", "broken_yellow") == ("broken", "yellow")  # DE's yellow work-zone lines

"""roadtest report: the page is static and self-contained, and in headless Chromium its table filters and sorts."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from roadtest.cli import main
from .runs import suite

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ROADTEST_ARTIFACTS", REPO / "build" / "test-artifacts"))
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("results")
    suite(results)
    (results / "exam_compare.json").write_text(json.dumps({"version": 1, "exam": "mini", "items": [
        {"scenario": "ramp", "rule": "speed_limit", "exam": "correct", "road": "broken"},
        {"scenario": "ramp", "rule": "speed_limit", "exam": "correct", "road": "broken"},
        {"scenario": "steady", "rule": "speed_limit", "exam": "correct", "road": "followed"},
    ]}))
    out = tmp_path_factory.mktemp("page") / "report.html"
    assert main(["report", str(results), "-o", str(out)]) == 0
    return out


def test_static_and_relative(page):
    html = page.read_text()
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing fetched from the network
    refs = re.findall(r"(?:src|poster)=\"([^\"#]+)\"", html)
    assert refs and all(not Path(r).is_absolute() and (page.parent / r).is_file() for r in refs)
    assert html.count('<section class="run"') == 3
    for rid in ("A_ramp", "B_steady", "C_ramp"):
        assert (page.parent / "report_files" / rid / "speed.svg").is_file()
        assert (page.parent / "report_files" / rid / "rules.svg").is_file()
        assert (page.parent / "report_files" / rid / "poster.png").is_file()


def test_vlm_answers_and_exam_matrix(page):
    html = page.read_text()
    a = html.split('id="run-0"')[1].split('id="run-1"')[0]
    b = html.split('id="run-1"')[1].split('id="run-2"')[0]
    assert "VLM answers" in a and "road is clear" in a and "speed_limit 50 (right, near)" in a
    vlm = a.split("VLM answers")[1].split("</table>")[0]
    assert vlm.count("<tr><td class=num>") == 21  # one decision a second, t = 0..20 s; repeats between skipped
    assert "<td class=num>36</td>" in vlm  # the target speed at t = 5 s: 10 m/s = 36 km/h
    assert "VLM answers" not in b  # B's agent left no record
    assert "<th>sign_accuracy_30m</th><td>0.5</td>" in a and "VLM figures" not in b
    exam = html.split('id="exam"')[1].split("</table>")[0]
    cells = re.findall(r"<td>(\d+)</td>", exam)
    assert cells == ["1", "2", "0", "0"]  # correct/followed, correct/broken, wrong/followed, wrong/broken


def test_bad_exam_file_exits_2(tmp_path, capsys):
    suite(tmp_path)
    (tmp_path / "exam_compare.json").write_text(json.dumps({"items": [{"rule": "x", "exam": "right", "road": "broken"}]}))
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "exam_compare.json: items.0.exam: expected one of correct, wrong, got 'right'" in err


def test_not_a_results_folder(tmp_path, capsys):
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    assert "no results.jsonl" in capsys.readouterr().err


@pytest.fixture(scope="module")
def browser(system):
    system("chromium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
                "--window-size=1300,1000", f"--user-data-dir={ARTIFACTS.parent / 'chromium-profile'}"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield drv
    drv.quit()


def visible_runs(drv) -> list[str]:
    from selenium.webdriver.common.by import By

    return [r.find_element(By.TAG_NAME, "a").text for r in drv.find_elements(By.CSS_SELECTOR, "#runs tbody tr")
            if r.is_displayed()]


def test_table_in_chromium(page, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(page.as_uri())
    assert visible_runs(browser) == ["A_ramp", "B_steady", "C_ramp"]
    assert browser.find_element(By.ID, "count").text == "3 of 3 runs"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "report.png"))
    Select(browser.find_element(By.ID, "f-status")).select_by_value("failed")
    assert visible_runs(browser) == ["A_ramp", "C_ramp"]
    assert "status=failed" in browser.current_url
    Select(browser.find_element(By.ID, "f-level")).select_by_value("L2")
    assert visible_runs(browser) == ["C_ramp"]
    shown = [s.get_attribute("id") for s in browser.find_elements(By.CSS_SELECTOR, "section.run") if s.is_displayed()]
    assert shown == ["run-2"]  # the run sections follow the table
    browser.get(page.as_uri() + "#verdict=satisfied")  # a linked filter applies on load
    browser.refresh()
    assert visible_runs(browser) == ["B_steady"]
    browser.get(page.as_uri() + "#country=CN&level=L1")
    browser.refresh()
    assert visible_runs(browser) == ["A_ramp"]
    browser.get(page.as_uri())
    browser.refresh()
    ds = browser.find_elements(By.CSS_SELECTOR, "#runs thead th")[6]
    assert ds.text.startswith("DS")
    ds.click()
    assert visible_runs(browser) == ["C_ramp", "A_ramp", "B_steady"]  # 30, 60, 100
    ds.click()
    assert visible_runs(browser) == ["B_steady", "A_ramp", "C_ramp"]


def test_run_without_trace_keeps_its_row(tmp_path):
    suite(tmp_path)
    with open(tmp_path / "results.jsonl", "a") as f:
        f.write(json.dumps({"run_id": "D_crashed", "status": "sim_error", "reason": "loading the bundle failed"}) + "\n")
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path), "-o", str(out)]) == 0
    html = out.read_text()
    assert html.count("<tr data-k=") == 4 and 'data-status="sim_error"' in html
    d = html.split('id="run-3"')[1]
    assert "loading the bundle failed" in d and "no trace in the run folder" in d

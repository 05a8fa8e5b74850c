"""Suite figures averaged as Bench2Drive's merge script averages them: driving score and success over every planned
route (a route that produced no figures counts 0), efficiency and comfort over the routes that have them."""

from roadtest.metrics import bench2drive, corrected

RUNS = [
    {"driving_score": 80.0, "success": True, "efficiency": 1.5, "comfort": 0.5, "route_completion": 100.0},
    None,  # a planned run that crashed before scoring
    {"driving_score": 40.0, "success": False, "efficiency": None, "comfort": 0.25, "route_completion": 60.0},
]


def test_bench2drive_means_over_planned_routes():
    fig = bench2drive.suite_figures(RUNS, planned=4)
    # by hand: (80 + 0 + 40 + 0) / 4 = 30; one success of 4; efficiency over its one run; comfort (0.5 + 0.25) / 2
    assert fig == {"driving_score": 30.0, "success_rate": 0.25, "efficiency": 1.5, "comfort": 0.375}
    assert bench2drive.summary_lines(fig) == [
        "Bench2Drive: driving score 30.00  success rate 25.0 %  efficiency 1.5  comfort 0.375"]


def test_own_figures_add_route_completion_and_dash_what_no_run_has():
    fig = corrected.suite_figures([{"route_completion": 50.0, "driving_score": 10.0}], planned=2)
    assert fig == {"route_completion": 25.0, "driving_score": 5.0, "success_rate": 0.0, "efficiency": None,
                   "comfort": None}
    assert corrected.summary_lines(fig) == [
        "roadtest's own: route completion 25.00  driving score 5.00  success rate 0.0 %  efficiency -  comfort -"]

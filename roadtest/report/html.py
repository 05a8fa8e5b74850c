"""`roadtest report RESULTS_DIR -o report.html`: one static page over a results folder.

The page opens from disk and fetches nothing: style and script are inline, figures (SVG, by
matplotlib), posters (PNG) and clips (MP4) are files in `<page stem>_files/` beside it, referenced
relatively, so the page and that folder can be copied or served as they are.
"""

from __future__ import annotations

import json
import os
from html import escape
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import quote

from roadtest.errors import UserError
from roadtest.scoring.registry import metrics

__all__ = ["build_report", "report_command", "run_row", "safe_name"]


def safe_name(run_id: str) -> str:
    """A file-system-safe folder name for a run id."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run_id)[:120]


def _fmt(x: Any, f: str) -> str:
    return "" if x is None else format(x, f)


def _violated(rec: dict) -> list[str]:
    return [str(r.get("id")) for r in rec.get("rules") or [] if r.get("verdict") == "violated"]


def _infractions(rec: dict) -> list[tuple[str, str]]:
    return [(k, str(x)) for k, v in (rec.get("infractions") or {}).items() for x in v or []]


def run_row(k: int, rec: dict, meta: dict) -> str:
    """The suite table's row for one run (data-* attributes drive the filters)."""
    sc = rec.get("scores") or {}
    rules = " ".join(f"{r.get('id')}:{r.get('verdict')}" for r in rec.get("rules") or [])
    status = str(rec.get("status", ""))
    infr = _infractions(rec)
    cells = [
        (f'<a href="#run-{k}">{escape(rec["run_id"])}</a>', rec["run_id"], ""),
        (escape(str(rec.get("scenario") or rec.get("variant") or "")), None, ""),
        (escape(str(rec.get("agent") or "")), None, ""),
        (escape(str(meta.get("country") or "")), None, ""),
        (escape(str(meta.get("level") or "")), None, ""),
        (f'<span class="status-{escape(status)}">{escape(status)}</span>', status, ""),
        (_fmt(sc.get("score_composed"), ".2f"), None, "num"),
        (_fmt(sc.get("score_route"), ".1f"), None, "num"),
        (_fmt(sc.get("score_penalty"), ".3f"), None, "num"),
        (escape(", ".join(_violated(rec))), None, ""),
        (str(len(infr)), None, "num"),
    ]
    tds = "".join(f'<td{f" class={chr(34)}{c}{chr(34)}" if c else ""}'
                  f'{f" data-v={chr(34)}{escape(v)}{chr(34)}" if v is not None else ""}>{h}</td>' for h, v, c in cells)
    return (f'<tr data-k="{k}" data-status="{escape(status)}" data-rules="{escape(rules)}" '
            f'data-country="{escape(str(meta.get("country") or ""))}" data-level="{escape(str(meta.get("level") or ""))}">'
            f"{tds}</tr>")


def _select(name: str, label: str, values: Sequence[str]) -> str:
    opts = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return f'<label>{label} <select id="f-{name}"><option value="">any</option>{opts}</select></label>'


def _rel(path: Path, page: Path) -> str:
    """The page's link to `path`, URL-quoted and escaped for an attribute (the -o name is the user's to choose)."""
    return escape(quote(Path(os.path.relpath(path, page.parent)).as_posix(), safe="/"), quote=True)


def _run_media(run, rec: dict, folder: Path, page: Path, clips: bool) -> str:
    """Poster (and clip) of a run: the frame at its first violation or collision, else its last tick."""
    import cv2

    from roadtest.report.video import Clip, FrameComposer, clip_windows, write_clip

    comp = FrameComposer(run, ["bev"])
    events = clip_windows(run, "violation")
    clip = events[0] if events else Clip(run.states[0].time, run.states[-1].time)
    t = clip.trigger.time if clip.trigger else run.states[-1].time
    i = min(range(len(run.states)), key=lambda j: abs(run.states[j].time - t))
    poster = folder / "poster.png"
    small = cv2.resize(comp.frame(i, clip.trigger), None, fx=0.75, fy=0.75, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(poster), small)
    what = escape(clip.trigger.label() if clip.trigger else f"last tick, t = {t:.2f} s")
    if clips:
        mp4 = folder / "clip.mp4"
        write_clip(comp, clip, mp4, fps=min(10.0, 1.0 / run.trace.tick))
        return (f'<figure><video controls preload="none" width="780" poster="{_rel(poster, page)}" '
                f'src="{_rel(mp4, page)}"></video><figcaption>{what}</figcaption></figure>')
    return f'<figure><img src="{_rel(poster, page)}" width="780" alt="frame"><figcaption>{what}</figcaption></figure>'


def _vlm_table(run) -> str:
    from roadtest.report.vlm_answers import decisions

    rows = []
    for a in decisions(run):
        speed = "" if a.target_speed is None else f"{a.target_speed * 3.6:.0f}"
        rows.append(f"<tr><td class=num>{a.time:.2f}</td><td>{escape(', '.join(a.signs))}</td><td>{escape(a.light or '')}</td>"
                    f"<td class=num>{speed}</td><td>{escape(a.reason or '')}</td><td>{escape(a.outcome or '')}</td><td>"
                    + (f"<details><summary>raw</summary><pre>{escape(a.raw)}</pre></details>" if a.raw else "")
                    + "</td></tr>")
    if not rows:
        return ""
    return ("<h3>VLM answers</h3><table><thead><tr><th>t [s]</th><th>signs seen</th><th>light</th><th>target km/h</th>"
            f"<th>reason</th><th>outcome</th><th>answer</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _scalars(d: Any, title: str) -> str:
    """A key/value table of the scalar entries of a figures dict (a registered metric's), '' when there are none."""
    if not isinstance(d, dict):
        return ""
    rows = [(k, v) for k, v in d.items() if isinstance(v, (int, float, str, bool)) or v is None]
    if not rows:
        return ""
    fmt = lambda v: "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)
    return (f"<h3>{escape(title)}</h3><table><tbody>"
            + "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(fmt(v))}</td></tr>" for k, v in rows) + "</tbody></table>")


def _run_section(k: int, rec: dict, run, folder: Path, page: Path, clips: bool) -> str:
    from roadtest.report.figures import rules_figure, speed_figure

    out = [f'<section class="run" id="run-{k}"><h2>{escape(rec["run_id"])} '
           f'<span class="status-{escape(str(rec.get("status")))}">{escape(str(rec.get("status")))}</span></h2>']
    if rec.get("reason"):
        out.append(f'<p class="muted">{escape(str(rec["reason"]))}</p>')
    meta = run.meta if run is not None else {}
    if meta.get("description"):
        out.append(f"<p>{escape(str(meta['description']))}</p>")
    if run is None:
        out.append('<p class="muted">no trace in the run folder: nothing to draw</p></section>')
        return "".join(out)
    folder.mkdir(parents=True, exist_ok=True)
    out.append(f'<div class="media">{_run_media(run, rec, folder, page, clips)}</div>')
    speed = speed_figure(run, folder / "speed.svg")
    out.append(f'<div class="plots"><h3>speed and the limit in force</h3><img src="{_rel(speed, page)}" alt="speed">')
    rules = rules_figure(run, folder / "rules.svg")
    if rules is not None:
        out.append(f'<h3>rule robustness (negative = violated, shaded)</h3><img src="{_rel(rules, page)}" alt="rules">')
    out.append("</div>")
    if run.rules:
        out.append("<h3>rules</h3><table><thead><tr><th>rule</th><th>verdict</th><th>worst</th><th>first violation [s]</th>"
                   "<th>episodes</th><th>priority class</th></tr></thead><tbody>")
        for r in run.rules:
            out.append(f'<tr><td>{escape(r.id)}</td><td class="v-{escape(r.verdict)}">{escape(r.verdict)}'
                       + (f" (by {escape(r.excused_by)})" if r.excused_by else "")
                       + f'</td><td class=num>{r.worst:.3f}</td><td class=num>{_fmt(r.first_violation, ".2f")}</td>'
                       f"<td class=num>{len(r.episodes)}</td><td>{escape(r.priority_class)}</td></tr>")
        out.append("</tbody></table>")
    elif run.rules_error:
        out.append(f'<p class="muted">rules not checked: {escape(run.rules_error)}</p>')
    infr = _infractions(rec)
    out.append("<h3>infractions</h3>" + ("<ul>" + "".join(f"<li><code>{escape(a)}</code> {escape(b)}</li>" for a, b in infr)
                                          + "</ul>" if infr else '<p class="muted">none</p>'))
    out.extend(_scalars(rec.get(m.key), f"{m.title} of this run") for m in metrics() if m.title)
    out.append(_vlm_table(run))
    out.append("</section>")
    return "".join(out)


def _exam_section(m) -> str:
    from roadtest.report.exam_matrix import EXAM_VALUES, ROAD_VALUES

    def grid(counts: dict) -> str:
        head = "".join(f"<th>road {r}</th>" for r in ROAD_VALUES)
        body = "".join(f"<tr><th>exam {e}</th>" + "".join(f"<td>{counts.get((e, r), 0)}</td>" for r in ROAD_VALUES)
                       + "</tr>" for e in EXAM_VALUES)
        return f'<table class="matrix"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>'

    per = "".join(f"<tr><td>{escape(rid)}</td>" + "".join(f"<td class=num>{c.get((e, r), 0)}</td>" for e in EXAM_VALUES
                                                          for r in ROAD_VALUES) + "</tr>"
                  for rid, c in sorted(m.per_rule.items()))
    cols = "".join(f"<th>{e} / {r}</th>" for e in EXAM_VALUES for r in ROAD_VALUES)
    label = f" ({escape(m.label)})" if m.label else ""
    return (f'<h2 id="exam">exam vs road{label}</h2><p>{len(m.items)} scene/rule pairs: did the written answer and the '
            f"driving agree?</p>{grid(m.counts)}<h3>per rule</h3><table><thead><tr><th>rule</th>{cols}</tr></thead>"
            f"<tbody>{per}</tbody></table>")


def _cards(summary: dict) -> str:
    lb = (summary.get("leaderboard") or {}).get("scores_mean") or {}
    b2d = summary.get("bench2drive") or {}
    st = summary.get("statuses") or {}
    items = [("runs", f"{summary.get('recorded', 0)} / {summary.get('planned', 0)}"),
             ("driving score", _fmt(lb.get("score_composed"), ".2f")), ("route completion %", _fmt(lb.get("score_route"), ".1f")),
             ("penalty", _fmt(lb.get("score_penalty"), ".3f")),
             ("success rate %", _fmt(100 * b2d["success_rate"] if b2d.get("success_rate") is not None else None, ".1f"))]
    rf = summary.get("rule_figures") or {}
    if rf.get("rules_in_play") is not None:
        items.append(("rules violated / in play", f"{rf.get('rules_violated', 0)} / {rf['rules_in_play']}"))
        items.append(("runs without violation", f"{rf.get('runs_without_violation', 0)} / {rf.get('runs_with_rules', 0)}"))
    items += [(k, str(v)) for k, v in st.items() if v]
    return '<div class="cards">' + "".join(f'<div class="card">{escape(k)}<b>{escape(v or "-")}</b></div>'
                                           for k, v in items) + "</div>"


def build_report(results_dir: Path, out: Path, clips: bool = False, progress=None) -> Path:
    """Write the page and its files; returns the page path."""
    from roadtest.report.exam_matrix import load_exam_matrix
    from roadtest.report.figures import summary_figure
    from roadtest.report.page_assets import CSS, JS
    from roadtest.report.rundata import load_run, read_results
    from roadtest.report.search_plot import search_section
    from roadtest.runner.summary import summarise

    results_dir, out = Path(results_dir), Path(out)
    if not (results_dir / "results.jsonl").is_file():
        raise UserError(f"{results_dir}: no results.jsonl in it (expected the --out folder of `roadtest run`)")
    records = read_results(results_dir)
    if not records:
        raise UserError(f"{results_dir / 'results.jsonl'}: holds no whole record")
    sp = results_dir / "summary.json"
    try:
        summary = json.loads(sp.read_text()) if sp.is_file() else summarise(records, [r["run_id"] for r in records])
    except ValueError as e:
        raise UserError(f"{sp}: not valid JSON ({e})") from e
    exam = load_exam_matrix(results_dir, summary)
    files = out.parent / f"{out.stem}_files"
    files.mkdir(parents=True, exist_ok=True)
    metas, sections = [], []
    for k, rec in enumerate(records):
        run_dir = results_dir / "runs" / rec["run_id"]
        run = load_run(run_dir) if (run_dir / "trace.json.gz").is_file() else None
        meta = run.meta if run is not None else {}
        metas.append(meta)
        sections.append(_run_section(k, rec, run, files / safe_name(rec["run_id"]), out, clips))
        if progress is not None:
            progress()
    rows = "".join(run_row(k, rec, meta) for k, (rec, meta) in enumerate(zip(records, metas)))
    uniq = lambda xs: sorted({str(x) for x in xs if x})
    filters = ("".join([_select("status", "status", uniq(r.get("status") for r in records)),
                        _select("rule", "rule", uniq(rr.get("id") for r in records for rr in r.get("rules") or [])),
                        _select("verdict", "verdict", uniq(rr.get("verdict") for r in records for rr in r.get("rules") or [])),
                        _select("country", "country", uniq(m.get("country") for m in metas)),
                        _select("level", "level", uniq(m.get("level") for m in metas))])
               + '<label>text <input id="f-q" type="search" placeholder="run, scenario, rule"></label><span id="count"></span>')
    fig = summary_figure(records, files / "summary.svg")
    heads = "".join(f"<th>{h}</th>" for h in ("run", "scenario", "agent", "country", "level", "status", "DS", "RC %",
                                               "penalty", "violated rules", "infractions"))
    page = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>roadtest report: {escape(results_dir.name)}</title>"
            f"<style>{CSS}</style></head><body><h1>roadtest report: <code>{escape(str(results_dir))}</code></h1>"
            f"{_cards(summary)}" + (f'<img src="{_rel(fig, out)}" alt="summary" style="max-width:100%">' if fig else "")
            + "".join(_scalars(summary.get(m.key), f"{m.title} over the suite") for m in metrics() if m.title)
            + search_section(results_dir, records, files, out)
            + f'<h2>runs</h2><div id="filters">{filters}</div><table id="runs"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{rows}</tbody></table>" + (_exam_section(exam) if exam else "") + "".join(sections)
            + f"<script>{JS}</script></body></html>")
    out.write_text(page)
    return out


def report_command(results_dir: Path, out: Path, clips: bool) -> int:
    """Build the report with a progress bar; print where it is."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from roadtest.report.rundata import read_results

    if not str(out).lower().endswith((".html", ".htm")):
        raise UserError(f"-o {out}: expected an .html file name")
    n = len(read_results(Path(results_dir))) if (Path(results_dir) / "results.jsonl").is_file() else 0
    console = Console(stderr=True)
    with Progress(TextColumn("[bold]runs"), BarColumn(), MofNCompleteColumn(), console=console, transient=True) as bar:
        task = bar.add_task("", total=n)
        page = build_report(Path(results_dir), Path(out), clips, lambda: bar.advance(task))
    console.print(f"wrote {page} ({n} runs; files in {page.parent / (page.stem + '_files')})", markup=False)
    return 0

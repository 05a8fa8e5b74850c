"""The run table `roadtest run` prints: the full rich table where it fits the terminal, else a compact one.

The compact layout (a narrow terminal, or output piped to a file or a pager) gives one line a run under short
run ids, the run's infractions indented below it, and stays within the console's width; the files
(results.jsonl, summary.json, runs/) always keep the full ids.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Sequence

__all__ = ["short_run_ids", "print_runs", "COMPACT_LEGEND"]

COMPACT_LEGEND = (
    ("run", "the run id shortened to <scenario>[<swept values>]; seed and agent said once above when all runs share "
            "them; full ids in OUT/summary.json"),
    ("DS, RC %", "CARLA leaderboard 2.0 driving score and route completion, as its code computes them"),
    ("viol.", "rules this run violated"),
    ("comply", "rules complied with (satisfied, or excused by a higher rule) of the rules in play"),
    ("", "a wider terminal shows the full table: penalty, Bench2Drive success, roadtest's own route completion"),
)

_RUN_ID = re.compile(r"^(?P<variant>.+)__s(?P<seed>\d+)__(?P<agent>[^_].*)$")
# (compact header, the full table's column) of the short columns beside the run id
_FIXED = (("status", "status"), ("DS", "DS"), ("RC %", "RC %"), ("viol.", "rules viol."), ("comply", "compliance"))


def _variant_short(variant: str) -> str:
    """name--a.b-1--c.d-x -> name[1,x]: a sweep's variant id keeps the swept values, not the dotted paths."""
    name, *parts = variant.split("--")
    if not parts or not all(re.match(r"^[A-Za-z_][\w.]*-", p) for p in parts):
        return variant
    return f"{name}[{','.join(p.split('-', 1)[1] for p in parts)}]"


def _fit(text: str, width: int) -> str:
    """Text cut in the middle to width characters (the start names the scenario, the end the swept values)."""
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def short_run_ids(run_ids: Sequence[str]) -> tuple[dict[str, str], str]:
    """({run id: short id}, what the short ids leave out): the seed and agent when every run shares them."""
    parts = {rid: _RUN_ID.match(rid) for rid in run_ids}
    if not run_ids or not all(parts.values()):
        return {rid: rid for rid in run_ids}, ""
    seeds = {m["seed"] for m in parts.values()}
    agents = {m["agent"] for m in parts.values()}
    short = {}
    for rid, m in parts.items():
        s = _variant_short(m["variant"])
        if len(seeds) > 1:
            s += f" s{m['seed']}"
        if len(agents) > 1:
            s += f" {m['agent']}"
        short[rid] = s
    if len(set(short.values())) < len(short):  # two variants that shorten alike keep their full variant ids
        return {rid: rid for rid in run_ids}, ""
    said = []
    if len(agents) == 1:
        said.append(f"agent {next(iter(agents))}")
    if len(seeds) == 1:
        said.append(f"seed {next(iter(seeds))}")
    return short, ", ".join(said)


def print_runs(console: Any, title: str, columns: Sequence[str], rows: Sequence[dict[str, str]],
               legend: Sequence[tuple[str, str]]) -> bool:
    """Print the run table and its legend; return True when the compact layout was used.

    Each row maps every column name to its text; columns[0] is the run id, columns[-1] the infractions."""
    from rich.table import Table

    table = Table(title=title)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    from rich.measure import Measurement

    natural = Measurement.get(console, console.options.update_width(10_000), table).maximum  # unwrapped width
    if console.is_terminal and natural <= console.width:
        console.print(table)
        for col, meaning in legend:
            console.print(f"  [bold]{col}[/bold]{': ' if col else ''}{meaning}", highlight=False)
        return False
    run, rest = columns[0], columns[-1]
    short, said = short_run_ids([r[run] for r in rows])
    widths = [max([len(h)] + [len(r.get(k, "")) for r in rows]) for h, k in _FIXED]
    room = max(console.width - sum(widths) - len(widths) - 1, 12)
    w = min(max([3] + [len(s) for s in short.values()]), room)
    say = (lambda line: console.print(line.rstrip(), highlight=False, markup=False, overflow="fold", no_wrap=False))
    for line in textwrap.wrap(title + (f" ({said})" if said else ""), max(console.width, 20),
                              subsequent_indent="  "):
        say(line)
    say(" ".join([f"{'run':<{w}}"] + [f"{h:<{n}}" if h == "status" else f"{h:>{n}}"
                                     for (h, _), n in zip(_FIXED, widths)]))
    for row in rows:
        cells = [row.get(k, "") for _, k in _FIXED]
        say(" ".join([f"{_fit(short[row[run]], w):<{w}}", f"{cells[0]:<{widths[0]}}"]
                     + [f"{c:>{n}}" for c, n in zip(cells[1:], widths[1:])]))
        detail = row.get(rest, "")
        if detail and detail != "-":
            for line in textwrap.wrap(detail, max(console.width - 4, 20)):
                say("    " + line)
    for col, meaning in COMPACT_LEGEND:
        for i, line in enumerate(textwrap.wrap(f"{col}{': ' if col else ''}{meaning}", max(console.width - 2, 20))):
            say(("  " if i == 0 else "    ") + line)
    return True

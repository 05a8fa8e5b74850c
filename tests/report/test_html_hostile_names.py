"""A report written under a hostile -o file name: every attribute that carries it is escaped (and URL-quoted),
so the name can close no attribute and inject no handler, yet every link still finds its file."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

from roadtest.cli import main
from .runs import suite


def test_an_o_file_name_with_quotes_and_markup_stays_inside_its_attribute(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    suite(results)
    out = tmp_path / 'x" onerror="alert(1)" y<i id=evil>.html'
    assert main(["report", str(results), "-o", str(out)]) == 0
    page = out.read_text()
    assert 'onerror="alert' not in page and "<i id=evil>" not in page  # the name opened no attribute, no element
    refs = re.findall(r'(?:src|poster|href)="([^"#]+)"', page)
    assert refs
    for ref in refs:
        target = out.parent / unquote(html.unescape(ref))
        assert target.is_file(), ref  # the quoted link resolves to the file written beside the page
    assert any(r.startswith("x%22%20onerror%3D%22alert%281%29%22%20y%3Ci%20id%3Devil%3E_files/") for r in refs)

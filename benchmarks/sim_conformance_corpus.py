"""Wall time of the whole public conformance corpus on the built-in simulator, with the per-file table.

    python3 benchmarks/sim_conformance_corpus.py [--corpus ../shared/conformance] [FILE_STEM ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the corpus harness lives beside its tests
from esmini_corpus import corpus_rows, corpus_table, run_corpus_file  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "conformance")
    ap.add_argument("stems", nargs="*", help="only these files (by name without .xosc)")
    args = ap.parse_args(argv)
    if not (args.corpus / "INDEX.tsv").exists():
        print(f"{args.corpus}: no INDEX.tsv (the corpus lives beside the checkout on roadtest's dev machines)")
        return 2
    rows = [r for r in corpus_rows(args.corpus) if not args.stems or Path(r["xosc_path"]).stem in args.stems]
    t0 = time.perf_counter()
    results = [run_corpus_file(args.corpus, r) for r in rows]
    print(corpus_table(results))
    print(f"corpus wall time: {time.perf_counter() - t0:.1f} s for {len(results)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

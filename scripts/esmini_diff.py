"""esmini beside the built-in simulator: on given OpenSCENARIO files, or on generated cases per action family.

    python scripts/esmini_diff.py FILE.xosc ...                   # per entity: first divergence > 0.5 m, size, element
    python scripts/esmini_diff.py --families speed route --n 50   # agreement per family (generated cases)
    python scripts/esmini_diff.py --families trajectory --keep    # also shrink a disagreement and keep it as a case
    --build DIR builds esmini there from its snapshot (../shared/tools/build_esmini.sh) when none is found.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the harness lives beside its tests
from esmini_diff import diff_file, diff_table, esmini_binary  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--families", nargs="*", default=None, help="generated families (none named: all)")
    ap.add_argument("--n", type=int, default=30, help="cases per family")
    ap.add_argument("--keep", action="store_true", help="shrink each disagreeing family's smallest case and keep it")
    ap.add_argument("--detail", action="store_true", help="the per-entity table of every generated case too")
    ap.add_argument("--build", type=Path, default=None, help="build esmini into this folder if none is found")
    args = ap.parse_args(argv)
    binary = esmini_binary(args.build)
    if binary is None:
        print("no esmini binary ($ESMINI, a build beside the checkout) and no snapshot to build one (--build DIR)")
        return 2
    if args.files:
        print(diff_table([diff_file(f, binary) for f in args.files]))
    if args.families is not None or not args.files:
        from esmini_sweep import family_table, keep, shrink, sweep
        from xosc_gen import FAMILIES

        names = args.families or list(FAMILIES)
        unknown = [f for f in names if f not in FAMILIES]
        if unknown:
            print(f"unknown families {unknown}: expected some of {list(FAMILIES)}")
            return 2
        results = {}
        for fam in names:
            results[fam] = sweep(fam, args.n, binary)
            if args.detail:
                print(diff_table([r for _, r in results[fam]]))
            if args.keep and not all(r.agrees for _, r in results[fam]):
                case = shrink(fam, binary)
                if case is not None:
                    print(f"{fam}: kept {keep(case, binary)}")
        print(family_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Shoal's generator: spec/*.toml + templates/*.j2 -> headers, bindings, tests.

    generate.py --spec DIR --templates DIR list chapters|tests|tests-cxx
    generate.py --spec DIR --templates DIR headers|bindings|tests OUTDIR
    generate.py --spec DIR --templates DIR --cxx-tests c++11,c++17 tests OUTDIR   (and C++ runs)
    generate.py --spec DIR --templates DIR --fortran-sizes SIZES fortran-headers|fortran-bindings|fortran-tests OUTDIR

Run by meson at build time; output depends only on the table and templates.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from shoalgen.load import TableError  # noqa: E402
from shoalgen import render  # noqa: E402
from shoalgen.fortran import test_names as fortran_test_names  # noqa: E402


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--templates", required=True)
    ap.add_argument("what", choices=["list", "headers", "bindings", "tests",
                                     "fortran-headers", "fortran-bindings", "fortran-tests"])
    ap.add_argument("--fortran-sizes", default="", help="integer=4,real=4,... from the Fortran compiler")
    ap.add_argument("--cxx-tests", default="", metavar="STDS",
                    help="tests: also the .cpp of each program that calls generic names, "
                         "and a run of it per C++ standard (comma-separated, as meson builds them)")
    ap.add_argument("arg")
    args = ap.parse_args(argv)
    fortran = args.what.startswith("fortran-")
    try:
        api = render.load_api(args.spec, args.fortran_sizes if fortran else None)
    except TableError as e:
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    if args.what == "list" and args.arg == "fortran-tests":
        print("\n".join(fortran_test_names(args.spec)))
        return 0
    if fortran:
        try:
            render.emit_fortran(api, args.templates, args.what, args.arg)
        except TableError as e:
            print(f"generate.py: error: {e}", file=sys.stderr)
            return 1
        return 0
    if args.what == "list":
        for item in render.listing(api, args.arg):
            print(item)
        return 0
    try:
        render.emit(api, args.templates, args.what, args.arg, cxx_stds=[x for x in args.cxx_tests.split(",") if x])
    except TableError as e:  # a recipe refusing a row (e.g. an AMO op without an oracle)
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Shoal's generator: spec/*.toml + templates/*.j2 -> headers, bindings, tests, man pages.

    generate.py --spec DIR --templates DIR list chapters|tests|tests-cxx
    generate.py --spec DIR --templates DIR headers|bindings|tests OUTDIR
    generate.py --spec DIR --templates DIR --cxx-tests c++11,c++17 tests OUTDIR   (and C++ runs)
    generate.py --spec DIR --templates DIR --fortran-sizes SIZES fortran-headers|fortran-bindings|fortran-tests OUTDIR
    generate.py --spec DIR --templates DIR [--fortran-sizes SIZES] --env-roff FILE --project-version V man OUTDIR
    generate.py --spec DIR --templates DIR [--fortran-sizes SIZES] list man-pages
                (the pages, OUTDIR/NAME.SECTION; the Fortran names too when given the sizes)

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
                                     "fortran-headers", "fortran-bindings", "fortran-tests", "man"])
    ap.add_argument("--fortran-sizes", default="", help="integer=4,real=4,... from the Fortran compiler")
    ap.add_argument("--cxx-tests", default="", metavar="STDS",
                    help="tests: also the .cpp of each program that calls generic names, "
                         "and a run of it per C++ standard (comma-separated, as meson builds them)")
    ap.add_argument("--env-roff", metavar="FILE",
                    help="man: the environment variables as roff (shoal-info --env-roff)")
    ap.add_argument("--project-version", default="",
                    help="meson.build's version: SHMEM_VENDOR_STRING's @VERSION@, the man pages")
    ap.add_argument("arg")
    args = ap.parse_args(argv)
    fortran = args.what.startswith("fortran-")
    man = args.what == "man" or (args.what == "list" and args.arg == "man-pages")
    sizes = args.fortran_sizes if fortran or (man and args.fortran_sizes) else None
    try:
        api = render.load_api(args.spec, sizes, args.project_version)
    except TableError as e:
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    if args.what == "man":
        if not args.env_roff:
            ap.error("man needs --env-roff")
        with open(args.env_roff, encoding="utf-8") as f:
            env_roff = f.read()
        try:
            render.emit_man(api, args.templates, args.arg, args.project_version, env_roff)
        except TableError as e:
            print(f"generate.py: error: {e}", file=sys.stderr)
            return 1
        return 0
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
        try:
            items = render.listing(api, args.arg)
        except TableError as e:   # man-pages: two names on one file, ...
            print(f"generate.py: error: {e}", file=sys.stderr)
            return 1
        for item in items:
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

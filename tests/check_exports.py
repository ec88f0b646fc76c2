#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that libshmem exports every routine the spec table declares.

    python3 tests/check_exports.py BUILD_DIR [--list-missing]

Reads BUILD_DIR/exported-names.txt (one C name per line, written by the
generator: every routine the table declares) and the dynamic symbols of
BUILD_DIR/src/libshmem.so, and checks that
  - every listed name is exported, with its profiling twin (the same name with
    a leading "p": shmem_put -> pshmem_put, start_pes -> pstart_pes);
  - every listed name is an OpenSHMEM name: it appears in the reference lists
    c-names.txt or c-names-nonspec-compat.txt (shmemx_ extensions excepted).
Then it prints how many of the spec's names (c-names.txt) the library provides,
and with --list-missing which ones it does not.

The reference lists are facts from the OpenSHMEM specifications, kept in
tests/reference/ (README there); a list that is missing is a failure, never
a check skipped. Exit status 0 if everything holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

SRC_DIR = Path(__file__).resolve().parent.parent
EXTENSION_PREFIX = "shmemx_"


def read_names(path: Path) -> list[str]:
    """First column of each non-blank, non-comment line."""
    names = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line.split()[0])
    return names


def exported_symbols(lib: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            symbols.add(fields[2].split("@")[0])   # drop a version suffix
    return symbols


REFERENCE_DIR = SRC_DIR / "tests" / "reference"


def reference_file(name: str) -> Path:
    """A reference list of tests/reference/; its absence ends the check."""
    path = REFERENCE_DIR / name
    if not path.is_file():
        raise SystemExit(f"exports: {path} not found: the reference lists belong to the checkout")
    return path


def show(title: str, names: list[str], limit: int | None) -> None:
    print(f"{title} ({len(names)}):")
    for name in names[:limit]:
        print(f"  {name}")
    if limit is not None and len(names) > limit:
        print(f"  ... and {len(names) - limit} more")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir", type=Path)
    ap.add_argument("--list-missing", action="store_true",
                    help="list the spec names the library does not provide")
    ap.add_argument("--lib", type=Path, help="library to inspect (default BUILD_DIR/src/libshmem.so)")
    opts = ap.parse_args()

    names_file = opts.build_dir / "exported-names.txt"
    lib = opts.lib or opts.build_dir / "src" / "libshmem.so"
    for path in (names_file, lib):
        if not path.is_file():
            print(f"exports: {path} not found (is the library built?)")
            return 1

    listed = sorted(set(read_names(names_file)))
    try:
        symbols = exported_symbols(lib)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"exports: cannot read the symbols of {lib}: {e}")
        return 1

    problems = 0
    # Long lists are cut in normal runs; --list-missing shows everything.
    limit = None if opts.list_missing else 30

    not_exported = [n for n in listed if n not in symbols]
    no_twin = [n for n in listed if n in symbols and "p" + n not in symbols]
    if not_exported:
        show(f"declared by the table but not exported by {lib.name}", not_exported, limit)
        problems += 1
    if no_twin:
        show("exported without the profiling twin p<name>", no_twin, limit)
        problems += 1

    spec = read_names(reference_file("c-names.txt"))
    compat = set(read_names(reference_file("c-names-nonspec-compat.txt")))
    known = set(spec) | compat
    unknown = [n for n in listed if n not in known and not n.startswith(EXTENSION_PREFIX)]
    if unknown:
        show("declared by the table but not an OpenSHMEM name (c-names.txt, "
             "c-names-nonspec-compat.txt)", unknown, limit)
        problems += 1

    provided = [n for n in spec if n in symbols and "p" + n in symbols]
    missing = [n for n in spec if n not in provided]
    extensions = [n for n in listed if n.startswith(EXTENSION_PREFIX)]
    compat_provided = [n for n in listed if n in compat]
    print(f"exports: {len(provided)}/{len(spec)} spec names provided, "
          f"each with its pshmem_ twin"
          + (f" (+{len(compat_provided)} compat, +{len(extensions)} shmemx_)"
             if compat_provided or extensions else ""))
    if missing:
        # Every OpenSHMEM C name is provided since the teams/collectives/signals
        # slice: a name that goes missing is a regression.
        show("spec names not provided", missing, None if opts.list_missing else limit)
        problems += 1

    header = opts.build_dir / "include" / "shmem.h"
    if not header.is_file():
        print(f"exports: {header} not found")
        return 1
    defined = set(re.findall(r"^#define (shmem_\w+)\(\.\.\.\)", header.read_text(), re.M))
    wanted = read_names(reference_file("c11-generic-names.txt"))
    absent = [g for g in wanted if g not in defined]
    print(f"generics: {len(wanted) - len(absent)}/{len(wanted)} C11 generic names defined in shmem.h")
    if absent:
        show("C11 generic names not defined", absent, limit)
        problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

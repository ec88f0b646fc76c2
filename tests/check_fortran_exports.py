#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that libshmem exports every name of the OpenSHMEM 1.4 Fortran binding.

    python3 tests/check_fortran_exports.py BUILD_DIR [--lib LIB]

Every name of tests/reference/fortran-names.txt must be exported by BUILD_DIR/src/libshmem.so
under each spelling Shoal promises (docs/user-guide.md, "Fortran"):
  name_     gfortran and ifort: lower case, one trailing underscore
  name__    g77/f2c (-fsecond-underscore)
  NAME      upper case, no underscore
each with its profiling twin (pname_, pname__, PNAME). The list the table
generated (BUILD_DIR/fortran-names.txt) must be the reference list, no
more and no fewer names. Exit status 0 if everything holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from check_exports import exported_symbols, read_names, reference_file


def spellings(name: str) -> list[str]:
    low = name.lower()
    plain = [low + "_", low + "__", name.upper()]
    return plain + ["p" + low + "_", "p" + low + "__", "P" + name.upper()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir", type=Path)
    ap.add_argument("--lib", type=Path)
    opts = ap.parse_args()

    ref = reference_file("fortran-names.txt")
    lib = opts.lib or opts.build_dir / "src" / "libshmem.so"
    generated = opts.build_dir / "fortran-names.txt"
    for path in (lib, generated):
        if not path.is_file():
            print(f"fortran-exports: {path} not found (is the library built with Fortran?)")
            return 1
    try:
        symbols = exported_symbols(lib)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"fortran-exports: cannot read the symbols of {lib}: {e}")
        return 1

    spec = read_names(ref)
    table = set(read_names(generated))
    problems = 0
    missing = {n: [s for s in spellings(n) if s not in symbols] for n in spec}
    missing = {n: m for n, m in missing.items() if m}
    for n, m in sorted(missing.items()):
        print(f"  {n}: not exported as {', '.join(m)}")
    if missing:
        problems += 1
    for what, names in (("in fortran-names.txt but not in spec/fortran.toml", set(spec) - table),
                        ("in spec/fortran.toml but not in fortran-names.txt", table - set(spec))):
        if names:
            print(f"  {what}: {', '.join(sorted(names))}")
            problems += 1
    provided = len(spec) - len(missing)
    print(f"fortran-exports: {provided}/{len(spec)} Fortran names exported, each as name_, name__, "
          f"NAME and the p-twins")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

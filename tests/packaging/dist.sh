#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/packaging/dist.sh — CI's dist stage (docs/testing.md): `meson dist`
# makes the release tarball from a clone of this checkout's HEAD; unpacked
# where no git tree is, it configures, builds what a node-local subset of
# the suite runs (the demo and a few families at 2 PEs, the export checks)
# and what it installs, passes the subset, and installs into a prefix whose
# modulefile Lmod loads. Ends with "N passed, M failed".
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/shoal-dist.XXXXXX)
# shellcheck source=tests/packaging/lib.sh
. "$src/tests/packaging/lib.sh"
trap 'rm -rf "$work"' EXIT

version=$(meson_version "$src")
subset='^(manual/ring_demo|(setup|put|get|atomic_fetch_add|wait_until|barrier|broadcast|sum_reduce|fortran/rma) np=2|check/(exports|fortran-exports|headers-c11))( |$)'

check "dist/clone" git clone -q "$src" "$work/clone" || { summary; exit; }
check "dist/meson dist" bash -c 'meson setup "$1/_dist" "$1" -Dtests=false && meson dist -C "$1/_dist" --no-tests --formats xztar' \
    _ "$work/clone" || { summary; exit; }
tarball="$work/clone/_dist/meson-dist/shoal-$version.tar.xz"
check "dist/shoal-$version.tar.xz holds LICENSE, NEWS.md and debian/" \
    bash -c 'tar -tJf "$1" >"$2/list" && for f in LICENSE NEWS.md debian/control meson.build; do grep -qx "shoal-$3/$f" "$2/list" || exit 1; done' \
    _ "$tarball" "$work" "$version"

mkdir -p "$work/unpacked" && tar -xJf "$tarball" -C "$work/unpacked"
cd "$work/unpacked/shoal-$version" || { summary; exit; }
check "dist/no git tree around the unpacked tarball" bash -c '! git rev-parse --git-dir'
# Every file says its license first (after a shebang, or a modulefile's
# magic line), but those whose format has no comments and the images.
# shellcheck disable=SC2046
check "dist/every file of the tarball has its SPDX line" spdx_missing $(find . -type f ! -name "*.png" ! -path ./LICENSE ! -path ./debian/changelog \
          ! -path ./debian/copyright ! -path ./debian/source/format)
check "dist/meson setup" meson setup build --prefix="$work/prefix" || { summary; exit; }
# What the subset runs and what meson install installs, not every test
# program (tests/run_tests.py --list-programs, once the generator has
# written the tests' manifests; meson introspect).
check "dist/the generated tests' manifests" bash -c \
    'ninja -C build $(ninja -C build -t targets all | sed -n "s|^\(tests/[a-z]*/manifest\.json\):.*|\1|p")' || { summary; exit; }
mapfile -t programs < <(python3 tests/run_tests.py build --list-programs --filter "$subset")
mapfile -t installed < <(meson introspect --targets build | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["installed"]:
        for f in t["filename"]:
            print(os.path.relpath(f, "build"))')
check "dist/build (${#programs[@]} test programs, ${#installed[@]} installed files)" \
    ninja -C build "${programs[@]}" "${installed[@]}" || { summary; exit; }
check "dist/the generated files have their SPDX line (man .so links aside)" spdx_missing \
    'build/include/*.h' 'build/include/*.fh' 'build/include/*.f90' 'build/*.c' 'build/*.txt' \
    'build/tests/generated/*.c*' 'build/tests/fortran/*.f90' 'build/src/tools/osh*' \
    'build/src/tools/[0-9]*' 'build/docs/man/*.[137]'
check "dist/tests/run_tests.py --filter (the subset)" python3 tests/run_tests.py build --jobs 2 --filter "$subset"
tail -n 1 "$last_log" | sed 's/^/    /'

check "dist/meson install" meson install -C build --no-rebuild
check "dist/module load shoal (lmod): oshcc, oshrun, man, pkg-config are the prefix's" \
    bash -c '. /etc/profile.d/lmod.sh && module use "$1/share/modulefiles" && module load shoal &&
             test "$(command -v oshcc)" = "$1/bin/oshcc" &&
             test "$(oshcc --version | head -n 1)" = "oshcc (Shoal) $2" &&
             oshrun --version | head -n 1 | grep -qx "oshrun (Shoal) $2" &&
             test "$(man -w shmem_put)" = "$1/share/man/man3/shmem_put.3" &&
             test "$(pkg-config --modversion shmem)" = "$2" &&
             oshcc -o "$1/ring" docs/examples/ring.c && oshrun -n 4 "$1/ring" | grep -x "ring: all 4 PEs OK"' \
    _ "$work/prefix" "$version"
summary

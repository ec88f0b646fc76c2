#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/packaging/deb.sh — CI's deb stage (docs/testing.md): Shoal's Debian
# packages built from a plain clone of this checkout's HEAD the way a
# packager builds them (apt-get build-dep, dpkg-buildpackage), lintian,
# installed beside openmpi-bin and used (the demo at 4 PEs through the
# packaged wrappers, through pkg-config and under `module load shoal`, the
# man pages), Open MPI's oshcc and oshrun checked still to work, then
# purged: nothing of Shoal's may be left under /usr. A trap purges the
# packages whatever happens. Ends with "N passed, M failed".
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/shoal-deb.XXXXXX)
# shellcheck source=tests/packaging/lib.sh
. "$src/tests/packaging/lib.sh"

packages=(libshmem0 libshmem-dev shoal-bin)
ring="$src/docs/examples/ring.c"
as_root_ompi=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)

installed_any() {
    dpkg-query -W -f='${db:Status-Status}\n' "${packages[@]}" 2>/dev/null | grep -qv '^not-installed$'
}
restore() {
    if installed_any; then
        echo "deb.sh: purging ${packages[*]}" >&2   # stdout's last line is the count
        as_root apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1
    fi
    rm -rf "$work"
}
if installed_any; then
    echo "deb.sh: some of ${packages[*]} are installed already; this stage would purge them" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
trap restore EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM   # then EXIT's

# ---- build ------------------------------------------------------------
version=$(meson_version "$src")
check "deb/clone" git clone -q "$src" "$work/shoal" || { summary; exit; }
cd "$work/shoal" || exit 1
check "deb/build-dep" as_root apt-get build-dep -y -qq ./
check "deb/dpkg-buildpackage -us -uc -b" dpkg-buildpackage -us -uc -b || { summary; exit; }
check "deb/changelog version is meson.build's ($version)" \
    test "$(dpkg-parsechangelog -S Version)" = "$version"
debs=()
for p in "${packages[@]}"; do debs+=("$work/${p}_${version}_$(dpkg --print-architecture).deb"); done
# Errors and warnings fail; what is left is overridden with a reason
# (debian/*.lintian-overrides) or an info tag (docs/releasing.md).
check "deb/lintian" lintian --fail-on error,warning --info "$work"/shoal_"${version}"_*.changes
sed 's/^/    /' "$last_log"

# ---- beside openmpi-bin -------------------------------------------------
# Every path of the packages (dpkg-deb -c), and those no installed package
# owns, directories aside: installing must not need to replace anything.
for deb in "${debs[@]}"; do dpkg-deb -c "$deb"; done | awk '{print substr($6, 2)}' | sed 's|/$||' | grep . | sort -u >"$work/paths"
cat /var/lib/dpkg/info/*.list | sort -u >"$work/owned"
check "deb/openmpi-bin is installed" dpkg-query -W openmpi-bin libopenmpi-dev
# shellcheck disable=SC2016
check "deb/no path of the packages is another package's file" \
    bash -c 'for p in $(comm -12 "$1" "$2"); do [ -d "$p" ] && [ ! -L "$p" ] || { echo "owned: $p"; bad=1; }; done; [ -z "${bad:-}" ]' \
    _ "$work/paths" "$work/owned"
while read -r p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done <"$work/paths" >"$work/existed"
check "deb/install beside openmpi-bin" as_root apt-get install -y -qq --no-install-recommends "${debs[@]}"

mkdir -p "$work/run" && cd "$work/run" || exit 1
check "deb/oshcc.shoal --version starts with Shoal's" \
    test "$(oshcc.shoal --version | head -n 1)" = "oshcc.shoal (Shoal) $version"
check "deb/oshcc.shoal ring.c, oshrun.shoal -n 4" \
    bash -c 'oshcc.shoal -o ring "$1" && oshrun.shoal -n 4 ./ring | grep -x "ring: all 4 PEs OK"' _ "$ring"
check "deb/cc \$(pkg-config --cflags --libs shmem) ring.c, -n 4" \
    bash -c 'cc -o ring-pc "$1" $(pkg-config --cflags --libs shmem) &&
             ldd ring-pc | grep -q "libshmem.so.0 => /" &&
             /usr/lib/shoal/bin/oshrun -n 4 ./ring-pc | grep -x "ring: all 4 PEs OK"' _ "$ring"
check "deb/oshfort.shoal (module shmem)" \
    bash -c 'printf "program p\n  use shmem\n  call shmem_init()\n  call shmem_finalize()\nend program p\n" >p.f90 &&
             oshfort.shoal -o pf p.f90 && oshrun.shoal -n 2 ./pf'
check "deb/man shmem_put, man oshrun.shoal" \
    bash -c 'test "$(man -w shmem_put)" = /usr/share/man/man3/shmem_put.3.gz &&
             man -P cat shmem_put 2>/dev/null | grep -q "shmem_put" &&
             man -w oshrun.shoal && man -w shoal'
# Lmod as Debian installs it: its profile script, then the module.
check "deb/module load shoal (lmod): oshcc, oshrun and man oshrun are Shoal's, unload gives them back" \
    bash -c '. /etc/profile.d/lmod.sh && module load shoal && set -x &&
             test "$(command -v oshcc)" = /usr/lib/shoal/bin/oshcc &&
             oshcc --version | head -n 1 | grep -q "(Shoal)" &&
             test "$(man -w oshrun)" = /usr/share/man/man1/oshrun.shoal.1.gz &&
             oshrun -n 2 ./ring | grep -x "ring: all 2 PEs OK" &&
             module unload shoal && test "$(command -v oshcc)" = /usr/bin/oshcc'
check "deb/Open MPI's oshcc and oshrun still build and run its OSHMEM" \
    bash -c '! /usr/bin/oshcc --version | grep -q Shoal &&
             /usr/bin/oshcc -o ring-ompi "$1" && "${@:2}" /usr/bin/oshrun --oversubscribe --mca osc ucx -np 4 ./ring-ompi |
             grep -x "ring: all 4 PEs OK"' _ "$ring" "${as_root_ompi[@]}"

# ---- purge --------------------------------------------------------------
cd "$work" || exit 1
check "deb/purge" as_root apt-get purge -y -qq "${packages[@]}"
check "deb/nothing of Shoal's left under /usr" \
    bash -c 'left=$(while read -r p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done <"$1" | comm -23 - "$2")
             left+=$(find /usr \( -name "*shoal*" -o -name "libshmem*" \) -print)
             [ -z "$left" ] || { echo "$left"; exit 1; }' _ "$work/paths" "$work/existed"
check "deb/openmpi-bin and libopenmpi-dev unchanged (dpkg --verify)" dpkg --verify openmpi-bin libopenmpi-dev
summary

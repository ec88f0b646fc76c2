#!/bin/bash
# Node-local bandwidth of large blocking puts and gets against the memcpy
# bound, interleaved in one run: for each repetition, hw_memcpy (one core),
# then bench/rma_bw at 2 PEs for every library in turn; then per size and
# library the median and range (min-max) of put_bw and get_bw in GB/s, and
# each median as a fraction of memcpy's.
#
#   bench/bw_compare.sh SIZES REPS NAME=PREFIX [NAME=PREFIX ...]
#
# SIZES        comma-separated bytes, e.g. 262144,1048576,4194304,16777216
# REPS         repetitions (at least 5 for a comparison)
# NAME=PREFIX  a library with PREFIX/bin/oshcc and PREFIX/bin/oshrun (Shoal
#              installed by meson install, or another OpenSHMEM);
#              NAME=ompi takes Debian's oshcc/oshrun on PATH for Open MPI
# Builds go to $BW_BUILD (default /tmp/bw-build). Print `uptime` with the
# figures: the machine's load changes them.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
sizes=$1
reps=$2
shift 2
build=${BW_BUILD:-/tmp/bw-build}
tmo=${BW_TIMEOUT:-120}
mkdir -p "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

names=() oshrun_of=()
cc -O2 -I"$here" -o "$build/hw_memcpy" "$here/hw_memcpy.c" -lm
for lib in "$@"; do
    name=${lib%%=*} prefix=${lib#*=}
    if [ "$prefix" = ompi ]; then
        cc_=$(command -v oshcc) run_=$(command -v oshrun)
    else
        cc_=$prefix/bin/oshcc run_=$prefix/bin/oshrun
    fi
    "$cc_" -O2 -I"$here" -o "$build/rma_bw_$name" "$here/rma_bw.c" -lm
    names+=("$name")
    oshrun_of+=("$run_")
done
flags() { # Open MPI's launcher: as root, more PEs than cores
    if "$1" --version 2>&1 | grep -q -e 'Open MPI' -e 'OpenRTE'; then echo "--allow-run-as-root --oversubscribe"; fi
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "# load at start: $(uptime)"
for rep in $(seq 1 "$reps"); do
    "$build/hw_memcpy" --sizes "$sizes" | sed 's/^/memcpy /' >>"$results"
    for i in "${!names[@]}"; do
        # shellcheck disable=SC2046 # the flags are separate words
        timeout -k 5 "$tmo" "${oshrun_of[$i]}" $(flags "${oshrun_of[$i]}") -n 2 "$build/rma_bw_${names[$i]}" \
            --sizes "$sizes" 2>/dev/null | sed "s/^/${names[$i]} /" >>"$results" || true
    done
done
echo "# load at end:   $(uptime)"

python3 - "$results" "$reps" "${names[@]}" <<'EOF'
import json, statistics, sys
path, reps, names = sys.argv[1], sys.argv[2], sys.argv[3:]
vals = {}
for line in open(path):
    lib, _, js = line.partition(" ")
    try:
        r = json.loads(js)
    except ValueError:
        continue
    if lib == "memcpy" and r.get("op") == "memcpy":
        vals.setdefault((r["size"], "memcpy", "memcpy"), []).append(r["bw_GBps"])
    elif r.get("op") in ("put_bw", "get_bw"):
        vals.setdefault((r["size"], r["op"], lib), []).append(r["value"])
print(f"# {reps} interleaved repetitions; GB/s, median (min-max); x = median / memcpy's median")
for size in sorted({k[0] for k in vals}):
    bound = statistics.median(vals.get((size, "memcpy", "memcpy"), [float("nan")]))
    print(f"{size:>9} memcpy          {bound:6.1f} ({min(vals[(size, 'memcpy', 'memcpy')]):.1f}-"
          f"{max(vals[(size, 'memcpy', 'memcpy')]):.1f})")
    for op in ("put_bw", "get_bw"):
        for lib in names:
            v = vals.get((size, op, lib))
            if not v:
                print(f"{size:>9} {op} {lib:10} all runs failed")
                continue
            m = statistics.median(v)
            print(f"{size:>9} {op} {lib:10} {m:6.1f} ({min(v):.1f}-{max(v):.1f})  x{m / bound:.2f}")
EOF

#!/bin/bash
# PEs confined to fewer CPUs than they are, as a container's or a job's
# cpuset (or a launcher binding them all to one core) confines them: 2 PEs
# run under `taskset -c CPU` (mpirun --bind-to none), interleaved in one
# run, for each repetition every path mode and every build in turn; then
# per mode, row and build the median and range (min-max) in ns of
# bench/amo_lat's fetch_add, bench/rma_lat's g and p (8 B) and
# bench/coll_lat's barrier_all.
#
#   bench/confined_compare.sh REPS NAME=PREFIX [NAME=PREFIX ...]
#
# REPS         repetitions (at least 5 for a comparison)
# NAME=PREFIX  a Shoal build installed by meson install (PREFIX/bin/oshcc,
#              PREFIX/bin/oshrun), e.g. new=$PWD/_install old=/tmp/old/_install
# Modes: node-local (the default path), ofi-tcp and ofi-shm
# (SHMEM_TRANSPORT=ofi, FI_PROVIDER=tcp over lo or shm). $CONFINED_CPU
# (default 0) is the CPU; builds go to $CONFINED_BUILD (default
# /tmp/confined-build). Print `uptime` with the figures.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
reps=$1
shift
build=${CONFINED_BUILD:-/tmp/confined-build}
cpu=${CONFINED_CPU:-0}
mkdir -p "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

names=()
for lib in "$@"; do
    name=${lib%%=*} prefix=${lib#*=}
    names+=("$name")
    for b in amo_lat rma_lat coll_lat; do
        "$prefix/bin/oshcc" -O2 -I"$here" -o "$build/${b}_$name" "$here/$b.c" -lm
    done
    ln -sf "$prefix/bin/oshrun" "$build/oshrun_$name"
done

modes=(node-local ofi-tcp ofi-shm)
mode_env() {
    case "$1" in
        node-local) echo "SHOAL_MODE=node-local" ;;
        ofi-tcp) echo "SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp FI_TCP_IFACE=lo" ;;
        ofi-shm) echo "SHMEM_TRANSPORT=ofi FI_PROVIDER=shm" ;;
    esac
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "# load at start: $(uptime)"
for rep in $(seq 1 "$reps"); do
    for mode in "${modes[@]}"; do
        for name in "${names[@]}"; do
            for b in amo_lat rma_lat coll_lat; do
                args=(--quick)
                [ "$b" = rma_lat ] && args+=(--sizes 8)
                # shellcheck disable=SC2046 # the settings are separate words
                env $(mode_env "$mode") timeout -k 5 120 taskset -c "$cpu" \
                    "$build/oshrun_$name" --bind-to none -n 2 "$build/${b}_$name" "${args[@]}" 2>/dev/null |
                    sed "s/^/$mode $name /" >>"$results" || true
            done
        done
    done
done
echo "# load at end:   $(uptime)"

python3 - "$results" "$reps" "${names[@]}" <<'EOF'
import collections, json, statistics, sys
path, reps, names = sys.argv[1], sys.argv[2], sys.argv[3:]
vals = collections.defaultdict(list)
for line in open(path):
    mode, name, rest = line.split(" ", 2)
    try:
        d = json.loads(rest)
    except ValueError:
        continue
    if d.get("op") in ("fetch_add", "g", "p", "barrier_all"):
        vals[(mode, d["op"], name)].append(float(d["value"]))
print(f"# {reps} interleaved repetitions, 2 PEs on one CPU; median (min-max), ns")
for mode in ("node-local", "ofi-tcp", "ofi-shm"):
    for op in ("fetch_add", "g", "p", "barrier_all"):
        cells = []
        for name in names:
            v = vals.get((mode, op, name))
            cells.append(f"{name} {statistics.median(v):10.1f} ({min(v):.1f}-{max(v):.1f})" if v else f"{name} failed")
        print(f"{mode:10} {op:12} " + "  ".join(cells))
EOF

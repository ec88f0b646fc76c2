#!/bin/bash
# Compare OpenSHMEM libraries on rows of the OSU micro-benchmarks (OMB),
# interleaved in one run: for each repetition and row, every library in
# turn (Shoal, Open MPI, SOS, Shoal, ...), then per row and library the
# median and range (min-max) over the repetitions. Nothing of OMB is part
# of Shoal: the programs are built outside the repository from the OMB
# source you give.
#
#   bench/omb_compare.sh OMB_SRC SHOAL_PREFIX ROWS REPS [NAME=PREFIX ...]
#
# OMB_SRC       an OMB source tree (its c/openshmem and c/util directories)
# SHOAL_PREFIX  where Shoal is installed (meson install): bin/oshcc, bin/oshrun
# ROWS          comma-separated PROGRAM:NPES:SIZE, e.g.
#               broadcast:4:8,broadcast:8:65536,put:2:1048576,get:2:1048576
#               PROGRAM is osu_oshm_PROGRAM; SIZE the row (bytes) to read
#               (barrier has one figure: give any SIZE, e.g. 0; atomics
#               rows are named by the operation: atomics:2:shmem_int_add).
#               put, get and atomics run on the heap; put and get rows are
#               also given in GB/s; atomics give OSU's latency column.
# REPS          repetitions (at least 5 for a comparison)
# NAME=PREFIX   more libraries, each with bin/oshcc and bin/oshrun, e.g.
#               sos=/opt/sos or shoal-main=/opt/shoal-main. Names starting
#               with "shoal" are Shoal builds: each gets a ratio against
#               the best other library of the same suffix (the text after
#               the first "-": shoal-tcp against sos-tcp, shoal against
#               openmpi and sos; none for shoal-main without a *-main). A PREFIX
#               may be a directory of wrapper scripts that set a path's
#               environment (SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp, ...) and
#               exec the real oshcc and oshrun.
#
# Open MPI's OSHMEM (Debian's oshcc/oshrun on PATH) is included unless
# OMPI=none; OMPI=DIR takes DIR/oshcc and DIR/oshrun instead.
# Builds go to $OMB_BUILD (default /tmp/omb-build), one directory per library.
# Each launch has a timeout ($OMB_TIMEOUT s, default 120) that kills it.
# Print `uptime` with the figures: the machine's load changes them.
set -euo pipefail

if [ $# -lt 4 ]; then
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
omb=$(cd "$1" && pwd)
shoal=$2
rows=$3
reps=$4
shift 4
build=${OMB_BUILD:-/tmp/omb-build}
tmo=${OMB_TIMEOUT:-120}

names=(shoal)
oshcc_of=("$shoal/bin/oshcc")
oshrun_of=("$shoal/bin/oshrun")
case "${OMPI:-}" in
    none) ;;
    "") names+=(openmpi); oshcc_of+=("$(command -v oshcc)"); oshrun_of+=("$(command -v oshrun)") ;;
    *) names+=(openmpi); oshcc_of+=("$OMPI/oshcc"); oshrun_of+=("$OMPI/oshrun") ;;
esac
for extra in "$@"; do
    names+=("${extra%%=*}")
    oshcc_of+=("${extra#*=}/bin/oshcc")
    oshrun_of+=("${extra#*=}/bin/oshrun")
done

# Open MPI's launcher (also under SOS or Shoal's oshrun when it runs
# mpirun) needs these to run as root and more PEs than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch_flags() {
    if "$1" --version 2>&1 | grep -q -e 'Open MPI' -e 'OpenRTE'; then
        echo "--allow-run-as-root --oversubscribe"
    fi
}

programs=$(tr ',' '\n' <<<"$rows" | cut -d: -f1 | sort -u)
for i in "${!names[@]}"; do
    dir="$build/${names[$i]}"
    mkdir -p "$dir"
    for p in $programs; do
        src="$omb/c/openshmem/osu_oshm_$p.c"
        [ -f "$src" ] || { echo "$0: no $src" >&2; exit 1; }
        "${oshcc_of[$i]}" -O2 -DOSHM_1_3 -DFIELD_WIDTH=20 -DFLOAT_PRECISION=3 -I"$omb/c/util" \
            -o "$dir/osu_oshm_$p" "$src" "$omb/c/util/osu_util.c" "$omb/c/util/osu_util_pgas.c" -lm
    done
done

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "# load at start: $(uptime)"
for rep in $(seq 1 "$reps"); do
    for row in $(tr ',' ' ' <<<"$rows"); do
        IFS=: read -r prog npes size <<<"$row"
        case "$prog" in
            put|get|atomics) args=(heap) ;;
            *) args=(-m "$size:$size") ;;
        esac
        for i in "${!names[@]}"; do
            # shellcheck disable=SC2046 # the flags are separate words
            out=$(timeout -k 5 "$tmo" "${oshrun_of[$i]}" $(launch_flags "${oshrun_of[$i]}") -n "$npes" \
                  "$build/${names[$i]}/osu_oshm_$prog" "${args[@]}" 2>/dev/null) || true
            if [ "$prog" = barrier ]; then # one figure, no size column
                v=$(awk '/^ *[0-9.]+ *$/ { print $1 }' <<<"$out" | tail -1)
            elif [ "$prog" = atomics ]; then # operation, rate, latency
                v=$(awk -v s="$size" '$1 == s { print $3; exit }' <<<"$out")
            else
                v=$(awk -v s="$size" '$1 == s { print $2; exit }' <<<"$out")
            fi
            echo "$row ${names[$i]} ${v:-FAIL}" >>"$results"
        done
    done
done
echo "# load at end:   $(uptime)"

# Per row and library: median (min-max) in us, GB/s for put/get, and each
# Shoal build's median over the best other library's of its suffix.
python3 - "$results" "$reps" "${names[@]}" <<'EOF'
import statistics, sys
path, reps, names = sys.argv[1], sys.argv[2], sys.argv[3:]
vals, rows = {}, []
for line in open(path):
    row, lib, v = line.split()
    if row not in rows:
        rows.append(row)
    vals.setdefault((row, lib), []).append(None if v == "FAIL" else float(v))
print(f"# {reps} interleaved repetitions; median (min-max), OSU's latency in us")
for row in rows:
    prog, npes, size = row.split(":")
    meds = {}
    for lib in names:
        got = [v for v in vals.get((row, lib), []) if v is not None]
        fails = len(vals.get((row, lib), [])) - len(got)
        if not got:
            print(f"{row:28} {lib:12} all {fails} runs failed")
            continue
        med = meds[lib] = statistics.median(got)
        line = f"{row:28} {lib:12} {med:10.2f} ({min(got):.2f}-{max(got):.2f})"
        if prog in ("put", "get"):
            gbs = lambda us: int(size) / us / 1e3 if us else float("inf")
            line += f"  {gbs(med):6.1f} GB/s ({gbs(max(got)):.1f}-{gbs(min(got)):.1f})"
        if fails:
            line += f"  [{fails} failed]"
        print(line)
    suffix = lambda lib: lib.split("-", 1)[1] if "-" in lib else ""
    others = [lib for lib in names if not lib.startswith("shoal")]
    for lib in (l for l in names if l.startswith("shoal") and l in meds):
        kin = [o for o in others if suffix(o) == suffix(lib)]
        peers = {o: meds[o] for o in kin if o in meds}
        if peers:
            best = min(peers, key=peers.get)
            ratio = f"{meds[lib] / peers[best]:10.2f}" if peers[best] else f"{'-':>10}"
            print(f"{row:28} {'ratio':12} {ratio}  ({lib} / {best})")
EOF

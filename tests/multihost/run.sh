#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/multihost/run.sh — Shoal across two real hosts on one machine.
#
#   tests/multihost/run.sh BUILD_DIR [--suite-filter REGEX] [--no-suite]
#                          [--no-link-loss] [--timeout-scale X]
#
# Two "hosts", hostA and hostB: each a network namespace (joined by a veth
# pair, 10.77.0.1/24 and 10.77.0.2/24, nothing routed outward) with its own
# hostname (UTS namespace), its own /dev/shm (a mount namespace with a
# tmpfs mount), its own TMPDIR and an /etc/hosts naming both. Open MPI's mpirun runs
# on hostA with -H hostA:2,hostB:2 and an rsh agent that enters hostB, so
# PMIx reports two nodes: shared memory inside each, libfabric tcp between.
#
#  1. the suite: tests/run_tests.py, run inside hostA, with the tests that
#     run at 3 and 4 PEs (placed 2+1 and 2+2); --suite-filter narrows them.
#     The runner watches hostA's /dev/shm; hostB's is checked here after
#     the run (both tmpfs mounts are visible from the initial namespace).
#  2. lost link: link_loss.c takes the veth down mid-barrier and mid-get;
#     the job must end nonzero within SHMEM_OFI_TIMEOUT + a grace, with a
#     line naming the routine, a peer on hostB and its host, and leave
#     nothing in either /dev/shm.
#
# Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): without them it prints a SKIP
# line and exits 0, never a silent pass. Everything it creates (namespaces,
# veth, mounts, processes, its work directory) is removed on every exit path.
# The last line is "N passed, M failed" like run_tests.py's.
set -u

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }

build=""
suite_filter=""
run_suite=1
run_link=1
scale=1
while [ $# -gt 0 ]; do
    case "$1" in
        --suite-filter) suite_filter=$2; shift 2 ;;
        --no-suite) run_suite=0; shift ;;
        --no-link-loss) run_link=0; shift ;;
        --timeout-scale) scale=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) build=$1; shift ;;
    esac
done
[ -n "$build" ] && [ -d "$build" ] || { usage >&2; exit 2; }
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)

harness=multihost
. "$src/tests/multihost/hosts.sh"
[ -n "$suite_filter" ] || suite_filter=$two_host_filter
hosts_up mpirun

# Open MPI's rsh agent: "agent HOST COMMAND..." runs COMMAND on HOST.
cat >"$work/agent" <<EOF
#!/bin/sh
host=\$1
shift
case "\$host" in
    hostA) pid=$pida; tmp=$work/tmpA; cpu=$cpu_a ;;
    hostB) pid=$pidb; tmp=$work/tmpB; cpu=$cpu_b ;;
    *) echo "multihost agent: unknown host \$host" >&2; exit 255 ;;
esac
exec taskset -c "\$cpu" nsenter -t "\$pid" -n -u -m -- env TMPDIR="\$tmp" /bin/sh -c "\$*"
EOF
chmod +x "$work/agent"
# Each host has one CPU (hosts.sh): no binding to cores it does not have.
launcher="mpirun -H hostA:2,hostB:2 --bind-to none --mca plm_rsh_agent $work/agent"
say "hostA (10.77.0.1) and hostB (10.77.0.2) up; launcher: $launcher"

# ---- 1. the suite across the hosts ----
if [ $run_suite = 1 ]; then
    count_suite " [2 hosts]" on_host "$pida" env OSHRUN_LAUNCHER="$launcher" \
        python3 "$src/tests/run_tests.py" "$build" --only generated,manual --filter "$suite_filter" \
        --timeout-scale "$scale" --label-suffix " [2 hosts]"
fi

# ---- 2. the link lost mid-run ----
if [ $run_link = 1 ] && link_loss_build; then
    for x in "barrier shmem_barrier(_all)?" "get shmem_(long_)?get"; do
        set -- $x
        link_case "$1" "$2" "" "Open MPI 4.1's mpirun" "$build/src/tools/oshrun" -n 4 \
            --bind-to none --mca plm_rsh_agent "$work/agent" -H hostA:2,hostB:2
    done
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

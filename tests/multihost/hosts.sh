# SPDX-License-Identifier: BSD-3-Clause
# tests/multihost/hosts.sh — sourced by run.sh (mpirun) and slurm.sh (Slurm):
# the two hosts, the counters, and the lost-link test, whatever launches the
# PEs.
#
# Two "hosts", hostA and hostB: each a network namespace (joined by a veth
# pair, 10.77.0.1/24 and 10.77.0.2/24, nothing routed outward) with its own
# hostname (UTS namespace), its own /dev/shm (a mount namespace with a tmpfs
# mount), its own TMPDIR, its own $work/private directory (a bind mount of
# $work/privateA or $work/privateB: for daemons that want a fixed path of
# their own on each host), an /etc/hosts naming both, and a CPU of its own
# when the machine has two (every process entering a host runs on that
# CPU). Real hosts do not share cores; two hosts whose launchers each bind
# their PEs to cores 0 and 1 do, unknown to either, and every round trip
# between two PEs sharing a core waited for a scheduler tick (a get 0.7 ms
# instead of 7 us; collect at 4 PEs 14 s instead of 0.9 s).
#
# The sourcing script sets harness (its name, for messages), build and src,
# calls hosts_up, and may define hosts_teardown_hook (run first at teardown)
# and link_case_hook (run after each lost-link case). Everything hosts_up
# creates (namespaces, veth, mounts, processes, $work) is removed on every
# exit path.

tag=$$
nsa=shoalA-$tag
nsb=shoalB-$tag
va=shA$tag
vb=shB$tag
work=""
pida=""
pidb=""
cpu_a=""
cpu_b=""
passed=0
failed=0

# The 3- and 4-PE subset run across the hosts, to stay within a few
# minutes: every path kind (RMA, strided, signals, AMOs, waits, locks,
# contexts, teams, each collective family) at 4 PEs (2+2), some at 3 (2+1),
# and the manual tests that exercise remote peers and faults (not the
# threaded AMO soak: the slowest by far across hosts), and shmem_ptr, which
# must be NULL exactly for the PEs on the other host.
gen4='put|get|put_nbi|iput|p|g|put_signal|atomic_fetch_add|atomic_compare_swap|atomic_fetch_nbi|atomic_swap|signal_ops|wait_until_any|test_some|barrier|broadcast|collect|fcollect|alltoall|sum_reduce|max_to_all|sum_inscan|teams|contexts|locks|order|memory'
gen3='put|atomic_fetch_add|barrier|sum_reduce|broadcast_as|collect_as'
man4='fence_orders_puts_to_one_pe|test_polling_target_serves_network_peers|shmem_ptr_reaches_globals_and_heap|target_computing_still_serves_peers|globals_are_symmetric_for_rma|contended_amos_give_exact_totals|contexts_isolate_and_complete|mixed_operations_soak|bounced_puts_free_the_source_and_complete_at_quiet|active_set_calls_run_back_to_back|team_destroy_with_live_contexts'
man3='locks_give_mutual_exclusion|wait_and_test_families|heap_allocations_are_symmetric|global_exit_ends_all_pes|pe_fault_ends_job (kill|segv) barrier|teams_split_and_destroyed_in_a_loop|bad_pe_is_reported'
two_host_filter="^(($gen4) np=4|($gen3) np=3|manual/($man4) np=4|manual/($man3) np=3)( |\$)"

say() { echo "$harness: $*"; }
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
# case_done LABEL PROBLEMS LOG [LINES]: what a case left in either host's
# /dev/shm is one more problem (and is removed); none passes the case,
# else it fails with the last LINES (10) of LOG.
case_done() {
    local label=$1 problems=$2 log=$3 lines=${4:-10} h left
    for h in A B; do
        if left=$(shm_left "$work/shm$h"); then problems+="; left in host$h's /dev/shm (removed): $left"; fi
    done
    if [ -z "$problems" ]; then
        pass "$label"
        return 0
    fi
    fail "$label" "${problems#; }"
    sed 's/^/    | /' "$log" 2>/dev/null | tail -n "$lines"
    return 1
}
skip() {
    say "SKIP: $*"
    echo "0 passed, 0 failed"
    exit 0
}

hosts_teardown() {
    local pid ns
    trap - EXIT INT TERM HUP
    if declare -F hosts_teardown_hook >/dev/null; then hosts_teardown_hook; fi
    # Every process in either namespace: PEs, daemons, launchers, the holders.
    for ns in "$nsa" "$nsb"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    done
    for pid in $pida $pidb; do kill -KILL "$pid" 2>/dev/null; done
    sleep 0.2
    ip netns del "$nsa" 2>/dev/null
    ip netns del "$nsb" 2>/dev/null
    ip link del "$va" 2>/dev/null
    if [ -n "$work" ]; then
        umount "$work/shmA" "$work/shmB" 2>/dev/null
        rm -rf -- "$work"
    fi
}

# Creates the hosts, or exits with a SKIP line (no root, missing tools:
# nothing counted) or status 1 (set-up failed). Extra arguments: commands
# that must be in PATH.
hosts_up() {
    local tool i
    trap hosts_teardown EXIT
    trap 'exit 130' INT TERM HUP
    if [ "$(id -u)" -ne 0 ] || ! ip netns add "$nsa" 2>/dev/null; then
        skip "cannot create network namespaces here (needs root with CAP_NET_ADMIN and CAP_SYS_ADMIN); the two-host tests did not run"
    fi
    for tool in nsenter unshare "$@"; do
        command -v "$tool" >/dev/null || skip "$tool not found; the two-host tests did not run"
    done

    work=$(mktemp -d /run/shoal-multihost.XXXXXX) || { say "cannot create a work directory"; exit 1; }
    mkdir -p "$work/shmA" "$work/shmB" "$work/tmpA" "$work/tmpB" "$work/privateA" "$work/privateB" "$work/private"
    chmod 1777 "$work/tmpA" "$work/tmpB"
    # Each host's /dev/shm, mounted here so that both can be inspected from
    # outside (the runner on hostA sees only hostA's).
    mount -t tmpfs -o mode=1777,size=512m shoal-shmA "$work/shmA" &&
        mount -t tmpfs -o mode=1777,size=512m shoal-shmB "$work/shmB" || { say "cannot mount tmpfs"; exit 1; }
    printf '127.0.0.1 localhost\n10.77.0.1 hostA\n10.77.0.2 hostB\n' >"$work/hosts"
    ip netns add "$nsb" || exit 1
    ip link add "$va" type veth peer name "$vb" || exit 1
    ip link set "$va" netns "$nsa" && ip link set "$vb" netns "$nsb" || exit 1
    ip -n "$nsa" addr add 10.77.0.1/24 dev "$va" && ip -n "$nsb" addr add 10.77.0.2/24 dev "$vb" || exit 1
    for i in "$nsa $va" "$nsb $vb"; do
        set -- $i
        ip -n "$1" link set lo up && ip -n "$1" link set "$2" up || exit 1
    done

    # The first two CPUs this script may use; one CPU: both hosts on it.
    read -r cpu_a cpu_b < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[min(1, len(c) - 1)])')
    pida=$(start_host "$nsa" hostA A)
    pidb=$(start_host "$nsb" hostB B)
    for i in $(seq 100); do
        [ -e "$work/hostA.ready" ] && [ -e "$work/hostB.ready" ] && break
        sleep 0.1
    done
    if ! [ -e "$work/hostA.ready" ] || ! [ -e "$work/hostB.ready" ]; then
        say "cannot set up the hosts: $(cat "$work"/host*.err)"
        exit 1
    fi
    if [ "$(on_host "$pida" hostname)" != hostA ] || [ "$(on_host "$pidb" hostname)" != hostB ]; then
        say "the hosts are not set up as expected (hostname)"
        exit 1
    fi
}

# A holder process per host: it owns the host's UTS and mount namespaces;
# everything else enters them with nsenter.
start_host() { # start_host NETNS NAME LETTER
    local ns=$1 name=$2 x=$3
    ip netns exec "$ns" unshare --uts --mount --propagation private -- bash -c "
        hostname $name && mount --bind '$work/shm$x' /dev/shm &&
        mount --bind '$work/private$x' '$work/private' &&
        mount --bind '$work/hosts' /etc/hosts && touch '$work/$name.ready' && exec sleep infinity" \
        </dev/null >/dev/null 2>"$work/$name.err" &
    echo $!
}

# Each host's TMPDIR is its own (Open MPI's and PMIx's session files, and
# oshrun's cleanup directory), without hiding /tmp, where the checkout and
# the build may live.
on_host() { # on_host PID command...
    local pid=$1 dir=$work/tmpA cpu=$cpu_a
    shift
    [ "$pid" = "$pidb" ] && dir=$work/tmpB cpu=$cpu_b
    taskset -c "$cpu" nsenter -t "$pid" -n -u -m -- env TMPDIR="$dir" "$@"
}

# Entries left in a host's /dev/shm (they are removed, and counted).
shm_left() {
    local dir=$1 left
    left=$(ls -A "$dir")
    [ -z "$left" ] && return 1
    echo $left
    rm -rf -- "${dir:?}"/* "${dir:?}"/.[!.]* 2>/dev/null
    return 0
}

# Runs "runner LOG" (a tests/run_tests.py run that ends with "N passed, M
# failed") and adds its counts; then hostB's /dev/shm must be empty.
count_suite() { # count_suite LABEL_SUFFIX command...
    local suffix=$1 log="$work/suite.log" last left start=$SECONDS
    shift
    "$@" | tee "$log"
    last=$(tail -n 1 "$log")
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    else
        fail "suite$suffix" "the runner did not finish ($last)"
    fi
    if left=$(shm_left "$work/shmB"); then
        fail "check/no-leftover-shm-hostB$suffix" "left in hostB's /dev/shm (removed): $left"
    else
        pass "check/no-leftover-shm-hostB$suffix"
    fi
    say "suite: $((SECONDS - start)) s"
}

# ---- the link lost mid-run ----
# link_loss.c takes the veth down mid-barrier and mid-get; the job must end
# nonzero within SHMEM_OFI_TIMEOUT + a grace, with a line naming the
# routine, a peer on hostB and its host, and leave nothing in either
# /dev/shm.
link_loss_build() {
    ${CC:-cc} -std=c11 -O1 -I "$build/include" -I "$src/include" -o "$work/link_loss" \
        "$src/tests/multihost/link_loss.c" "$build/src/libshmem.so" -Wl,-rpath,"$build/src" 2>"$work/cc.err" && return 0
    fail "multihost/link_loss" "does not compile: $(cat "$work/cc.err")"
    return 1
}

# PIDs of the test's PEs, on either host.
link_pes() {
    local pid
    for pid in $(ip netns pids "$nsa"; ip netns pids "$nsb"); do
        [ "$(cat /proc/$pid/comm 2>/dev/null)" = link_loss ] && echo $pid
    done
}

# "PID (host H, state S, waiting in W)": what a PE that did not end is doing.
pe_state() {
    local host=hostA
    ip netns identify "$1" 2>/dev/null | grep -q "$nsb" && host=hostB
    echo "$1 (host $host, $(awk '/^State:/ {print "state " $2}' /proc/$1/status 2>/dev/null), waiting in $(cat /proc/$1/wchan 2>/dev/null))"
}

# The link back up for the next launch: what a killed launcher left
# running (its daemons, which waited for it over the lost link) is killed,
# the neighbour caches that learnt the link was gone are flushed, and both
# ends must report a carrier. Seen once: the get case's mpirun, started at
# once after the barrier case's, could not start its daemon on hostB.
link_restore() {
    local pid i
    for pid in $(ip netns pids "$nsa"; ip netns pids "$nsb"); do
        case "$(cat /proc/$pid/comm 2>/dev/null)" in orted | link_loss) kill -KILL "$pid" 2>/dev/null ;; esac
    done
    ip -n "$nsa" link set "$va" up
    ip -n "$nsb" link set "$vb" up
    ip -n "$nsa" neigh flush dev "$va" 2>/dev/null
    ip -n "$nsb" neigh flush dev "$vb" 2>/dev/null
    for i in $(seq 50); do
        ip -n "$nsa" link show "$va" | grep -q LOWER_UP && ip -n "$nsb" link show "$vb" | grep -q LOWER_UP && return 0
        sleep 0.1
    done
}

# link_case MODE ROUTINE_REGEX LABEL_SUFFIX LAUNCHER_NAME launch-command...
# The launch command runs on hostA and starts 4 PEs placed 2+2; link_loss
# and MODE are appended to it.
link_case() {
    local mode=$1 routine=$2 suffix=$3 launcher_name=$4
    shift 4
    local label="multihost/link_loss $mode np=4$suffix" t0 elapsed left limit pid
    local timeout_s=5 grace=12
    limit=$((timeout_s + grace))
    link_restore
    rm -f "$work/down"
    t0=$SECONDS
    setsid nsenter -t "$pida" -n -u -m -- env TMPDIR="$work/tmpA" SHMEM_OFI_TIMEOUT=$timeout_s \
        SHOAL_TEST_LINK_DOWN="ip link set $va down && touch $work/down" \
        "$@" "$work/link_loss" "$mode" >"$work/out" 2>"$work/err" &
    local job=$! status="" ended="" seen=0 down=""
    # Every PE, on both hosts, must end by itself: those on hostB cannot be
    # told by the launcher (the link is down). Then the launcher gets a moment.
    while [ $((SECONDS - t0)) -lt $((limit * 3)) ]; do
        sleep 0.2
        [ -n "$down" ] || ! [ -e "$work/down" ] || down=$((SECONDS - t0))
        if [ -z "$ended" ]; then
            if [ -n "$(link_pes)" ]; then
                seen=1
            elif [ $seen = 1 ]; then
                ended=$((SECONDS - t0))
            fi
        fi
        # srun may give up on the lost host's daemon before the PEs there
        # have ended: they are still watched.
        if ! kill -0 $job 2>/dev/null; then
            [ -n "$ended" ] || [ $seen = 0 ] && break
        elif [ -n "$ended" ] && [ $((SECONDS - t0 - ended)) -ge 10 ]; then
            break
        fi
    done
    if kill -0 $job 2>/dev/null; then
        # It may wait for the other host's daemon over the lost link.
        echo "    note: the launcher ($launcher_name) had not exited 10 s after every PE ended: killed"
        kill -KILL -- -$job 2>/dev/null
        { wait $job; } 2>/dev/null
    else
        wait $job
        status=$?
    fi
    # From the link going down (PE 0's command touches $work/down; polled
    # every 0.2 s, counted in whole seconds) to the last PE's end.
    elapsed=$(( ${ended:-$((SECONDS - t0))} - ${down:-0} ))
    ip -n "$nsa" link set "$va" up
    local problems=""
    if [ -z "$ended" ]; then
        problems+="; PEs still running $((SECONDS - t0)) s after the start: $(for pid in $(link_pes); do pe_state $pid; done)"
        for pid in $(link_pes); do kill -KILL $pid; done
    fi
    [ "$status" != 0 ] || problems+="; exit status 0, expected nonzero"
    [ -n "$down" ] || problems+="; PE 0 never said the link was down"
    [ $elapsed -le $limit ] ||
        problems+="; the PEs took $elapsed s to end after the link went down, more than SHMEM_OFI_TIMEOUT=$timeout_s + $grace s"
    grep -Eq "^shoal: PE [0-9]+: $routine: no progress towards PE [23] \(host hostB\)" "$work/err" ||
        problems+="; no error line naming $routine, PE 2 or 3 and hostB"
    ! grep -q "completed with the link down" "$work/out" || problems+="; a PE passed the barrier with the link down"
    if case_done "$label (every PE ended $elapsed s after the link went down; launcher exit status ${status:-none, killed})" \
        "$problems" "$work/err" 15; then
        grep "no progress" "$work/err" | head -n 2 | sed 's/^/    /'
    fi
    if declare -F link_case_hook >/dev/null; then link_case_hook; fi
}

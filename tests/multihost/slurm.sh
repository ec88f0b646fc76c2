#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/multihost/slurm.sh — Shoal under Slurm across two real hosts on one
# machine.
#
#   tests/multihost/slurm.sh BUILD_DIR [--suite-filter REGEX] [--no-suite]
#                            [--suite-only] [--no-link-loss]
#                            [--timeout-scale X] [--repeat N]
#                            [--time-limit] [--also COMMAND]...
#
# The hosts of run.sh (hosts.sh: hostA and hostB, network namespaces with
# their own hostname, /dev/shm and TMPDIR), with a Slurm cluster on them:
# munged and slurmctld on hostA, a slurmd on each host, every daemon run as
# root from a slurm.conf written into the work directory (its spool, logs,
# state and munge key too), so nothing outside it is used or left.
#
#  1. the suite: tests/run_tests.py inside "salloc -N 2 --ntasks-per-node=2"
#     on hostA (PEs 0-1 on hostA, checked first), every
#     launch through "srun --mpi=pmix -N 2 --overlap" (OSHRUN_LAUNCHER), one
#     at a time: the 3- and 4-PE subset of tests/pmi_subset.regex, placed
#     2+1 and 2+2; then a PE killed by SIGKILL must end the job with status
#     137 and srun's report.
#  2. oshrun: outside an allocation it picks mpirun, inside salloc srun
#     --mpi=pmix (and says so, with the job's task count when not given
#     -n), and passes srun options through; the ring example runs 2+2.
#  3. sbatch: docs/examples/ring.sbatch, submitted as it is, must print the
#     whole ring and the launcher line.
#  4. lost link: link_loss.c under srun (as in run.sh): the job must end with
#     a line naming the routine, a peer on hostB and its host.
#  5. PMI-2: tests/pmi_subset.regex under srun --mpi=pmi2, the ring under it,
#     and srun with no --mpi (MpiDefault=none): one error line, nonzero.
#  6. killed jobs: tests/kill/hang.c as a batch job through oshrun, ended by
#     scancel (and, with --time-limit, by a time limit), must leave no PE and
#     nothing in /dev/shm.
#
#  --suite-only runs step 1 alone (with --suite-filter: one test, again and
#     again, without the minutes of the other steps).
#  --repeat N runs step 1 N times in the same cluster (with --suite-only and
#     --suite-filter: a loop over one test that rarely fails).
#  --time-limit adds the time-limit case to step 6: slurmstepd ends the
#     steps as for scancel (TERM, then KILL after KillWait), but Slurm's
#     shortest limit is a minute and it checks limits every 30 s, so the case
#     takes 60-90 s.
#  --also COMMAND (repeatable) runs COMMAND with sh on hostA inside "salloc -N 2
#     --ntasks-per-node=2", in the current directory, with the build's
#     tools first in PATH, prints its output, and counts it as passed if it
#     exits 0: to try other programs under Slurm.
#
# Needs root and Slurm (slurm-wlm, munge): without them it prints a SKIP
# line and exits 0, never a silent pass. Every daemon is killed and every
# file removed on every exit path. The last line is "N passed, M failed".
set -u

usage() { sed -n '2,43p' "$0" | sed 's/^# \{0,1\}//'; }

build=""
suite_filter=""
run_suite=1
run_link=1
run_rest=1
scale=1
repeat=1
also=()
run_time_limit=0
while [ $# -gt 0 ]; do
    case "$1" in
        --suite-filter) suite_filter=$2; shift 2 ;;
        --no-suite) run_suite=0; shift ;;
        --no-link-loss) run_link=0; shift ;;
        --suite-only) run_rest=0; run_link=0; shift ;;
        --timeout-scale) scale=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --time-limit) run_time_limit=1; shift ;;
        --also) also+=("$2"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "slurm.sh: unknown option $1" >&2; exit 2 ;;
        *) build=$1; shift ;;
    esac
done
[ -n "$build" ] && [ -d "$build" ] || { usage >&2; exit 2; }
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)

harness=slurm
. "$src/tests/multihost/hosts.sh"
# The subset every PMI runs (tests/pmi_subset.regex, as step 5 and the
# hydra stage): what differs here from run.sh's wider subset across the
# same hosts is the launcher and its PMIx, not the paths.
[ -n "$suite_filter" ] || suite_filter=$(grep -v "^#" "$src/tests/pmi_subset.regex")
hosts_up munged slurmctld slurmd srun salloc sbatch scontrol sinfo scancel

# ---- the cluster ----
conf=$work/slurm
mkdir -p "$conf/state" "$conf/munge"
# Slurm's PMIx plugin puts each step's client files under
# PMIxCliTmpDirBase, named by job and step only: the hosts share one
# filesystem, so it must be a per-host directory ($work/private).
cat >"$conf/slurm.conf" <<EOF
ClusterName=shoal
SlurmctldHost=hostA(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$conf/munge/socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=$conf/state
SlurmdSpoolDir=$conf/spool-%n
SlurmctldPidFile=$conf/slurmctld.pid
SlurmdPidFile=$conf/slurmd-%n.pid
SlurmctldLogFile=$conf/slurmctld.log
SlurmdLogFile=$conf/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
InactiveLimit=0
KillWait=2
MinJobAge=2
SlurmdTimeout=15
MessageTimeout=10
NodeName=hostA NodeAddr=10.77.0.1 CPUs=4 State=UNKNOWN
NodeName=hostB NodeAddr=10.77.0.2 CPUs=4 State=UNKNOWN
PartitionName=shoal Nodes=hostA,hostB Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd 22.05 here: cgroup v1 named but never mounted (processes are
# tracked through /proc, tasks not bound).
cat >"$conf/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupAutomount=no
EOF
echo "PMIxCliTmpDirBase=$work/private" >"$conf/mpi.conf"
export SLURM_CONF=$conf/slurm.conf

# A munge key of our own, and munged on hostA with its own socket: the
# machine's munge (if any) is neither used nor disturbed.
head -c 1024 /dev/urandom >"$conf/munge/key" && chmod 0400 "$conf/munge/key"
on_host "$pida" munged -F -f --key-file="$conf/munge/key" --socket="$conf/munge/socket" \
    --pid-file="$conf/munge/pid" --log-file="$conf/munge/log" --seed-file="$conf/munge/seed" \
    </dev/null >/dev/null 2>&1 &
on_host "$pida" slurmctld -D -i </dev/null >"$conf/slurmctld.out" 2>&1 &
on_host "$pida" slurmd -D -N hostA </dev/null >"$conf/slurmd-hostA.out" 2>&1 &
on_host "$pidb" slurmd -D -N hostB </dev/null >"$conf/slurmd-hostB.out" 2>&1 &

# "hostA idle" and "hostB idle", as sinfo sees them from hostA.
nodes_idle() {
    [ "$(on_host "$pida" sinfo -h -N -o '%N %t' 2>/dev/null | sort | tr '\n' ' ')" = "hostA idle hostB idle " ]
}
for i in $(seq 150); do
    nodes_idle && break
    sleep 0.2
done
if ! nodes_idle; then
    say "the cluster did not come up: $(on_host "$pida" sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')"
    tail -n 5 "$conf"/*.log "$conf"/*.out "$conf/munge/log" 2>/dev/null | sed 's/^/    | /'
    exit 1
fi
say "hostA (10.77.0.1: munged, slurmctld, slurmd) and hostB (10.77.0.2: slurmd) up; $(srun --version)"

# After a job that may have left Slurm in a bad way (a lost link): cancel
# what is left and wait until both nodes are idle again.
cluster_settle() {
    local i state
    on_host "$pida" scancel --full --quiet --partition=shoal 2>/dev/null
    for i in $(seq 150); do
        nodes_idle && return 0
        state=$(on_host "$pida" sinfo -h -N -o '%N %t' 2>/dev/null)
        if [[ $state =~ (down|drain|fail) ]]; then
            say "resuming: $(echo $state)"
            on_host "$pida" scontrol update nodename=hostA,hostB state=resume 2>/dev/null
        fi
        sleep 0.2
    done
    say "the nodes are not idle again: $(on_host "$pida" sinfo -h -N -o '%N %t %E' 2>&1 | tr '\n' ' ')"
    return 1
}

# ---- 1. the suite across the hosts, under srun ----
if [ $run_suite = 1 ]; then
    # Where the suite's launches put their PEs (the nodes have more CPUs
    # than that, so without --ntasks-per-node Slurm may pack 3+1).
    # The allocation's SLURM_NTASKS_PER_NODE=2 is dropped: srun would warn
    # at every 3-PE launch that it cannot honour it.
    placed=$(on_host "$pida" salloc --quiet -N 2 --ntasks-per-node=2 env -u SLURM_NTASKS_PER_NODE sh -c \
        'for n in 4 3; do srun -N 2 -n $n --overlap sh -c "echo \$SLURM_PROCID \$(hostname)" | sort -n | cut -d" " -f2 | paste -sd" "; done' 2>&1 | paste -sd'/')
    if [ "$placed" = "hostA hostA hostB hostB/hostA hostA hostB" ]; then
        pass "slurm/placement np=4 is 2+2, np=3 is 2+1"
    else
        fail "slurm/placement np=4 is 2+2, np=3 is 2+1" "PEs 0.. of 4 / of 3 on: $placed"
    fi
    # One launch at a time, as run.sh. slurmstepd starts each host's tasks
    # of a step in a session of its own, so each is a scheduler autogroup
    # (kernel.sched_autogroup_enabled): the CPUs are shared between groups,
    # and a waiting PE's sched_yield does not pass the CPU to another
    # group. Real hosts do not share CPUs; these two do, so a PE waiting
    # for a peer on the other host keeps that peer off the CPU. Two
    # launches at a time (--jobs 2, four groups) made collect np=3 and
    # np=4 take 35-69 s, past the 30 s no-progress limit once in CI; alone
    # it takes 13 s, as under mpirun, whose rsh agent keeps the whole
    # launch in one session (two at a time: 14-25 s there, 50-63 s with
    # each host's PEs in a session of their own).
    for round in $(seq "$repeat"); do
        count_suite " [slurm]" on_host "$pida" env OSHRUN_LAUNCHER="srun --mpi=pmix -N 2 --overlap" \
            salloc --quiet -N 2 --ntasks-per-node=2 env -u SLURM_NTASKS_PER_NODE \
            python3 "$src/tests/run_tests.py" "$build" --only generated,manual --filter "$suite_filter" \
            --timeout-scale "$scale" --label-suffix " [slurm]"
        cluster_settle
    done
fi

# ---- a PE killed by SIGKILL ends the job, as srun reports it ----
fault_case() { # fault_case WHERE (barrier or wait)
    local where=$1 label="slurm/pe_fault_ends_job kill $1 np=3" status t0=$SECONDS problems="" pid
    on_host "$pida" timeout -s KILL 40 salloc --quiet -N 2 --ntasks-per-node=2 env -u SLURM_NTASKS_PER_NODE "$build/src/tools/oshrun" -n 3 -N 2 \
        "$build/tests/manual/pe_fault_ends_job" kill "$where" >"$work/out" 2>"$work/err"
    status=$?
    [ $status = 137 ] || problems+="; exit status $status, expected 137 (the killed PE's)"
    [ $((SECONDS - t0)) -le 20 ] || problems+="; took $((SECONDS - t0)) s, more than 20"
    [ ! -s "$work/out" ] || problems+="; stdout not empty: $(head -n 2 "$work/out" | tr '\n' ' ')"
    grep -Eq '^srun: error: hostA: task 1: Killed$' "$work/err" || problems+="; no 'srun: error: hostA: task 1: Killed'"
    for pid in $(ip netns pids "$nsa"; ip netns pids "$nsb"); do
        [ "$(cat /proc/$pid/comm 2>/dev/null)" = pe_fault_ends_j ] && problems+="; PE $pid outlived the job" && kill -KILL $pid
    done
    case_done "$label" "$problems" "$work/err"
}
if [ $run_suite = 1 ] && [ $run_rest = 1 ]; then
    fault_case barrier
    fault_case wait
    cluster_settle
fi

# ---- 2. oshrun picks its launcher from Slurm's environment ----
ring_build() {
    ${CC:-cc} -std=c11 -O1 -I "$build/include" -I "$src/include" -o "$work/ring" \
        "$src/docs/examples/ring.c" "$build/src/libshmem.so" -Wl,-rpath,"$build/src" 2>"$work/cc.err" && return 0
    fail "slurm/ring" "does not compile: $(cat "$work/cc.err")"
    return 1
}
# The ring's own lines: every PE's, and PE 0's verdict.
ring_checked() { # ring_checked OUTPUT_FILE
    local pe problems=""
    for pe in 0 1 2 3; do
        grep -q "^PE $pe of 4: got $(((pe + 3) % 4)) from left neighbour" "$1" || problems+="; no line from PE $pe"
    done
    grep -q '^ring: all 4 PEs OK$' "$1" || problems+="; no 'ring: all 4 PEs OK'"
    echo "${problems#; }"
}
oshrun_case() { # oshrun_case LABEL EXPECTED_STDERR_REGEX command...
    local label=$1 expect=$2 problems status
    shift 2
    on_host "$pida" env PATH="$build/src/tools:$PATH" "$@" >"$work/out" 2>"$work/err"
    status=$?
    if [ $status -ne 0 ]; then
        fail "$label" "exit status $status ($(tail -n 3 "$work/err" | tr '\n' ' '))"
        return
    fi
    problems=$(ring_checked "$work/out")
    grep -Eq "$expect" "$work/err" || problems+="${problems:+; }stderr does not match /$expect/: $(head -n 3 "$work/err" | tr '\n' ' ')"
    if [ -z "$problems" ]; then pass "$label"; else fail "$label" "$problems"; fi
}

if [ $run_rest = 1 ] && ring_build; then
    # Outside an allocation: mpirun (no SLURM_JOB_ID in the environment).
    which=$(on_host "$pida" env -u SLURM_JOB_ID PATH="$build/src/tools:$PATH" oshrun --oshrun-which 2>&1)
    if [[ $which =~ ^mpirun\ \(Open\ MPI ]]; then
        pass "slurm/oshrun-outside-allocation-picks-mpirun"
    else
        fail "slurm/oshrun-outside-allocation-picks-mpirun" "oshrun --oshrun-which said: $which"
    fi
    # Inside: srun --mpi=pmix, said on stderr, across both hosts; srun's
    # own options (-N, --ntasks-per-node) passed through.
    oshrun_case "slurm/oshrun-in-salloc-uses-srun np=4" \
        '^oshrun: launching 4 PEs \(the job.s task count\) with srun --mpi=pmix at .* \(Slurm job [0-9]+\)$' \
        salloc --quiet -N 2 --ntasks-per-node=2 oshrun --oshrun-verbose "$work/ring"
    oshrun_case "slurm/oshrun-in-salloc-passes-srun-options np=4" \
        '^srun --mpi=pmix -n 4 -N 2 --ntasks-per-node 2 /\S+/ring $' \
        salloc --quiet -N 2 -n 4 bash -c "oshrun --oshrun-dry-run -n 4 -N 2 --ntasks-per-node 2 '$work/ring' >&2 &&
            oshrun -n 4 -N 2 --ntasks-per-node 2 '$work/ring'"
    cluster_settle

    # ---- 3. the sbatch example, as it is in docs/ ----
    label="slurm/sbatch docs/examples/ring.sbatch np=4"
    rm -f "$work/ring.out"
    if on_host "$pida" env PATH="$build/src/tools:$PATH" sbatch --wait --quiet --chdir="$work" \
        --output="$work/ring.out" "$src/docs/examples/ring.sbatch" >"$work/err" 2>&1; then
        problems=$(ring_checked "$work/ring.out")
        grep -Eq '^oshrun: launching 4 PEs .*with srun --mpi=pmix at .* \(Slurm job [0-9]+\)$' "$work/ring.out" ||
            problems+="${problems:+; }no oshrun line naming srun --mpi=pmix"
        grep -q '^tasks on: hostA hostA hostB hostB$' "$work/ring.out" ||
            problems+="${problems:+; }not placed 2+2 on hostA and hostB"
        if [ -z "$problems" ]; then
            pass "$label"
        else
            fail "$label" "$problems"
            sed 's/^/    | /' "$work/ring.out" | tail -n 15
        fi
    else
        fail "$label" "sbatch failed: $(cat "$work/err" "$work/ring.out" 2>/dev/null | tail -n 5 | tr '\n' ' ')"
    fi
    cluster_settle
fi

# ---- 4. the link lost mid-run, under srun ----
link_case_hook() { cluster_settle; }
if [ $run_link = 1 ] && link_loss_build; then
    for x in "barrier shmem_barrier(_all)?" "get shmem_(long_)?get"; do
        set -- $x
        link_case "$1" "$2" " [slurm]" "srun" env SLURM_CONF="$SLURM_CONF" \
            srun --mpi=pmix -N 2 -n 4 --ntasks-per-node=2
    done
fi

# ---- 5. srun --mpi=pmi2 (Slurm's libpmi2), and srun with no PMI ----
# The subset of tests/pmi_subset.regex (as the hydra stage) under PMI-2,
# placed 2+1 and 2+2, but for shmem_global_exit's status: PMI2_Abort has
# slurmstepd SIGKILL the step, so srun reports 137, not the status; the ring under PMI-2 saying so (SHMEM_INFO); and
# the ring under srun without --mpi, which on this cluster (MpiDefault=none)
# gives the PEs no PMI: one line naming srun and the fix, a nonzero exit,
# no output from a PE.
pmi_ring_case() { # pmi_ring_case LABEL srun-options...
    local label=$1 status problems
    shift
    on_host "$pida" timeout -s KILL 60 env SHMEM_INFO=1 srun "$@" -N 2 -n 4 --ntasks-per-node=2 "$work/ring" \
        >"$work/out" 2>"$work/err"
    status=$?
    if [ "${1:-}" = --mpi=pmi2 ]; then
        problems=$(ring_checked "$work/out")
        [ $status = 0 ] || problems+="${problems:+; }exit status $status"
        grep -q '^Bootstrap: PMI-2 (libpmi2.so.0)$' "$work/out" || problems+="${problems:+; }no 'Bootstrap: PMI-2 (libpmi2.so.0)' line"
    else
        problems=""
        [ $status != 0 ] || problems+="; exit status 0"
        [ ! -s "$work/out" ] || problems+="; stdout not empty: $(head -n 2 "$work/out" | tr '\n' ' ')"
        [ "$(grep -c '^shoal: ' "$work/err")" = 1 ] || problems+="; not one shoal: line"
        grep -Eq '^shoal: PE \?: shmem_init: srun started 4 processes, but no PMI answers, .*: run srun --mpi=pmix or srun --mpi=pmi2$' \
            "$work/err" || problems+="; no line naming srun and the fix"
        problems=${problems#; }
    fi
    if [ -z "$problems" ]; then
        pass "$label"
    else
        fail "$label" "$problems"
        sed 's/^/    | /' "$work/err" | tail -n 8
    fi
}
if [ $run_rest = 1 ]; then
    if [ $run_suite = 1 ]; then
        count_suite " [slurm-pmi2]" on_host "$pida" env OSHRUN_LAUNCHER="srun --mpi=pmi2 -N 2 --overlap" \
            salloc --quiet -N 2 --ntasks-per-node=2 env -u SLURM_NTASKS_PER_NODE \
            python3 "$src/tests/run_tests.py" "$build" --only generated,manual \
            --filter "^(?!manual/global_exit_ends_all_pes )$(grep -v "^#" "$src/tests/pmi_subset.regex" | cut -c2-)" --timeout-scale "$scale" --label-suffix " [slurm-pmi2]"
        cluster_settle
    fi
    if [ -x "$work/ring" ] || ring_build; then
        pmi_ring_case "slurm/srun --mpi=pmi2 ring np=4" --mpi=pmi2
        pmi_ring_case "slurm/srun without --mpi (MpiDefault=none) is one error line np=4"
        cluster_settle
    fi
fi

# ---- a job killed by scancel or its time limit leaves nothing (issue 44) ----
# tests/kill/hang.c (PE 0 in shmem_long_wait_until, the others in a barrier)
# as a batch job of 3 PEs placed 2+1, through oshrun (srun --mpi=pmix):
# once every PE waits, scancel, or a 1-minute time limit (Slurm checks limits
# about every 30 s, so it ends within 2 minutes). 5 s after the job leaves
# RUNNING, no PE may run on either host and both /dev/shm must be empty.
killed_job_case() { # killed_job_case scancel|time-limit
    local how=$1 label="slurm/killed job leaves nothing: $1 np=3" id t0 problems="" pid left i state waiting
    local limit=()
    [ "$how" = time-limit ] && limit=(--time=1)
    rm -f "$work/hang.out"
    id=$(on_host "$pida" env PATH="$build/src/tools:$PATH" sbatch --parsable -N 2 --ntasks-per-node=2 \
        "${limit[@]}" --chdir="$work" --output="$work/hang.out" --wrap "oshrun -n 3 '$work/hang'" 2>"$work/err")
    if [ -z "$id" ]; then
        fail "$label" "sbatch failed: $(head -n 3 "$work/err" | tr '\n' ' ')"
        return
    fi
    for i in $(seq 600); do
        waiting=$(grep -c '^PE [0-9] waiting$' "$work/hang.out" 2>/dev/null)
        [ "${waiting:-0}" -ge 3 ] && break
        sleep 0.1
    done
    [ "${waiting:-0}" -ge 3 ] || problems+="; the PEs did not all start waiting within 60 s"
    [ "$how" = scancel ] && on_host "$pida" scancel "$id"
    # The job's state, until it is no longer running (a time limit: up to 150 s).
    for i in $(seq 1500); do
        state=$(on_host "$pida" scontrol show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*')
        [ "$state" = JobState=RUNNING ] || [ "$state" = JobState=PENDING ] || break
        sleep 0.1
    done
    t0=$SECONDS
    case "$how:$state" in
        scancel:*|time-limit:JobState=TIMEOUT|time-limit:JobState=COMPLETING) ;;
        *) problems+="; job state $state" ;;
    esac
    while :; do
        left=""
        for pid in $(ip netns pids "$nsa"; ip netns pids "$nsb"); do
            [ "$(readlink /proc/$pid/exe 2>/dev/null)" = "$work/hang" ] && left+=" $pid"
        done
        [ -z "$left" ] || [ $((SECONDS - t0)) -gt 5 ] && break
        sleep 0.2
    done
    if [ -n "$left" ]; then
        problems+="; PE(s)$left still running 5 s after the job ended"
        kill -KILL $left 2>/dev/null
    fi
    case_done "$label" "$problems" "$work/hang.out"
}
if [ $run_rest = 1 ]; then
    if ${CC:-cc} -std=c11 -O1 -I "$build/include" -I "$src/include" -o "$work/hang" \
        "$src/tests/kill/hang.c" "$build/src/libshmem.so" -Wl,-rpath,"$build/src" 2>"$work/cc.err"; then
        killed_job_case scancel
        cluster_settle
        if [ $run_time_limit = 1 ]; then
            killed_job_case time-limit
            cluster_settle
        fi
    else
        fail "slurm/killed job" "tests/kill/hang.c does not compile: $(cat "$work/cc.err")"
    fi
fi

# ---- other programs, given with --also ----
for cmd in "${also[@]}"; do
    on_host "$pida" env PATH="$build/src/tools:$PATH" timeout -s KILL 120 \
        salloc --quiet -N 2 --ntasks-per-node=2 sh -c "cd '$PWD' && $cmd" >"$work/out" 2>&1
    status=$?
    sed 's/^/    | /' "$work/out" | tail -n 20
    if [ $status = 0 ]; then pass "slurm/also: $cmd"; else fail "slurm/also: $cmd" "exit status $status"; fi
done
cluster_settle

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

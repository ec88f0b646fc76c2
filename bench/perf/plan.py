# SPDX-License-Identifier: BSD-3-Clause
"""What to run: the benchmark programs, the path modes and their
environment, the optional routines probed for, and the sizes and PE
counts of one repetition (full or --quick)."""

import os
import sys

# bench/ (the benchmark sources) and the checkout it belongs to.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(HERE)

# Benchmark programs launched as OpenSHMEM jobs, and hardware-bound programs.
SHMEM_PROGRAMS = ["rma_lat", "rma_bw", "amo_lat", "signal_pp", "coll_lat", "mem_scale", "quiet_visible",
                  "app_patterns"]
HW_PROGRAMS = ["hw_memcpy", "hw_rtt"]
# The raw libfabric bounds, built apart (they link libfabric) and run per
# provider: hw_ofi between two processes, hw_ofi_random (app_patterns'
# random rows) at each PE count app_patterns runs at.
HW_OFI = "hw_ofi"
HW_OFI_RANDOM = "hw_ofi_random"

# Path modes: extra environment of Shoal's runs (None: unset). An ofi mode
# also names the libfabric provider its raw bound (hw_ofi) runs on.
OFI_MODES = {"ofi-tcp": "tcp", "ofi-shm": "shm"}
MODE_ALIASES = {"ofi": ["ofi-tcp", "ofi-shm"]}
ALL_MODES = ["shm"] + list(OFI_MODES)


def requested_modes(arg, prog):
    """The modes a --mode argument asks for, aliases expanded, checked
    before anything is built (`prog` names the program in the error)."""
    requested = []
    for m in [m.strip() for m in arg.split(",") if m.strip()]:
        for x in MODE_ALIASES.get(m, [m]):
            if x not in ALL_MODES:
                sys.exit(f"{prog}: unknown mode {m} (shm, ofi-tcp, ofi-shm, ofi)")
            if x not in requested:
                requested.append(x)
    return requested


def mode_env(mode):
    if mode in OFI_MODES:
        # SHMEM_OFI_PROVIDER would override FI_PROVIDER's choice: unset it.
        return {"SHMEM_TRANSPORT": "ofi", "FI_PROVIDER": OFI_MODES[mode], "SHMEM_OFI_PROVIDER": None}
    return {}


def with_env(base, extra):
    env = dict(base)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env

# Compile-and-link probes for routines newer than OpenSHMEM 1.4 (and for
# the deprecated active-set collectives, which a 1.5+ library may drop).
FEATURE_PROBES = {
    "BENCH_HAVE_PUT_SIGNAL": "static uint64_t s; static char b[8];"
    " shmem_putmem_signal(b, b, 8, &s, 1, SHMEM_SIGNAL_SET, 0);"
    " shmem_signal_wait_until(&s, SHMEM_CMP_EQ, 1);",
    "BENCH_HAVE_TEAM_SYNC": "shmem_team_sync(SHMEM_TEAM_WORLD);",
    "BENCH_HAVE_TEAM_BROADCAST": "static long x; shmem_long_broadcast(SHMEM_TEAM_WORLD, &x, &x, 1, 0);",
    "BENCH_HAVE_TEAM_FCOLLECT": "static long x; shmem_long_fcollect(SHMEM_TEAM_WORLD, &x, &x, 1);",
    "BENCH_HAVE_TEAM_ALLTOALL": "static long x; shmem_long_alltoall(SHMEM_TEAM_WORLD, &x, &x, 1);",
    "BENCH_HAVE_TEAM_SUM_REDUCE": "static long x; shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &x, &x, 1);",
    "BENCH_HAVE_AS_SYNC": "static long p[SHMEM_SYNC_SIZE]; shmem_sync(0, 0, 1, p);",
    "BENCH_HAVE_AS_BROADCAST": "static long p[SHMEM_BCAST_SYNC_SIZE], x;"
    " shmem_broadcast64(&x, &x, 1, 0, 0, 0, 1, p);",
    "BENCH_HAVE_AS_FCOLLECT": "static long p[SHMEM_COLLECT_SYNC_SIZE], x;"
    " shmem_fcollect64(&x, &x, 1, 0, 0, 1, p);",
    "BENCH_HAVE_AS_ALLTOALL": "static long p[SHMEM_ALLTOALL_SYNC_SIZE], x;"
    " shmem_alltoall64(&x, &x, 1, 0, 0, 1, p);",
    "BENCH_HAVE_AS_SUM_TO_ALL": "static long p[SHMEM_REDUCE_SYNC_SIZE], w[SHMEM_REDUCE_MIN_WRKDATA_SIZE], x;"
    " shmem_long_sum_to_all(&x, &x, 1, 0, 0, 1, w, p);",
}

CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra"]
NCORES = os.cpu_count() or 1

def pow2_sizes(lo, hi):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def csv(sizes):
    return ",".join(str(s) for s in sizes)


def make_plan(args):
    """One repetition: jobs (program, npes, argv, first_rep_only), the
    hardware-bound jobs (program, argv), hw_ofi's argv, and hw_ofi_random's
    runs (npes, argv)."""
    if args.quick:
        lat_sizes = [8, 4096, 1 << 20]
        coll_sizes, coll_pes, mem_pes = [8], [2, 4], [2, 4]
        a2a_sizes = [8, 4096]
        extra = ["--quick"]
    else:
        lat_sizes = pow2_sizes(1, 4 << 20)
        coll_sizes, coll_pes, mem_pes = [8, 4096], [2, 4, 8], [2, 4, 8, 16]
        a2a_sizes = [8, 64, 512, 4096]
        extra = []
    jobs = [
        ("rma_lat", 2, extra + ["--sizes", csv(lat_sizes)], False),
        ("rma_bw", 2, extra + ["--sizes", csv([s for s in lat_sizes if s >= 8])], False),
        ("amo_lat", 2, extra, False),
        ("signal_pp", 2, extra + ["--sizes", csv([8, 4096])], False),
    ]
    jobs += [("coll_lat", n, extra + ["--sizes", csv(coll_sizes)], False) for n in coll_pes]
    # Every PE issuing to random PEs, at the collectives' PE counts.
    jobs += [("app_patterns", n, extra + ["--sizes", csv(a2a_sizes)], False) for n in coll_pes]
    jobs += [("mem_scale", n, [], True) for n in mem_pes]
    # What quiet guarantees, not how fast: once per run.
    jobs += [("quiet_visible", 2, extra, True)]
    hw = [("hw_memcpy", extra + ["--sizes", csv(sorted(set(lat_sizes) | {8}))]), ("hw_rtt", extra)]
    # The raw libfabric bound at every size Shoal's put/get rows use; its
    # own wait deadline stays below the launch timeout.
    wait = ["--timeout", "10" if args.quick else "20"]
    hw_ofi = extra + ["--sizes", csv(sorted(set(lat_sizes) | {8}))] + wait
    hw_ofi_random = [(n, extra + ["--np", str(n)] + wait) for n in coll_pes]
    return jobs, hw, hw_ofi, hw_ofi_random

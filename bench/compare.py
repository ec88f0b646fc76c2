#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/compare.py — the same programs against several OpenSHMEM libraries
or Shoal builds, in one interleaved run: before and after a change, Shoal
against a peer, a setting on and off.

    python3 bench/compare.py [--reps 5] [--prog 'PROG [ARGS]' ...] [--np 2[,4,...]]
                             [--omb OMB_SRC --osu PROGRAM:NPES:SIZE[,...]]
                             [--mode shm[,ofi-tcp,ofi-shm]] [--env NAME:K=V[,K=V] ...]
                             [--cpus LIST] [--foreign K] [--memcpy] [--timeout S] [--build DIR] [--out FILE.jsonl]
                             NAME=WHERE [NAME=WHERE ...]
    python3 bench/compare.py --summary FILE.jsonl [FILE.jsonl ...]

NAME=WHERE is a library: WHERE a Shoal meson build directory (e.g.
new=build old=../before/build), an installed OpenSHMEM with bin/oshcc and
bin/oshrun (Shoal after meson install, Sandia OpenSHMEM from
bench/build_sos.sh), or `ompi` for Debian's Open MPI (oshcc and oshrun on
PATH). The first one named is the one the ratios are about.

--prog 'PROG ARGS' is a program of bench/ (bench/PROG.c, e.g. 'rma_bw
--sizes 1048576,4194304', 'amo_lat --quick', progress_cost, startup_scale,
'gather_kernels --updates 200000') at each PE count of --np (default 2);
--omb OMB_SRC with --osu PROGRAM:NPES:SIZE rows runs OSU's
c/openshmem/osu_oshm_PROGRAM instead or as well (put, get and atomics on
the heap, atomics rows named by the operation: atomics:2:shmem_int_add;
barrier takes any SIZE). Each library builds its own copy under --build
(default bench/_build/compare/NAME/).

Every repetition runs every program, in every mode (Shoal's paths, as in
bench/run.py: shm, ofi-tcp, ofi-shm; `ompi` runs over UCX's tcp transport in
ofi-tcp, -x UCX_TLS=tcp,self, and over its own shared memory otherwise) and
environment variant (--env NAME:K=V,K=V, e.g. --env on: --env
off:SHMEM_PROGRESS_THREAD=0; a piece without `=` continues the value before
it: SHOAL_CACHE_SIZES=L2,LLC), with each library in turn, so all see the
same machine noise; --memcpy adds the single-core memcpy bound
(bench/hw_memcpy) at the start of each. --cpus LIST confines every launch to
those CPUs (taskset, launcher binding off), as a cpuset would. --foreign K
runs K busy loops of another program (bench/busy_loops) beside every launch,
in the launch's session (so in its scheduling group, as a shell's background
jobs or a CI runner's other steps are), and adds a row of their iterations a
second: what the job left them. Each launch has a timeout (--timeout,
default 120 s) that ends its whole process tree.

Prints one markdown table per mode: per row and library (or library/variant)
the median (min-max) over the repetitions, and the first one's time ratio
to each other's. Every row goes, as it comes, to --out (JSON lines, appended;
default a new file in the build directory), which --summary prints again,
several files together.

A comparison is one interleaved run of at least 5 repetitions
(bench/README.md).
"""

import argparse
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perf import compare  # noqa: E402
from perf.launch import log  # noqa: E402
from perf.plan import HERE  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("libs", nargs="*", metavar="NAME=WHERE", help="the libraries, the first the one compared")
    ap.add_argument("--reps", type=int, default=compare.MIN_REPS, help="repetitions (default 5)")
    ap.add_argument("--prog", action="append", default=[], metavar="'PROG ARGS'",
                    help="a program of bench/ and its arguments (repeatable)")
    ap.add_argument("--np", default="2", help="PE counts of the --prog programs, comma separated (default 2)")
    ap.add_argument("--omb", default=None, metavar="OMB_SRC", help="an OSU micro-benchmarks source tree")
    ap.add_argument("--osu", default="", metavar="PROGRAM:NPES:SIZE,...", help="OSU rows (needs --omb)")
    ap.add_argument("--mode", default="shm", help="shm, ofi-tcp, ofi-shm or ofi, comma separated (default shm)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME:K=V,...",
                    help="an environment variant (repeatable; NAME: for none)")
    ap.add_argument("--cpus", default=None, metavar="LIST", help="taskset -c LIST around every launch")
    ap.add_argument("--foreign", type=int, default=0, metavar="K",
                    help="K busy loops of another program (bench/busy_loops) beside every launch")
    ap.add_argument("--memcpy", action="store_true", help="the memcpy bound, at the --sizes of the programs")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per launch (default 120)")
    ap.add_argument("--build", default=os.path.join(HERE, "_build", "compare"),
                    help="where the programs are built (default bench/_build/compare)")
    ap.add_argument("--out", default=None, metavar="FILE.jsonl", help="append every row here")
    ap.add_argument("--summary", nargs="+", default=None, metavar="FILE.jsonl",
                    help="no run: print the tables of saved rows")
    return ap.parse_args()


def memcpy_sizes(specs):
    """The --sizes of the programs, for the memcpy bound (hw_memcpy's own
    default sizes if none is given)."""
    sizes = set()
    for spec in specs:
        words = shlex.split(spec)
        for i, w in enumerate(words[:-1]):
            if w == "--sizes":
                sizes |= {int(s) for s in words[i + 1].split(",") if s.isdigit()}
    return ["--sizes", ",".join(str(s) for s in sorted(sizes))] if sizes else []


def main():
    args = parse_args()
    if args.summary:
        print("\n".join(compare.summary(compare.load(args.summary))))
        return 0
    if not args.libs:
        sys.exit("compare.py: name at least one library (NAME=WHERE)")
    if args.osu and not args.omb:
        sys.exit("compare.py: --osu needs --omb OMB_SRC")
    libs = [compare.library(s) for s in args.libs]
    if len({lib.name for lib in libs}) != len(libs):
        sys.exit("compare.py: two libraries with the same NAME")
    npes = [int(n) for n in args.np.split(",") if n.strip()]
    jobs = compare.bench_jobs(args.prog, npes) + compare.osu_jobs(args.osu)
    if not jobs:
        sys.exit("compare.py: nothing to run (--prog or --osu)")
    modes = compare.requested_modes(args.mode, "compare.py")
    variants = [compare.variant(v) for v in args.env] or [("", {})]
    if args.reps < compare.MIN_REPS:
        log(f"compare.py: {args.reps} repetition(s): the figures are provisional (a comparison takes "
            f"{compare.MIN_REPS} or more)")

    os.makedirs(args.build, exist_ok=True)
    bins = compare.build(libs, jobs, args.build, os.path.abspath(args.omb) if args.omb else None)
    memcpy = None
    if args.memcpy:
        exe = compare.build_plain(args.build, "hw_memcpy")
        memcpy = [exe] + memcpy_sizes(args.prog) if exe else None
    foreign = None
    if args.foreign:
        exe = compare.build_plain(args.build, "busy_loops")
        if not exe:
            sys.exit("compare.py: --foreign: bench/busy_loops did not build")
        foreign = [exe, str(args.foreign)]
    out_path = args.out or os.path.join(args.build, time.strftime("compare-%Y%m%d-%H%M%S.jsonl"))
    command = "python3 bench/compare.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with open(out_path, "a") as out:
        records = [compare.start_run(out, command, args.reps)]
        records += compare.run_all(libs, jobs, modes, variants, args.reps, args.timeout, bins, out, args.cpus,
                                   memcpy, foreign)
    print("\n".join(compare.summary(records)))
    print(f"\nEvery row: {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

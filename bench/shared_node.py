#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/shared_node.py — two jobs started together on one node, against
one started alone: how much later each finishes shmem_init (docs/performance.md,
"Shared nodes"; issue 42's target: within 1 s).

    python3 bench/shared_node.py [--reps 20] [--np 2] [--wait 3] [--busy]
                                 [--mode shm|ofi-tcp|ofi-shm] [--timeout 60]
                                 [--check SECONDS] [--out FILE.jsonl] NAME=BUILD [NAME=BUILD ...]

Every repetition runs, for each Shoal build in turn, one job alone and then
two jobs started together (the order alternates between repetitions), each
`oshrun -n NP bench/shared_node --wait W`: the PEs time shmem_init, then
PE 0 is away W seconds (sleeping, or with --busy computing) while the
others wait for it in shmem_barrier_all, as a real program's PEs wait. A
job's figure is the time from its launcher's start to the last PE's return
from shmem_init (init_done_s); a pair's excess is the later of its two jobs
minus that repetition's job alone. The load of the machine (the runnable
count of /proc/loadavg, and its 1-minute average) is printed with each
repetition: other work on the node slows all launches alike.

Prints each build's medians [min-max] over the repetitions. --check S:
exit 1 if the first build's median excess is over S seconds (the target as
a clear miss only: a timing figure on a shared machine is noisy), or if a
launch failed; the last line is "N passed, M failed" for .ci/run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perf.launch import kill_tree, log, remove_leftovers, shm_names  # noqa: E402
from perf.plan import CFLAGS, HERE, mode_env, with_env  # noqa: E402
from perf.peers import shoal_library  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--wait", type=float, default=3.0)
    ap.add_argument("--busy", action="store_true", help="PE 0 computes while away (else it sleeps)")
    ap.add_argument("--stagger", type=float, default=0.0,
                    help="start the second job this many seconds after the first")
    ap.add_argument("--cgroup", metavar="DIR",
                    help="run each job in its own child of this cgroup-v1 cpu directory (created, "
                         "cpu.shares 65536): on a machine others load, the jobs then compete mostly "
                         "with each other, each in its own scheduling group as under a batch system")
    ap.add_argument("--mode", default="shm", choices=["shm", "ofi-tcp", "ofi-shm"])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--check", type=float, help="fail if the median excess is over this many seconds")
    ap.add_argument("--build", default=os.path.join(HERE, "_build", "shared_node"))
    ap.add_argument("--out", help="JSON lines, one per job (appended)")
    ap.add_argument("libs", nargs="+", metavar="NAME=BUILD")
    return ap.parse_args()


def load():
    """(runnable tasks now, 1-minute load average) from /proc/loadavg."""
    with open("/proc/loadavg") as f:
        parts = f.read().split()
    return int(parts[3].split("/")[0]), float(parts[0])


def leftovers(exe):
    """PIDs still running `exe` (a PE reparented to init escapes a group kill)."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.readlink(f"/proc/{d}/exe") == exe:
                    pids.append(int(d))
            except OSError:
                continue
    return pids


def job_cgroup(root, i):
    """A function that moves the calling (child) process into job cgroup i, or None."""
    if not root:
        return None
    d = os.path.join(root, f"job{i}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cpu.shares"), "w") as f:
        f.write("65536")

    def enter():
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    return enter


def launch_jobs(lib, exe, n_jobs, args, env):
    """Start n_jobs jobs together; returns each one's init_done_s, or an error."""
    procs = []
    before = shm_names()
    for i in range(n_jobs):
        if i:
            time.sleep(args.stagger)
        t0 = time.time()
        argv = [exe, "--wait", str(args.wait), "--t0", f"{t0:.6f}"] + (["--busy"] if args.busy else [])
        procs.append(subprocess.Popen(lib.launch(args.np, argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, start_new_session=True, env=env,
                                      preexec_fn=job_cgroup(args.cgroup, i)))
    deadline = time.monotonic() + args.timeout
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            kill_tree(p)
            out, err = p.communicate()
            results.append(f"timeout: {err.strip()[-300:]}")
            continue
        done = [json.loads(l) for l in out.splitlines() if l.startswith("{") and '"init_done_s"' in l]
        if p.returncode != 0 or not done:
            results.append(f"failed (rc={p.returncode}): {err.strip()[-300:]}")
        else:
            results.append(done[0]["value"])
    stray = leftovers(exe)
    for pid in stray:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    if stray:
        results = [f"PEs left running: {stray}" if isinstance(r, float) else r for r in results]
    remove_leftovers(before)
    return results


def cell(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}–{max(v):.2f}]" if v else "—"


def main():
    args = parse_args()
    os.makedirs(args.build, exist_ok=True)
    env = with_env(os.environ, mode_env(args.mode))
    libs = []
    for spec in args.libs:
        name, _, where = spec.partition("=")
        if not where or not os.path.exists(os.path.join(where, "src", "libshmem.so")):
            sys.exit(f"shared_node.py: {spec}: expected NAME=BUILD_DIR, a Shoal meson build")
        lib = shoal_library(os.path.abspath(where))
        exe = os.path.join(args.build, f"shared_node.{name}")
        st, _, err, _ = lib.compile(os.path.join(HERE, "shared_node.c"), exe)
        if st != "ok":
            sys.exit(f"shared_node.py: {name}: building shared_node: {err.strip()[-500:]}")
        libs.append((name, lib, exe))

    out = open(args.out, "a") if args.out else None
    fig = {name: {"alone": [], "pair": [], "excess": []} for name, _, _ in libs}
    failures = []
    t_start = time.monotonic()
    for rep in range(args.reps):
        for name, lib, exe in libs:
            runnable, avg = load()
            order = ("alone", "pair") if rep % 2 == 0 else ("pair", "alone")
            got = {}
            for what in order:
                got[what] = launch_jobs(lib, exe, 1 if what == "alone" else 2, args, env)
            bad = [r for w in order for r in got[w] if not isinstance(r, float)]
            line = f"rep {rep + 1:2d} {name}: load {runnable} runnable, {avg:.1f} avg;"
            if bad:
                failures.append(f"{name} rep {rep + 1}: {bad[0]}")
                log(f"{line} FAILED: {bad[0]}")
                continue
            alone, pair = got["alone"][0], got["pair"]
            excess = max(pair) - alone
            f = fig[name]
            f["alone"].append(alone)
            f["pair"].extend(pair)
            f["excess"].append(excess)
            log(f"{line} alone {alone:.2f} s, together {pair[0]:.2f} and {pair[1]:.2f} s, excess {excess:+.2f} s")
            if out:
                out.write(json.dumps({"lib": name, "rep": rep + 1, "mode": args.mode, "np": args.np,
                                      "wait": args.wait, "busy": args.busy, "runnable": runnable,
                                      "loadavg": avg, "alone": alone, "pair": pair}) + "\n")
                out.flush()

    print(f"shared node, {args.mode}, {args.np} PEs a job, PE 0 away {args.wait:g} s "
          f"({'computing' if args.busy else 'sleeping'}), {args.reps} repetitions, "
          f"{time.monotonic() - t_start:.0f} s; launcher start to the last PE's shmem_init return, "
          "median [min–max]:")
    print("| build | alone (s) | two together, each (s) | excess of the later (s) |")
    print("|---|---:|---:|---:|")
    for name, _, _ in libs:
        f = fig[name]
        print(f"| {name} | {cell(f['alone'])} | {cell(f['pair'])} | {cell(f['excess'])} |")
    for fl in failures:
        print(f"failed: {fl}")
    if args.check is None:
        return 1 if failures else 0
    first = fig[libs[0][0]]["excess"]
    missed = not first or statistics.median(first) > args.check
    if missed and first:
        print(f"target missed: median excess {statistics.median(first):.2f} s > {args.check:g} s")
    n_failed = int(missed) + len(failures)
    print(f"{1 - int(missed)} passed, {n_failed} failed")
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())

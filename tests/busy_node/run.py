#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/busy_node/run.py — waits on a node whose CPUs another program
keeps busy end in a time proportional to the load, not tenfold (issue 58).

    python3 tests/busy_node/run.py BUILD_DIR [--limit 30] [--loops 4] [--np 4]
                                   [--paths node-local,ofi-shm]

For each path: bench/busy_loops.c starts LOOPS busy loops in the job's
session (so in its scheduling group, as a CI runner's other steps are),
then runs `oshrun -n NP bench/wait_loops pingpong barrier fadd` under
`timeout -k 5 LIMIT`: 10,000 ping-pong round trips, 1,000 barriers and
1,000 fetch-adds, every value checked by the program. It passes if the job
exits 0 within LIMIT seconds (node-local, Shoal took 54 s before issue 58
and 5 s after, on a machine also running a benchmark; Sandia OpenSHMEM
takes 5-8 s for the ping-pong alone, and 30 s for the barriers),
the loops reported their count, and afterwards no process of either
program runs (found by path: a PE reparented to init counts; any found is
killed by its PID and the case fails).

The last line is "N passed, M failed"; the exit status is 1 if any failed.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(REPO, "bench")
PATHS = {"node-local": {}, "ofi-shm": {"SHMEM_TRANSPORT": "ofi", "FI_PROVIDER": "shm"}}


def running(exes):
    """PIDs of live processes whose executable is one of `exes`."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.readlink(f"/proc/{d}/exe") in exes:
                    pids.append(int(d))
            except OSError:
                continue
    return pids


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--limit", type=float, default=30.0)
    ap.add_argument("--loops", type=int, default=4)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--paths", default="node-local,ofi-shm")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    tmp = tempfile.mkdtemp(prefix="busy_node.")
    loops, waits = os.path.join(tmp, "busy_loops"), os.path.join(tmp, "wait_loops")
    for cmd in (["cc", "-O2", os.path.join(BENCH, "busy_loops.c"), "-o", loops],
                ["cc", "-std=c11", "-O2", "-I", os.path.join(build, "include"), "-I", os.path.join(REPO, "include"),
                 os.path.join(BENCH, "wait_loops.c"), "-o", waits, os.path.join(build, "src", "libshmem.so"),
                 f"-Wl,-rpath,{os.path.join(build, 'src')}"]):
        subprocess.run(cmd, check=True)
    exes = {os.path.realpath(loops), os.path.realpath(waits)}
    passed = failed = 0
    for path in args.paths.split(","):
        env = dict(os.environ, **PATHS[path])
        cmd = [loops, str(args.loops), "--", "timeout", "-k", "5", str(args.limit),
               os.path.join(build, "src", "tools", "oshrun"), "-n", str(args.np), waits, "pingpong", "barrier", "fadd"]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=args.limit + 30)
        except subprocess.TimeoutExpired:  # timeout(1) itself did not end it
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        took = time.monotonic() - t0
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        figures = {r["op"]: r["value"] for r in rows}
        time.sleep(0.5)
        left = running(exes)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        why = []
        if p.returncode != 0:
            why.append(f"status {p.returncode}" + (" (over the limit)" if p.returncode in (124, 137) else ""))
        for op in ("pingpong", "barrier", "fetch_add", "busy_loops"):
            if op not in figures:
                why.append(f"no {op} figure")
        if left:
            why.append(f"left running: {left}")
        label = f"busy_node {path} np={args.np} + {args.loops} busy loops"
        detail = ", ".join(f"{op} {figures[op]:.4g} us" for op in ("pingpong", "barrier", "fetch_add") if op in figures)
        if why:
            failed += 1
            print(f"FAIL {label} ({took:.1f} s): {'; '.join(why)}\n{err[-2000:]}")
        else:
            passed += 1
            print(f"PASS {label} ({took:.1f} s; {detail})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

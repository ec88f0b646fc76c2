#!/usr/bin/env python3
"""bench/run.py — build and run Shoal's benchmark suite in one command.

    python3 bench/run.py [BUILD_DIR] [--quick] [--reps N] [--out DIR]
                         [--shoal-build DIR] [--mode shm,ofi-tcp,ofi-shm] [--no-peer]
                         [--peer-prefix DIR [--peer-env K=V ...]] [--doc MD_FILE]
    python3 bench/run.py --replot RESULTS_JSON [--out DIR]

* Builds the benchmark programs (bench/*.c) twice: against Shoal and against
  the peer implementation (Open MPI's OSHMEM, through its oshcc), plus the
  hardware-bound programs with the plain C compiler: hw_memcpy and hw_rtt
  (the node-local bounds) and hw_ofi (raw libfabric, linked with -lfabric:
  the network-path bound; skipped, with the reason logged, when libfabric's
  headers are missing). Routines that appeared after OpenSHMEM 1.4 are used
  only when a compile-and-link test against that library passes
  (BENCH_HAVE_* macros).
* Path modes (--mode, comma separated): `shm` (Shoal's default node-local
  path), `ofi-tcp` (SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp: every PE, this one
  included, through libfabric's tcp;ofi_rxm) and `ofi-shm`
  (SHMEM_TRANSPORT=ofi FI_PROVIDER=shm); `ofi` means both ofi modes. An ofi
  mode is skipped, with the reason, when the Shoal build or libfabric does
  not offer it (shoal-info says which provider would be chosen).
* Runs everything REPS times, interleaving Shoal and the peer so both see
  the same machine noise, each launch under a timeout that kills its whole
  process tree. hw_ofi runs once per repetition for each provider of the
  ofi modes asked for.
* Prints one table per mode: per row the median, min and max over the
  repetitions, the bound measured in the same run and the ratio to it. In
  the shm table the bounds are the memcpy / cache-line figures and the
  peer's figures follow with the Shoal / peer ratio. In the ofi tables the
  bound is raw libfabric on the same provider (hw_ofi: put/putmem rows vs
  raw put of the same size, get/getmem vs raw get, p vs put 8 B, g vs get
  8 B, fetching AMOs vs raw fetch-add, non-fetching AMOs + quiet vs raw add,
  add_nq/inc_nq (back to back, one quiet) vs raw adds back to back,
  put/get bandwidth at 1 MiB vs raw windowed bandwidth), and Open MPI is
  not compared there: its OSHMEM uses UCX, not libfabric. Writes
  results.json, table.md (a markdown fragment) and PNG plots to the output
  directory.
* --peer-prefix DIR adds another installed OpenSHMEM (any implementation
  with DIR/bin/oshcc and DIR/bin/oshrun, e.g. Sandia OpenSHMEM built over
  the same libfabric) to the ofi tables: its programs are built with its
  oshcc, launched with its oshrun under the same FI_PROVIDER (and
  SHMEM_TRANSPORT=ofi, which it may ignore), interleaved with Shoal's
  runs, and each ofi table gains its median [min-max] and Shoal / peer.
  Before the runs, a 2-PE probe per ofi mode checks which provider it
  really opened (SHMEM_DEBUG's "provider:" line, else libfabric's log).
* The output starts with the rows of issue #15 per mode (Shoal, the peer,
  raw libfabric or the hardware bound, and the three time ratios); --doc
  MD_FILE writes the whole markdown report between '<!-- run.py begin -->'
  and '<!-- run.py end -->' in MD_FILE and copies the plots to its perf/.

Exit status: 0 unless something crashed or hung on the Shoal side (a build
failure, a Shoal or bound program failing, in any mode that was not
skipped). Timings are never asserted; a failing peer is reported, not
fatal. Skipped modes (the library or libfabric does not offer the path) are
reported, not fatal.
"""

import argparse
import concurrent.futures
import datetime
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Benchmark programs launched as OpenSHMEM jobs, and hardware-bound programs.
SHMEM_PROGRAMS = ["rma_lat", "rma_bw", "amo_lat", "signal_pp", "coll_lat", "mem_scale", "quiet_visible"]
HW_PROGRAMS = ["hw_memcpy", "hw_rtt"]
# The raw libfabric bound, built apart (it links libfabric) and run per provider.
HW_OFI = "hw_ofi"

# Path modes: extra environment of Shoal's runs (None: unset). An ofi mode
# also names the libfabric provider its raw bound (hw_ofi) runs on.
OFI_MODES = {"ofi-tcp": "tcp", "ofi-shm": "shm"}
MODE_ALIASES = {"ofi": ["ofi-tcp", "ofi-shm"]}
ALL_MODES = ["shm"] + list(OFI_MODES)


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


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- processes

def descendants(root):
    """Every live process below `root` (read from /proc), deepest last."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, pending = [], [root]
    while pending:
        p = pending.pop()
        for c in children.get(p, []):
            out.append(c)
            pending.append(c)
    return out


def kill_tree(proc):
    """End a launch we started: its process group, then any descendant that
    left the group (launchers may start PEs in their own sessions)."""
    tree = descendants(proc.pid)
    for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        for pid in tree:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        if pause:
            try:
                proc.wait(timeout=pause)
            except subprocess.TimeoutExpired:
                pass


def run(cmd, timeout, env=None, cwd=None):
    """Run `cmd` in its own session; returns (status, stdout, stderr, seconds)
    with status 'ok', 'failed (rc=N)' or 'timeout'."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, env=env, cwd=cwd)
    except OSError as e:
        return f"failed ({e})", "", str(e), 0.0
    try:
        out, err = proc.communicate(timeout=timeout)
        status = "ok" if proc.returncode == 0 else f"failed (rc={proc.returncode})"
    except subprocess.TimeoutExpired:
        kill_tree(proc)
        out, err = proc.communicate()
        status = "timeout"
    return status, out, err, time.monotonic() - t0


def shm_names():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def shm_in_use():
    """/dev/shm names some live process has mapped or open."""
    used = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/maps") as f:
                for line in f:
                    i = line.find("/dev/shm/")
                    if i >= 0:
                        used.add(line[i + 9:].split(" (deleted)")[0].strip())
            fd_dir = f"/proc/{d}/fd"
            for fd in os.listdir(fd_dir):
                t = os.readlink(os.path.join(fd_dir, fd))
                if t.startswith("/dev/shm/"):
                    used.add(t[9:])
        except OSError:
            continue
    return used


def remove_leftovers(before):
    """Remove what a finished launch left in /dev/shm: names that appeared
    during it and that no live process has mapped or open. A PE that
    crashed or was killed may leave its segments or its provider's queues
    behind, and a later launch of the same library can fail on them.
    Returns the names removed."""
    left = shm_names() - before
    if left:
        left = sorted(left - shm_in_use())
    for name in left:
        try:
            os.unlink(os.path.join("/dev/shm", name))
        except OSError:
            pass
    return left


# ---------------------------------------------------------------- libraries

class Library:
    """How to compile against and launch one OpenSHMEM implementation."""

    def __init__(self, name, cc, cflags, ldflags, launch_prefix, env=None, bind=True):
        self.name = name
        self.bind = bind  # the launcher takes Open MPI's --bind-to
        self.cc = cc
        self.cflags = cflags
        self.ldflags = ldflags
        self.launch_prefix = launch_prefix  # function npes -> argv prefix
        self.env = env or {}
        self.features = {}
        self.binaries = {}

    def compile(self, src, out, defines=(), timeout=120):
        cmd = self.cc + CFLAGS + [f"-D{d}" for d in defines] + self.cflags + [src, "-o", out] + self.ldflags
        return run(cmd, timeout)

    def probe(self, build_dir):
        """Find which optional routines this library declares and links."""
        pdir = os.path.join(build_dir, "probes")
        os.makedirs(pdir, exist_ok=True)

        def one(item):
            macro, body = item
            src = os.path.join(pdir, f"{macro}.c")
            with open(src, "w") as f:
                f.write("#include <shmem.h>\n#include <stdint.h>\nint main(void)\n{\n    shmem_init();\n    "
                        f"{body}\n    shmem_finalize();\n    return 0;\n}}\n")
            cmd = self.cc + ["-std=c11", "-Werror=implicit-function-declaration"] + self.cflags + \
                [src, "-o", src[:-2]] + self.ldflags
            status, _, _, _ = run(cmd, 60)
            return macro, status == "ok"

        with concurrent.futures.ThreadPoolExecutor(max_workers=NCORES) as ex:
            self.features = dict(ex.map(one, FEATURE_PROBES.items()))
        return self.features

    def launch(self, npes, argv):
        bind = ["--bind-to", "core"] if npes <= NCORES else ["--bind-to", "none"]
        return self.launch_prefix(npes) + (bind if self.bind else []) + argv


def source_of(build):
    """The source tree a meson build dir was configured from (REPO if unknown),
    so a build of another checkout is compiled against its own headers."""
    try:
        with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
            return json.load(f)["directories"]["source"]
    except (OSError, ValueError, KeyError):
        return REPO


def shoal_library(shoal_build):
    inc = os.path.join(shoal_build, "include")
    lib = os.path.join(shoal_build, "src")
    oshrun = os.path.join(lib, "tools", "oshrun")
    shoal = Library("shoal", [os.environ.get("CC", "cc")],
                    ["-I", inc, "-I", os.path.join(source_of(shoal_build), "include")],
                    ["-L", lib, "-lshmem", f"-Wl,-rpath,{lib}"],
                    lambda n: [oshrun, "-n", str(n)])
    shoal.build = shoal_build
    return shoal


def openmpi_library(oshcc, oshrun):
    return Library("openmpi", [oshcc], [], [],
                   lambda n: [oshrun, "--allow-run-as-root", "--oversubscribe", "--mca", "osc", "ucx",
                              "-n", str(n)],
                   env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})


PREFIX_PEER = "prefixpeer"  # results key of the --peer-prefix library


def prefix_library(prefix):
    """Another OpenSHMEM installed under `prefix` (bin/oshcc, bin/oshrun),
    compared on the network path; None, with the reason, if unusable."""
    oshcc, oshrun = os.path.join(prefix, "bin", "oshcc"), os.path.join(prefix, "bin", "oshrun")
    for f in (oshcc, oshrun):
        if not os.access(f, os.X_OK):
            return None, f"{f} is missing or not executable"
    ompi = is_open_mpi(oshrun)
    extra = ["--allow-run-as-root", "--oversubscribe"] if ompi else []
    lib = Library(PREFIX_PEER, [oshcc], [], [], lambda n: [oshrun] + extra + ["-n", str(n)],
                  env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"} if ompi else {},
                  bind=ompi)
    lib.label = os.path.basename(os.path.normpath(prefix)) or prefix
    return lib, None


def peer_provider(lib, mode, env, pdir, timeout):
    """Which libfabric provider the --peer-prefix library really uses in an
    ofi mode: a 2-PE add + barrier under the mode's environment with
    SHMEM_DEBUG=1 (SOS then prints "OFI provider: tcp;ofi_rxm, ..."); if no
    such line appears, again with libfabric's own log at info level (each
    line names a provider). Returns (verdict, evidence), verdict one of
    'confirmed', 'OTHER PROVIDER', 'not confirmed'."""
    import re
    src = os.path.join(pdir, "provider_probe.c")
    with open(src, "w") as f:
        f.write("#include <shmem.h>\nint main(void)\n{\n    static long x;\n    shmem_init();\n"
                "    shmem_long_atomic_add(&x, 1, (shmem_my_pe() + 1) % shmem_n_pes());\n"
                "    shmem_barrier_all();\n    shmem_finalize();\n    return 0;\n}\n")
    st, out, err, _ = lib.compile(src, src[:-2])
    if st != "ok":
        return "not confirmed", f"probe build {st}"
    want = OFI_MODES[mode]

    def launch(extra):
        return run(lib.launch(2, [src[:-2]]), timeout, env=with_env(with_env(os.environ, dict(env, **extra)), lib.env))

    # SOS prints "OFI provider: tcp;ofi_rxm, ..." under SHMEM_DEBUG, Shoal
    # "Network path: libfabric 1.17, provider tcp;ofi_rxm (...)" under SHMEM_INFO.
    st, out, err, _ = launch({"SHMEM_DEBUG": "1", "SHMEM_INFO": "1"})
    if st != "ok":
        return "not confirmed", f"probe run {st}: {(err.strip().splitlines() or [''])[-1][:200]}"
    named = sorted({m.group(1) for m in
                    re.finditer(r"(?:OFI provider:|libfabric [0-9.]+, provider)\s*([^\s,]+)", out + err, re.I)})
    source = "SHMEM_DEBUG/SHMEM_INFO"
    if not named:
        st, out, err, _ = launch({"FI_LOG_LEVEL": "info"})
        # libfabric:PID:TIME:[DOMAIN]:PROVIDER:SUBSYS:function():line<info> ...
        # Only lines past fi_getinfo's filtering (fi_fabric, endpoints) say
        # what was opened; use the providers of "Opened fabric"-like lines
        # if any, else every provider named.
        for line in (out + err).splitlines():
            parts = line.split(":")
            if line.startswith("libfabric:") and len(parts) > 5:
                prov = parts[4] or parts[3]
                if prov and prov != "core":
                    named.append(prov)
        named = sorted(set(named))
        source = "libfabric log"
    if not named:
        return "not confirmed", "no provider named by SHMEM_DEBUG or libfabric's log"
    ok = all(want in n or n == "ofi_rxm" for n in named) and (want != "tcp" or any("rxm" in n for n in named))
    return ("confirmed" if ok else "OTHER PROVIDER"), f"{source}: " + ", ".join(named)


def find_shoal_build(args):
    """An existing Shoal build, or build one into BUILD_DIR/shoal-lib."""
    candidates = [args.shoal_build] if args.shoal_build else [os.path.join(REPO, "build")]
    for c in candidates:
        if c and os.path.exists(os.path.join(c, "src", "libshmem.so")) and \
                os.path.exists(os.path.join(c, "include", "shmem.h")):
            return os.path.abspath(c)
    if args.shoal_build:
        sys.exit(f"run.py: no Shoal build in {args.shoal_build} (src/libshmem.so, include/shmem.h)")
    bdir = os.path.join(args.build_dir, "shoal-lib")
    log(f"run.py: building Shoal into {bdir}")
    if not os.path.exists(os.path.join(bdir, "build.ninja")):
        st, out, err, _ = run(["meson", "setup", bdir, REPO], 300)
        if st != "ok":
            sys.exit(f"run.py: meson setup failed:\n{out}{err}")
    st, out, err, _ = run(["meson", "compile", "-C", bdir], 900)
    if st != "ok":
        sys.exit(f"run.py: meson compile failed:\n{out[-3000:]}{err[-3000:]}")
    return os.path.abspath(bdir)


def is_open_mpi(oshrun):
    st, out, err, _ = run([oshrun, "--version"], 30)
    text = out + err
    return st == "ok" and ("Open MPI" in text or "OpenRTE" in text or "open-mpi.org" in text)


# ---------------------------------------------------------------- the plan

def pow2_sizes(lo, hi):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def csv(sizes):
    return ",".join(str(s) for s in sizes)


def make_plan(args):
    """Jobs of one repetition: (program, npes, argv, first_rep_only)."""
    if args.quick:
        lat_sizes = [8, 4096, 1 << 20]
        coll_sizes, coll_pes, mem_pes = [8], [2, 4], [2, 4]
        extra = ["--quick"]
    else:
        lat_sizes = pow2_sizes(1, 4 << 20)
        coll_sizes, coll_pes, mem_pes = [8, 4096], [2, 4, 8], [2, 4, 8, 16]
        extra = []
    jobs = [
        ("rma_lat", 2, extra + ["--sizes", csv(lat_sizes)], False),
        ("rma_bw", 2, extra + ["--sizes", csv([s for s in lat_sizes if s >= 8])], False),
        ("amo_lat", 2, extra, False),
        ("signal_pp", 2, extra + ["--sizes", csv([8, 4096])], False),
    ]
    jobs += [("coll_lat", n, extra + ["--sizes", csv(coll_sizes)], False) for n in coll_pes]
    jobs += [("mem_scale", n, [], True) for n in mem_pes]
    # What quiet guarantees, not how fast: once per run.
    jobs += [("quiet_visible", 2, extra, True)]
    hw = [("hw_memcpy", extra + ["--sizes", csv(sorted(set(lat_sizes) | {8}))]), ("hw_rtt", extra)]
    # The raw libfabric bound at every size Shoal's put/get rows use; its
    # own wait deadline stays below the launch timeout.
    hw_ofi = extra + ["--sizes", csv(sorted(set(lat_sizes) | {8})),
                      "--timeout", "10" if args.quick else "20"]
    return jobs, hw, hw_ofi


# ---------------------------------------------------------------- results

def parse_lines(text, **tags):
    rows, skips = [], []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        obj.update(tags)
        (skips if "skip" in obj else rows).append(obj)
    return rows, skips


def key_of(r):
    return (r["bench"], r["op"], r.get("size", 0), r["npes"], r["metric"])


def aggregate(raw):
    """(lib, mode) -> key -> {'median','min','max','n','extra'}"""
    groups = {}
    for r in raw:
        groups.setdefault((r["lib"], r["mode"]), {}).setdefault(key_of(r), []).append(r)
    out = {}
    for lm, rows in groups.items():
        out[lm] = {}
        for k, rs in rows.items():
            vals = [r["value"] for r in rs]
            out[lm][k] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
                          "n": len(vals), "api": rs[0].get("api")}
    return out


HIGHER_IS_BETTER = {"bw_GBps", "rate_Mops"}


def hw_bounds(agg):
    hw = agg.get(("hw", "native"), {})
    rtt = next((v["median"] for k, v in hw.items() if k[1] == "cacheline_rtt"), None)
    memcpy = {k[2]: v["median"] for k, v in hw.items() if k[1] == "memcpy"}
    return rtt, memcpy


def two_line_rtt(agg):
    hw = agg.get(("hw", "native"), {})
    return next((v["median"] for k, v in hw.items() if k[1] == "two_line_rtt"), None)


def bound_for(key, rtt, memcpy, rtt2=None):
    """(value, label) of the hardware bound a row is compared with, in the
    row's own unit, or (None, '')."""
    bench, op, size, npes, metric = key
    if bench == "rma_lat" and op in ("putmem", "getmem"):
        return memcpy.get(size), "memcpy"
    if (op == "p_roundtrip" or bench == "signal") and rtt2:
        return rtt2, "2-line rtt"
    if bench in ("rma_lat", "amo_lat", "signal") and rtt:
        return rtt, "rtt"
    if bench == "rma_bw" and metric == "bw_GBps" and memcpy.get(size):
        return size / memcpy[size], "memcpy"
    if bench == "rma_bw" and metric == "rate_Mops" and memcpy.get(8):
        return 1e3 / memcpy[8], "memcpy 8B"
    if bench == "coll" and rtt:
        steps = max(1, math.ceil(math.log2(npes)))
        return rtt * steps, f"rtt×{steps}"
    return None, ""


FETCHING_AMOS = {"fetch_add", "fetch_inc", "compare_swap", "swap", "fetch", "fetch_and", "fetch_or", "fetch_xor"}
NONFETCHING_AMOS = {"add", "inc", "set", "and", "or", "xor", "add_int"}  # each + shmem_quiet: a completed AMO


def ofi_raw(agg, mode):
    """The raw libfabric rows (hw_ofi) of an ofi mode's provider."""
    return agg.get(("hw", mode), {})


def ofi_bound_for(key, raw):
    """(value, label) of the raw libfabric row a Shoal row in an ofi mode is
    compared with, in the row's own unit, or (None, '')."""
    bench, op, size, npes, metric = key

    def lat(raw_op, s):
        v = raw.get(("hw_ofi", raw_op, s, 2, "lat_ns"))
        return v["median"] if v else None

    def bw(raw_op, s):
        v = raw.get(("hw_ofi", raw_op, s, 2, "bw_GBps"))
        return v["median"] if v else None

    if bench == "rma_lat":
        if op == "p":
            return lat("put", 8), "raw put 8 B"
        if op == "g":
            return lat("get", 8), "raw get 8 B"
        if op == "putmem":
            return lat("put", size), "raw put"
        if op == "getmem":
            return lat("get", size), "raw get"
    if bench == "amo_lat":
        if op in FETCHING_AMOS:
            return lat("fetch_add", 8), "raw fetch-add"
        if op in NONFETCHING_AMOS:
            return lat("add", 8), "raw add"
        if op in ("add_nq", "inc_nq", "add_int_nq"):
            return lat("add_nq", 8), "raw adds back to back"
        if op == "fetch_add_roundtrip" and lat("fetch_add", 8):
            # one iteration: this PE's fetch-add and the fetch that sees the peer's
            return 2 * lat("fetch_add", 8), "raw fetch-add×2"
    if bench == "rma_bw" and metric == "rate_Mops" and op == "put_rate":
        v = raw.get(("hw_ofi", "put_rate", 8, 2, "rate_Mops"))
        return (v["median"] if v else None), "raw 8 B puts, windowed"
    if bench == "rma_bw" and metric == "bw_GBps":
        if op in ("put_bw", "put_nbi_bw"):
            return bw("put_bw", size), "raw put bw"
        if op in ("get_bw", "get_nbi_bw"):
            return bw("get_bw", size), "raw get bw"
    return None, ""


def fmt(v):
    if v is None:
        return "—"
    a = abs(v)
    if a >= 1e5:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def size_label(s):
    if not s:
        return ""
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= div and s % div == 0:
            return f"{s // div} {unit}"
    return f"{s} B"


UNITS = {"lat_ns": "ns", "bw_GBps": "GB/s", "rate_Mops": "Mop/s", "kB": "kB", "count": ""}

SECTION_ORDER = ["rma_lat", "rma_bw", "amo_lat", "signal", "coll", "mem"]


def row_name(key):
    bench, op, size, npes, metric = key
    parts = [op]
    if bench in ("rma_lat", "rma_bw", "signal", "coll") and size:
        parts.append(size_label(size))
    if bench in ("coll", "mem"):
        parts.append(f"{npes} PEs" + (" (oversub.)" if npes > NCORES else ""))
    unit = UNITS.get(metric, metric)
    return f"{bench}: " + " ".join(parts) + (f" [{unit}]" if unit else "")


OP_ORDER = ["p", "g", "p_roundtrip", "putmem", "getmem", "put_bw", "put_nbi_bw", "get_bw", "get_nbi_bw",
            "put_rate", "get_rate", "fetch_add", "fetch_inc", "compare_swap", "swap", "fetch", "fetch_and",
            "fetch_or", "fetch_xor", "add", "inc", "set", "and", "or", "xor", "add_int", "add_nq", "inc_nq",
            "add_int_nq",
            "fetch_add_roundtrip", "barrier_all", "sync_all", "sync", "team_sync", "broadcast", "team_broadcast",
            "fcollect", "team_fcollect", "alltoall", "team_alltoall", "sum_reduce", "team_sum_reduce"]


def row_order(k):
    bench, op, size, npes, metric = k
    return (SECTION_ORDER.index(bench) if bench in SECTION_ORDER else 99, bench,
            size if bench == "coll" else 0,
            OP_ORDER.index(op) if op in OP_ORDER else 99, op, npes, size)


TIE = 0.03  # within 3%: neither is faster, on a shared 2-core VM


def build_table(agg, mode, peer_lib, peer_mode="shm"):
    """Rows comparing Shoal in `mode` with its bound and the peer's runs in
    `peer_mode`. In an ofi mode the bound is raw libfabric on the same
    provider and the peer, if any, is the --peer-prefix library."""
    rtt, memcpy = hw_bounds(agg)
    rtt2 = two_line_rtt(agg)
    raw = ofi_raw(agg, mode) if mode in OFI_MODES else None
    mine = agg.get(("shoal", mode), {})
    peer = agg.get((peer_lib, peer_mode), {}) if peer_lib else {}
    keys = sorted((k for k in set(mine) | set(peer) if k[0] not in ("mem", "quiet_visible")), key=row_order)
    rows = []
    for k in keys:
        s, p = mine.get(k), peer.get(k)
        b, blabel = ofi_bound_for(k, raw) if raw is not None else bound_for(k, rtt, memcpy, rtt2)
        hib = k[4] in HIGHER_IS_BETTER
        row = {"key": k, "name": row_name(k), "shoal": s, "peer": p, "bound": b, "bound_label": blabel,
               "higher_is_better": hib, "api": (s or p or {}).get("api")}
        row["x_bound"] = s["median"] / b if s and b else None
        row["x_peer"] = s["median"] / p["median"] if s and p and p["median"] else None
        if row["x_peer"] is not None:
            x = row["x_peer"] if hib else 1 / row["x_peer"]  # > 1: Shoal better
            row["faster"] = "tie" if abs(x - 1) <= TIE else x > 1
        else:
            row["faster"] = None
        rows.append(row)
    return rows


def stat_cell(s):
    if not s:
        return "—"
    if s["n"] > 1:
        return f"{fmt(s['median'])} [{fmt(s['min'])}–{fmt(s['max'])}]"
    return fmt(s["median"])


def table_lines(rows, markdown, peer_name):
    """The table of build_table's rows; without peer_name, no peer columns."""
    head = ["row", "Shoal median [min–max]", "bound", "Shoal/bound"]
    if peer_name:
        head += [f"{peer_name} median [min–max]", f"Shoal/{peer_name}", "Shoal faster"]
    body = []
    for r in rows:
        cells = [
            r["name"] + (f" ({r['api']})" if r["api"] and r["api"] not in ("1.0", "1.4") else ""),
            stat_cell(r["shoal"]),
            f"{fmt(r['bound'])} {r['bound_label']}" if r["bound"] else "—",
            fmt(r["x_bound"]) if r["x_bound"] is not None else "—",
        ]
        if peer_name:
            cells += [
                stat_cell(r["peer"]),
                fmt(r["x_peer"]) if r["x_peer"] is not None else "—",
                {True: "yes", False: "NO", None: "", "tie": "tie (±3%)"}[r["faster"]],
            ]
        body.append(cells)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
        lines += ["| " + " | ".join(b) + " |" for b in body]
        return lines
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    fmt_row = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                      for i, (c, w) in enumerate(zip(cells, widths)))
    return [fmt_row(head), fmt_row(["-" * w for w in widths])] + [fmt_row(b) for b in body]


MEM_FIGURES = [
    ("rss_kB_init", "VmRSS growth over init [kB]"),
    ("rss_kB_init_1MiB", "VmRSS growth, init + 1 MiB heap touched [kB]"),
    ("hwm_kB_init_1MiB", "VmHWM growth, init + 1 MiB touched [kB]"),
    ("rss_shmem_kB_init", "RssShmem after init [kB]"),
    ("vsz_kB_init", "VmSize growth over init [kB]"),
    ("malloc_kB_init", "malloc in use after init [kB]"),
    ("maps_init", "new memory mappings"),
]


def memory_lines(agg, mode, peer_lib, markdown):
    """Per-PE memory figures (mean over PEs) by PE count, Shoal vs peer."""
    mine = agg.get(("shoal", mode), {})
    peer = agg.get((peer_lib, "shm"), {}) if peer_lib else {}
    pes = sorted({k[3] for k in list(mine) + list(peer) if k[0] == "mem"})
    if not pes:
        return []

    def cell(d, op, n):
        v = next((v["median"] for k, v in d.items() if k[0] == "mem" and k[1] == op and k[3] == n), None)
        return fmt(v) if v is not None else "—"

    head = ["per PE (mean over PEs)"] + [f"{n} PEs" for n in pes]
    body = []
    for op, label in MEM_FIGURES:
        body.append([f"{label}, Shoal"] + [cell(mine, op, n) for n in pes])
        if peer:
            body.append([f"{label}, OpenMPI"] + [cell(peer, op, n) for n in pes])
    if markdown:
        return ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * len(pes)) + "|"] + \
            ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


def hw_lines(agg, markdown=False):
    """The bounds themselves: median [min–max] over repetitions."""
    hw = agg.get(("hw", "native"), {})
    body = []
    for k in sorted(hw, key=lambda k: (k[1] != "cacheline_rtt", k[1] != "two_line_rtt", k[2])):
        v = hw[k]
        if k[1] == "memcpy":
            bw = lambda t: fmt(k[2] / t)
            body.append([f"memcpy {size_label(k[2])}", f"{stat_cell(v)} ns",
                         f"{bw(v['median'])} [{bw(v['max'])}–{bw(v['min'])}] GB/s"])
        else:
            body.append([k[1].replace("_", " "), f"{stat_cell(v)} ns", ""])
    head = ["hardware bound", "time", "bandwidth"]
    if markdown:
        return ["| " + " | ".join(head) + " |", "|---|---:|---:|"] + ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(3)]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


def find(rows, bench, op, size=None, npes=None, metric=None):
    for r in rows:
        k = r["key"]
        if k[0] == bench and k[1] == op and (size is None or k[2] == size) and \
                (npes is None or k[3] == npes) and (metric is None or k[4] == metric):
            return r
    return None


def target_checks(rows, peer_name):
    """DESIGN.md §7, evaluated on this run: (target, figure, verdict)."""
    out = []

    def lat_check(label, r, limit):
        if not r or r["x_bound"] is None:
            out.append((label, "not measured", "—"))
            return
        out.append((label, f"{fmt(r['shoal']['median'])} ns = {fmt(r['x_bound'])}× {r['bound_label']} "
                    f"(≤ {limit}×)", "met" if r["x_bound"] <= limit else "MISSED"))

    lat_check("shmem_p 8 B (put + quiet)", find(rows, "rma_lat", "p"), 1.5)
    lat_check("shmem_p 8 B round trip (p + wait_until each way; bound: two-line round trip)",
              find(rows, "rma_lat", "p_roundtrip"), 1.5)
    lat_check("shmem_g 8 B", find(rows, "rma_lat", "g"), 1.5)
    for op in ("put_bw", "get_bw"):
        r = find(rows, "rma_bw", op, size=1 << 20)
        if r and r["x_bound"] is not None:
            out.append((f"{op.replace('_bw', 'mem')} 1 MiB bandwidth",
                        f"{fmt(r['shoal']['median'])} GB/s = {fmt(r['x_bound'])}× memcpy (≥ 0.9×)",
                        "met" if r["x_bound"] >= 0.9 else "MISSED"))
        else:
            out.append((f"{op} 1 MiB", "not measured", "—"))
    lat_check("fetching AMO (fetch_add, line stays local)", find(rows, "amo_lat", "fetch_add"), 1.5)
    lat_check("fetching AMO round trip (two fetch-adds, line moves)", find(rows, "amo_lat", "fetch_add_roundtrip"),
              1.5)
    for n in (2, 4):
        r = find(rows, "coll", "barrier_all", npes=n)
        if r and r["x_bound"] is not None:
            out.append((f"barrier_all {n} PEs" + (" (oversubscribed)" if n > NCORES else ""),
                        f"{fmt(r['shoal']['median'])} ns = {fmt(r['x_bound'])}× {r['bound_label']} (≤ 3×)",
                        "met" if r["x_bound"] <= 3 else "MISSED"))
    compared = [r for r in rows if r["faster"] is not None]
    slower = [r["name"] for r in compared if r["faster"] is False]
    ties = [r["name"] for r in compared if r["faster"] == "tie"]
    if compared:
        figure = f"faster on {len(compared) - len(slower) - len(ties)} of {len(compared)} rows"
        if ties:
            figure += f", tie (±{TIE:.0%}) on {len(ties)}: " + "; ".join(ties)
        out.append((f"faster than {peer_name} on every row", figure,
                    "met" if not slower else "MISSED: " + "; ".join(slower)))
    return out


def ofi_target_checks(rows, provider):
    """DESIGN.md §7's network-path target for one ofi mode. No
    libfabric-based OpenSHMEM is installed to compare with, so the figure
    is Shoal against raw libfabric on the same provider: the best any such
    peer could do. At or better than that bound on every key row meets the
    target whatever the peer; above it, the target cannot be decided here."""
    key_rows = [("p", find(rows, "rma_lat", "p")), ("g", find(rows, "rma_lat", "g")),
                ("putmem 8 B", find(rows, "rma_lat", "putmem", size=8)),
                ("getmem 8 B", find(rows, "rma_lat", "getmem", size=8)),
                ("fetch_add", find(rows, "amo_lat", "fetch_add")),
                ("put 1 MiB bw", find(rows, "rma_bw", "put_bw", size=1 << 20)),
                ("get 1 MiB bw", find(rows, "rma_bw", "get_bw", size=1 << 20))]
    parts, above = [], []
    for label, r in key_rows:
        if not r or r["x_bound"] is None:
            continue
        parts.append(f"{label} {fmt(r['x_bound'])}×")
        worse = r["x_bound"] < 1 - TIE if r["higher_is_better"] else r["x_bound"] > 1 + TIE
        if worse:
            above.append(label)
    label = f"network path ({provider}): no slower than the best libfabric-based peer on the same provider"
    if not parts:
        return [(label, "not measured (no raw libfabric bound or no Shoal rows)", "—")]
    figure = "Shoal / raw libfabric: " + ", ".join(parts)
    if above:
        figure += ("; beyond the raw bound on " + ", ".join(above)
                   + " (no libfabric-based OpenSHMEM installed here to tell whether one does better)")
        verdict = "open"
    else:
        figure += " (at or within the raw bound, which no peer can beat)"
        verdict = "met"
    return [(label, figure, verdict)]


def ofi_raw_lines(agg, mode, markdown=False):
    """The raw libfabric rows of one mode: median [min–max] over repetitions."""
    raw = ofi_raw(agg, mode)
    if not raw:
        return []
    order = {"put": 0, "get": 1, "fetch_add": 2, "add": 3, "add_nq": 4, "put_bw": 5, "get_bw": 6, "put_rate": 7}
    head = ["raw libfabric", "median [min–max]", "unit"]
    body = []
    for k in sorted(raw, key=lambda k: (order.get(k[1], 9), k[1], k[2])):
        name = k[1] + (f" {size_label(k[2])}" if k[1] in ("put", "get", "put_bw", "get_bw") else "")
        body.append([name, stat_cell(raw[k]), UNITS.get(k[4], k[4])])
    if markdown:
        return ["| " + " | ".join(head) + " |", "|---|---:|---|"] + ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(3)]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


# ---------------------------------------------------------------- issue #15 rows

# The rows issue #15 compares (OSU-style, 2 PEs): label, bench, op, size
# (None: any), npes. Non-fetching adds are timed back to back with one
# quiet at the end (as OSU's atomic benchmarks do), and also completed one
# at a time; `long` stands for `long long` (both 64-bit on x86_64 Linux).
KEY_ROWS = [
    ("atomic add int, back to back + quiet", "amo_lat", "add_int_nq", None, 2),
    ("atomic add long long, back to back + quiet", "amo_lat", "add_nq", None, 2),
    ("atomic add long long + quiet each", "amo_lat", "add", None, 2),
    ("put 8 B (putmem + quiet)", "rma_lat", "putmem", 8, 2),
    ("get 8 B (getmem)", "rma_lat", "getmem", 8, 2),
    ("fetch-add long long", "amo_lat", "fetch_add", None, 2),
    ("barrier_all, 2 PEs", "coll", "barrier_all", None, 2),
    ("message rate, 8 B put_nbi [Mop/s]", "rma_bw", "put_rate", 8, 2),
]


def time_ratio(a, b, higher_is_better):
    """a / b as a ratio of time per operation (> 1: a is slower)."""
    if a is None or b is None or not a or not b:
        return None
    return b / a if higher_is_better else a / b


def key_rows(rows):
    """KEY_ROWS picked out of build_table's rows: (label, row or None)."""
    out = []
    for label, bench, op, size, npes in KEY_ROWS:
        r = next((r for r in rows if r["key"][0] == bench and r["key"][1] == op and
                  (size is None or r["key"][2] == size) and r["key"][3] == npes), None)
        out.append((label, r))
    return out


QUIET_ROWS = [
    ("put 8 B + quiet: stale at the target", "p_quiet_stale"),
    ("put 8 B + quiet: needed the target's calls", "p_quiet_needed_target"),
    ("atomic add + quiet: stale at the target", "add_quiet_stale"),
    ("atomic add + quiet: needed the target's calls", "add_quiet_needed_target"),
]


def quiet_lines(agg, mode, peer_lib, peer_name, markdown):
    """bench/quiet_visible.c: after quiet, does a target that is not calling
    the library already hold the value? Counts out of the rounds run."""
    def get(lib, op):
        v = agg.get((lib, mode), {}).get(("quiet_visible", op, 8, 2, "count"))
        return v["median"] if v else None
    rounds = get("shoal", "rounds") or (get(peer_lib, "rounds") if peer_lib else None)
    if rounds is None:
        return []
    peer_name = peer_name or "peer"
    head = ["round outcome (of %d)" % rounds, "Shoal", peer_name]
    body = [[label] + [("%d" % v if v is not None else "—") for v in
                       (get("shoal", op), get(peer_lib, op) if peer_lib else None)]
            for label, op in QUIET_ROWS]
    if markdown:
        return ["| " + " | ".join(head) + " |", "|---|---:|---:|"] + ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


def key_lines(rows, peer_name, bound_name, markdown):
    """The issue #15 rows of one mode: Shoal, the peer, the bound, and the
    three ratios of time per operation (> 1: the first is slower)."""
    peer_name = peer_name or "peer"
    head = ["row", "Shoal", peer_name, bound_name, f"Shoal/{peer_name}", f"Shoal/{bound_name}",
            f"{peer_name}/{bound_name}"]
    body = []
    for label, r in key_rows(rows):
        if r is None:
            body.append([label] + ["—"] * 6)
            continue
        hib = r["higher_is_better"]
        s = r["shoal"]["median"] if r["shoal"] else None
        p = r["peer"]["median"] if r["peer"] else None
        b = r["bound"]
        def cell(v):
            if v is None:
                return "—"
            if hib:
                return fmt(v)
            return f"{fmt(v / 1e3)} µs" if v >= 1e3 else f"{fmt(v)} ns"
        body.append([label, cell(s), cell(p), cell(b)] +
                    [fmt(x) if x is not None else "—"
                     for x in (time_ratio(s, p, hib), time_ratio(s, b, hib), time_ratio(p, b, hib))])
    if markdown:
        return ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"] + \
            ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


# ---------------------------------------------------------------- plots

def plots(agg, out_dir, peer_lib, prefix_lib=None, prefix_label=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("run.py: matplotlib not available; no plots")
        return []
    made = []
    rtt, memcpy = hw_bounds(agg)
    # Fixed colours, so a library keeps its colour when another lacks a row.
    colour = {("shoal", "shm"): "tab:blue", ("shoal", "ofi-tcp"): "tab:green", ("shoal", "ofi-shm"): "tab:purple",
              (peer_lib, "shm"): "tab:orange", (prefix_lib, "ofi-tcp"): "tab:olive",
              (prefix_lib, "ofi-shm"): "tab:pink"}
    series_libs = []
    if ("shoal", "shm") in agg:
        series_libs.append(("shoal", "shm", "Shoal", "-o"))
    for m in OFI_MODES:
        if ("shoal", m) in agg:
            series_libs.append(("shoal", m, f"Shoal ({m})", "-s"))
    if peer_lib:
        series_libs.append((peer_lib, "shm", "Open MPI OSHMEM", "--^"))
    for m in OFI_MODES:
        if prefix_lib and (prefix_lib, m) in agg:
            series_libs.append((prefix_lib, m, f"{prefix_label or 'peer'} ({m})", "--v"))
    raw_modes = [m for m in OFI_MODES if ("hw", m) in agg]

    def series(lib, mode, bench, op, metric, by="size", size=None):
        d = agg.get((lib, mode), {})
        pts = sorted((k[2] if by == "size" else k[3], v["median"]) for k, v in d.items()
                     if k[0] == bench and k[1] == op and k[4] == metric and (size is None or k[2] == size))
        return [p[0] for p in pts], [p[1] for p in pts]

    def legend(ax, size):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=size)

    def save(fig, name):
        path = os.path.join(out_dir, name)
        fig.tight_layout()
        fig.savefig(path, dpi=72)
        plt.close(fig)
        made.append(path)

    # Latency vs size.
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, op in zip(axes, ("putmem", "getmem")):
        for lib, mode, label, style in series_libs:
            x, y = series(lib, mode, "rma_lat", op, "lat_ns")
            if x:
                ax.plot(x, y, style, ms=3, label=label, color=colour[(lib, mode)])
        for m in raw_modes:
            x, y = series("hw", m, "hw_ofi", "put" if op == "putmem" else "get", "lat_ns")
            if x:
                ax.plot(x, y, ":", color=colour[("shoal", m)], label=f"raw libfabric {OFI_MODES[m]} (bound)")
        if memcpy:
            xs = sorted(memcpy)
            ax.plot(xs, [memcpy[s] for s in xs], ":", color="gray", label="memcpy (bound)")
        if rtt:
            ax.axhline(rtt, color="red", lw=0.8, ls=":", label="cache-line round trip")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_title(f"shmem_{op}" + (" + quiet" if op == "putmem" else ""))
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("latency (ns, median)")
    legend(axes[0], 7)
    save(fig, "latency.png")

    # Bandwidth vs size.
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, (op, nbi) in zip(axes, (("put", "put_nbi"), ("get", "get_nbi"))):
        for lib, mode, label, style in series_libs:
            for o, suffix in ((op, ""), (nbi, " nbi")):
                x, y = series(lib, mode, "rma_bw", o + "_bw", "bw_GBps")
                if x:
                    ax.plot(x, y, style, ms=3, alpha=1.0 if not suffix else 0.5, label=label + suffix,
                            color=colour[(lib, mode)])
        for m in raw_modes:
            x, y = series("hw", m, "hw_ofi", op + "_bw", "bw_GBps")
            if x:
                ax.plot(x, y, "*", ms=8, color=colour[("shoal", m)], label=f"raw libfabric {OFI_MODES[m]} (bound)")
        if memcpy:
            xs = sorted(s for s in memcpy if s >= 8)
            ax.plot(xs, [s / memcpy[s] for s in xs], ":", color="gray", label="memcpy (bound)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_title(f"{op} bandwidth")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("GB/s (median)")
    legend(axes[0], 7)
    save(fig, "bandwidth.png")

    # Collective latency vs PE count.
    ops = []
    for d in agg.values():
        for k in d:
            if k[0] == "coll" and (k[1], k[2]) not in ops:
                ops.append((k[1], k[2]))
    ops.sort(key=lambda o: (o[1], o[0]))
    if ops:
        cols = min(4, len(ops))
        rows_n = math.ceil(len(ops) / cols)
        fig, axes = plt.subplots(rows_n, cols, figsize=(2.6 * cols, 2.4 * rows_n), squeeze=False)
        for ax, (op, size) in zip(axes.flat, ops):
            allx = set()
            for lib, mode, label, style in series_libs:
                x, y = series(lib, mode, "coll", op, "lat_ns", by="npes", size=size)
                if x:
                    ax.plot(x, y, style, ms=3, label=label, color=colour[(lib, mode)])
                    allx |= set(x)
            if rtt and allx:
                xs = sorted(allx)
                ax.plot(xs, [3 * rtt * max(1, math.ceil(math.log2(n))) for n in xs], ":", color="red",
                        label="3×rtt×log2 N")
            ax.axvline(NCORES + 0.5, color="gray", lw=0.6)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(op + (f" {size_label(size)}" if size else ""), fontsize=9)
            ax.set_xlabel("PEs", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
        for ax in list(axes.flat)[len(ops):]:
            ax.axis("off")
        axes[0][0].set_ylabel("ns per call (median)", fontsize=8)
        legend(axes[0][0], 6)
        save(fig, "collectives.png")

    # AMO latency, one bar per kind.
    amo_ops = sorted({k[1] for d in agg.values() for k in d if k[0] == "amo_lat"})
    if amo_ops:
        fig, ax = plt.subplots(figsize=(9, 3.2))
        libs = [s for s in series_libs if (s[0], s[1]) in agg]
        width = 0.8 / max(1, len(libs))
        for i, (lib, mode, label, _) in enumerate(libs):
            d = agg[(lib, mode)]
            ys = [next((v["median"] for k, v in d.items() if k[0] == "amo_lat" and k[1] == op), 0) for op in amo_ops]
            ax.bar([j + i * width for j in range(len(amo_ops))], ys, width, label=label, color=colour[(lib, mode)])
        if rtt:
            ax.axhline(rtt, color="red", lw=0.8, ls=":", label="cache-line round trip")
        for m in raw_modes:
            v = agg[("hw", m)].get(("hw_ofi", "fetch_add", 8, 2, "lat_ns"))
            if v:
                ax.axhline(v["median"], color=colour[("shoal", m)], lw=0.8, ls=":",
                           label=f"raw libfabric {OFI_MODES[m]} fetch-add")
        if any(mode in OFI_MODES for _, mode, _, _ in libs):
            ax.set_yscale("log")  # ns (node-local) next to µs (libfabric)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(amo_ops))])
        ax.set_xticklabels(amo_ops, rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("ns per op (median)")
        legend(ax, 7)
        ax.grid(True, axis="y", alpha=0.3)
        save(fig, "amo.png")
    return made


# ---------------------------------------------------------------- the document

DOC_BEGIN, DOC_END = "<!-- run.py begin -->", "<!-- run.py end -->"


def write_doc(path, md, pngs, machine, reps, args, seconds):
    """Put this run between DOC_BEGIN and DOC_END in `path` (everything else
    in the file is left as it is) and copy the plots to its perf/ folder."""
    import shlex
    import shutil
    with open(path) as f:
        text = f.read()
    if DOC_BEGIN not in text or DOC_END not in text:
        log(f"run.py: {path} has no '{DOC_BEGIN}' ... '{DOC_END}' block; not written")
        return
    perf = os.path.join(os.path.dirname(os.path.abspath(path)), "perf")
    os.makedirs(perf, exist_ok=True)
    for p in pngs:
        shutil.copy(p, os.path.join(perf, os.path.basename(p)))
    cmd = "python3 bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    head = [DOC_BEGIN,
            f"_Written by `{cmd}` on {datetime.datetime.now().isoformat(timespec='minutes')}: "
            f"{reps} repetition(s){', quick' if args.quick else ''}, {seconds / 60:.0f} min wall time._", "",
            "Machine: " + "; ".join(machine) + ".", ""]
    block = "\n".join(head + md + [DOC_END])
    start, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END)
    with open(path, "w") as f:
        f.write(text[:start] + block + text[end:])
    log(f"run.py: wrote this run into {path} and {len(pngs)} plot(s) into {perf}")


# ---------------------------------------------------------------- main

def machine_summary():
    lines = []
    try:
        st, out, _, _ = run(["lscpu"], 10)
        want = ("Model name", "CPU(s):", "Thread(s) per core", "L1d cache", "L2 cache", "L3 cache",
                "Hypervisor vendor")
        for line in out.splitlines():
            if line.startswith(want):
                lines.append(" ".join(line.split()))
    except OSError:
        pass
    lines.append(f"kernel {platform.release()}")
    st, out, _, _ = run([os.environ.get("CC", "cc"), "--version"], 10)
    if st == "ok" and out:
        lines.append(out.splitlines()[0])
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build_dir", nargs="?", default=os.path.join(HERE, "_build"),
                    help="where benchmark binaries are built (default bench/_build)")
    ap.add_argument("--out", default=None, help="output directory (default BUILD_DIR/out)")
    ap.add_argument("--quick", action="store_true", help="smoke run: a few sizes, 1 repetition, < 60 s")
    ap.add_argument("--reps", type=int, default=None, help="repetitions of every run (default 5; quick 1)")
    ap.add_argument("--shoal-build", default=None, help="Shoal's meson build dir (default: REPO/build, "
                    "else built into BUILD_DIR/shoal-lib)")
    ap.add_argument("--mode", default="shm", help="Shoal path modes, comma separated: shm, ofi-tcp "
                    "(SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp), ofi-shm (SHMEM_TRANSPORT=ofi FI_PROVIDER=shm), "
                    "ofi (both ofi modes); an ofi mode is skipped if the library or libfabric does not offer it")
    ap.add_argument("--no-peer", action="store_true", help="do not build and run Open MPI's OSHMEM")
    ap.add_argument("--peer-oshcc", default="/usr/bin/oshcc")
    ap.add_argument("--peer-oshrun", default="/usr/bin/oshrun")
    ap.add_argument("--peer-prefix", default=None, metavar="DIR",
                    help="another OpenSHMEM (DIR/bin/oshcc, DIR/bin/oshrun) to compare on the ofi modes")
    ap.add_argument("--peer-env", action="append", default=[], metavar="K=V",
                    help="extra environment of the --peer-prefix library's launches (repeatable)")
    ap.add_argument("--doc", default=None, metavar="MD_FILE",
                    help="also write this run into MD_FILE between the lines '<!-- run.py begin -->' and "
                    "'<!-- run.py end -->', and copy the plots into MD_FILE's directory/perf/")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per launch (default 120; quick 30)")
    ap.add_argument("--only", default=None, help="comma-separated programs to run (e.g. coll_lat,hw_rtt)")
    ap.add_argument("--replot", metavar="RESULTS_JSON", default=None,
                    help="no build or run: redraw the plots of an earlier run's results.json into --out")
    args = ap.parse_args()
    if args.replot:
        with open(args.replot) as f:
            saved = json.load(f)
        out_dir = os.path.abspath(args.out or os.path.dirname(os.path.abspath(args.replot)))
        os.makedirs(out_dir, exist_ok=True)
        agg = aggregate(saved["raw"])
        peer_lib = "openmpi" if any(k[0] == "openmpi" for k in agg) else None
        prefix = PREFIX_PEER if any(k[0] == PREFIX_PEER for k in agg) else None
        print("\n".join(plots(agg, out_dir, peer_lib, prefix, saved.get("peer_label"))))
        return 0
    reps = args.reps or (1 if args.quick else 5)
    timeout = args.timeout or (30 if args.quick else 120)
    args.build_dir = os.path.abspath(args.build_dir)
    out_dir = os.path.abspath(args.out or os.path.join(args.build_dir, "out"))
    os.makedirs(args.build_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    t_start = time.monotonic()
    crashed = []

    # -- modes asked for (aliases expanded), checked before anything is built
    requested = []
    for m in [m.strip() for m in args.mode.split(",") if m.strip()]:
        for x in MODE_ALIASES.get(m, [m]):
            if x not in ALL_MODES:
                sys.exit(f"run.py: unknown mode {m} (shm, ofi-tcp, ofi-shm, ofi)")
            if x not in requested:
                requested.append(x)

    # -- libraries
    shoal = shoal_library(find_shoal_build(args))
    libs = [shoal]
    peer = None
    if not args.no_peer and "shm" not in requested:
        log("run.py: no shm mode asked for; the peer (compared in the shm table only) is not run")
    elif not args.no_peer:
        if os.path.exists(args.peer_oshcc) and os.path.exists(args.peer_oshrun) and is_open_mpi(args.peer_oshrun):
            peer = openmpi_library(args.peer_oshcc, args.peer_oshrun)
            libs.append(peer)
        else:
            log(f"run.py: no Open MPI OSHMEM at {args.peer_oshcc} / {args.peer_oshrun}; peer skipped")

    prefix_peer = None
    if args.peer_prefix:
        if not [m for m in requested if m in OFI_MODES]:
            log("run.py: --peer-prefix is compared on the ofi modes only, and none was asked for")
        else:
            prefix_peer, why = prefix_library(os.path.abspath(args.peer_prefix))
            if prefix_peer:
                for kv in args.peer_env:
                    k, sep, v = kv.partition("=")
                    if not sep:
                        sys.exit(f"run.py: --peer-env {kv}: expected K=V")
                    prefix_peer.env[k] = v
                libs.append(prefix_peer)
            else:
                log(f"run.py: --peer-prefix {args.peer_prefix} not usable: {why}")

    # -- build
    def build_lib(lib):
        bdir = os.path.join(args.build_dir, lib.name)
        os.makedirs(bdir, exist_ok=True)
        lib.probe(bdir)
        defines = [m for m, ok in lib.features.items() if ok]
        failures = []

        def one(prog):
            exe = os.path.join(bdir, prog)
            st, out, err, _ = lib.compile(os.path.join(HERE, prog + ".c"), exe, defines)
            return prog, exe, st, out + err

        with concurrent.futures.ThreadPoolExecutor(max_workers=NCORES) as ex:
            for prog, exe, st, msg in ex.map(one, SHMEM_PROGRAMS):
                if st == "ok":
                    lib.binaries[prog] = exe
                else:
                    failures.append(f"{lib.name}/{prog}: {st}\n{msg[-2000:]}")
        return failures

    for lib in libs:
        fails = build_lib(lib)
        have = [m.replace("BENCH_HAVE_", "") for m, ok in lib.features.items() if ok]
        log(f"run.py: built for {lib.name}; optional routines found: {', '.join(have) or 'none'}")
        for f in fails:
            log("run.py: BUILD FAILED " + f)
            if lib is shoal:
                crashed.append(f.splitlines()[0])
    hw_dir = os.path.join(args.build_dir, "hw")
    os.makedirs(hw_dir, exist_ok=True)
    hw_bins = {}
    cc = [os.environ.get("CC", "cc")]
    for prog in HW_PROGRAMS:
        exe = os.path.join(hw_dir, prog)
        st, out, err, _ = run(cc + CFLAGS + [os.path.join(HERE, prog + ".c"), "-o", exe], 120)
        if st == "ok":
            hw_bins[prog] = exe
        else:
            crashed.append(f"hw/{prog}: build {st}")
            log(f"run.py: BUILD FAILED hw/{prog}\n{out}{err}")

    # -- modes
    modes = []
    skipped_modes = {}
    chosen_provider = {}  # ofi mode -> the provider Shoal would take (shoal-info)
    for m in requested:
        if m not in OFI_MODES:
            modes.append((m, mode_env(m)))
            continue
        prov = OFI_MODES[m]
        st, out, err, _ = run([os.path.join(shoal.build, "src", "shoal-info")], 30,
                              env=with_env(os.environ, mode_env(m)))
        text = out + err
        chosen = next((line.split()[0] for line in text.splitlines() if "<- chosen" in line), None)
        if "SHMEM_TRANSPORT" not in text:
            skipped_modes[m] = "this Shoal build does not know SHMEM_TRANSPORT (no network path yet)"
        elif not chosen and "none (fi_getinfo" in text:
            skipped_modes[m] = f"libfabric offers no RDM provider with FI_RMA|FI_ATOMIC under FI_PROVIDER={prov}"
        else:
            chosen_provider[m] = chosen or prov
            modes.append((m, mode_env(m)))
    for m, why in skipped_modes.items():
        log(f"run.py: mode {m} skipped: {why}")

    # -- the --peer-prefix library must run on the provider of each ofi mode
    peer_providers = {}
    if prefix_peer:
        for m, env in modes:
            if m in OFI_MODES:
                verdict, evidence = peer_provider(prefix_peer, m, env, os.path.join(args.build_dir, PREFIX_PEER),
                                                  timeout)
                peer_providers[m] = {"verdict": verdict, "evidence": evidence}
                log(f"run.py: {prefix_peer.label} in {m}: provider {verdict} ({evidence})")

    # -- the raw libfabric bound, for the providers of the ofi modes asked for
    ofi_asked = [m for m in requested if m in OFI_MODES]
    hw_ofi_skipped = None
    if ofi_asked:
        probe = os.path.join(hw_dir, "fabric_probe.c")
        with open(probe, "w") as f:
            f.write("#include <rdma/fabric.h>\n#include <rdma/fi_rma.h>\n#include <rdma/fi_atomic.h>\n"
                    "int main(void) { return (int)fi_version() == 0; }\n")
        st, out, err, _ = run(cc + [probe, "-o", probe[:-2], "-lfabric"], 60)
        if st != "ok":
            hw_ofi_skipped = ("libfabric headers or library not found (rdma/fabric.h, -lfabric): "
                              + (err.strip().splitlines() or [st])[0])
            log(f"run.py: {HW_OFI} skipped: {hw_ofi_skipped}; the ofi tables have no bound")
        else:
            exe = os.path.join(hw_dir, HW_OFI)
            st, out, err, _ = run(cc + CFLAGS + [os.path.join(HERE, HW_OFI + ".c"), "-o", exe, "-lfabric"], 120)
            if st == "ok":
                hw_bins[HW_OFI] = exe
            else:
                crashed.append(f"hw/{HW_OFI}: build {st}")
                log(f"run.py: BUILD FAILED hw/{HW_OFI}\n{out}{err}")

    # -- run
    jobs, hw_jobs, hw_ofi_argv = make_plan(args)
    only = set(args.only.split(",")) if args.only else None
    raw, skips, failures = [], [], []
    for rep in range(reps):
        for prog, argv in hw_jobs:
            if prog not in hw_bins or (only and prog not in only):
                continue
            st, out, err, dt = run([hw_bins[prog]] + argv, timeout)
            rows, sk = parse_lines(out, lib="hw", mode="native", rep=rep)
            raw += rows
            if st != "ok":
                crashed.append(f"hw/{prog}: {st}")
                log(f"run.py: hw/{prog} {st}: {err[-1000:]}")
        for mode in ofi_asked:
            if HW_OFI not in hw_bins or (only and HW_OFI not in only):
                continue
            prov = OFI_MODES[mode]
            st, out, err, dt = run([hw_bins[HW_OFI], "--provider", prov] + hw_ofi_argv, timeout,
                                   env=with_env(os.environ, {"FI_PROVIDER": prov}))
            rows, sk = parse_lines(out, lib="hw", mode=mode, rep=rep)
            raw += rows
            if rep == 0:
                skips += sk
            log(f"run.py: rep {rep + 1}/{reps} hw/{HW_OFI} --provider {prov}: {st}, {len(rows)} rows, {dt:.1f} s")
            if st != "ok":
                crashed.append(f"hw/{HW_OFI} --provider {prov}: {st}")
                log(f"run.py: hw/{HW_OFI} --provider {prov} {st}: {err[-1000:]}")
        for prog, npes, argv, first_only in jobs:
            if (first_only and rep > 0) or (only and prog not in only):
                continue
            variants = [(shoal, m, env) for m, env in modes] + ([(peer, "shm", {})] if peer else [])
            if prefix_peer:
                # Right after Shoal's run of the same mode: same noise. Its
                # memory is not compared (the ofi tables show Shoal's only).
                variants = [v for m, env in modes for v in
                            [(shoal, m, env)] + ([(prefix_peer, m, env)] if m in OFI_MODES and
                                                 prog != "mem_scale" else [])] + \
                    ([(peer, "shm", {})] if peer else [])
            for lib, mode, env in variants:
                if prog not in lib.binaries or (lib is shoal and mode in skipped_modes):
                    continue
                cmd = lib.launch(npes, [lib.binaries[prog]] + argv)
                # The library's own settings (e.g. --peer-env) win over the mode's.
                full_env = with_env(with_env(os.environ, env), lib.env)
                shm_before = shm_names()
                st, out, err, dt = run(cmd, timeout, env=full_env)
                left = remove_leftovers(shm_before)
                rows, sk = parse_lines(out, lib=lib.name, mode=mode, rep=rep)
                raw += rows
                if rep == 0:
                    skips += sk
                label = f"{lib.name}/{mode} {prog} -n {npes}"
                log(f"run.py: rep {rep + 1}/{reps} {label}: {st}, {len(rows)} rows, {dt:.1f} s")
                if left:
                    log(f"run.py: {label} left {len(left)} name(s) in /dev/shm (removed): {' '.join(left[:8])}")
                    if lib is shoal:
                        crashed.append(f"{label}: left /dev/shm/{left[0]}")
                if st != "ok":
                    failures.append((lib.name, mode, prog, npes, st, err[-1500:]))
                    if lib is shoal:
                        # Every mode run was first found offered: a failure is Shoal's.
                        crashed.append(label + ": " + st)
                    log(f"run.py: {label} stderr:\n{err[-1500:]}")

    # -- report
    agg = aggregate(raw)
    peer_name = "OpenMPI"
    report = []
    md = []
    key_report, key_md = [], []
    rtt, memcpy = hw_bounds(agg)
    bounds_line = (f"Hardware bounds (this run): cache-line round trip {fmt(rtt)} ns, "
                   f"two-line (flag each way) round trip {fmt(two_line_rtt(agg))} ns; "
                   f"memcpy 8 B {fmt(memcpy.get(8))} ns, 1 MiB "
                   f"{fmt((1 << 20) / memcpy[1 << 20]) if memcpy.get(1 << 20) else '—'} GB/s")
    report.append(bounds_line)
    md.append(f"_{bounds_line}. {reps} repetition(s); each cell: median [min–max] over repetitions "
              f"of each run's median. Latency rows: lower is better; GB/s and Mop/s rows: higher is better._")
    md.append("")
    hw = hw_lines(agg)
    report += [""] + hw
    md += ["#### Hardware bounds", ""] + hw_lines(agg, True) + [""]
    # Raw libfabric, per provider of the ofi modes asked for.
    raw_info = {}
    for r in raw:
        if r.get("bench") == HW_OFI and r["mode"] not in raw_info:
            raw_info[r["mode"]] = r
    for mode in ofi_asked:
        lines = ofi_raw_lines(agg, mode)
        if not lines:
            continue
        i = raw_info.get(mode, {})
        title = (f"Raw libfabric bound, provider {i.get('prov_name', OFI_MODES[mode])} "
                 f"(FI_PROVIDER={OFI_MODES[mode]}; hw_ofi: inject {i.get('inject_size', '?')} B, "
                 f"mr_mode {i.get('mr_mode', '?')}, {i.get('progress', '?')} progress, "
                 f"FI_DELIVERY_COMPLETE default: {'yes' if i.get('delivery_complete_default') else 'no'})")
        report += ["", title, ""] + lines
        md += [f"#### {title}", ""] + ofi_raw_lines(agg, mode, True) + [""]
    for mode, _ in modes:
        if mode in skipped_modes:
            continue
        ofi = mode in OFI_MODES
        # The peer (Open MPI over UCX) has no libfabric path to compare;
        # the --peer-prefix library, if any, is compared there instead.
        if ofi:
            mode_peer = prefix_peer.name if prefix_peer else None
            mode_peer_name = prefix_peer.label if prefix_peer else None
        else:
            mode_peer = peer.name if peer else None
            mode_peer_name = peer_name if mode_peer else None
        rows = build_table(agg, mode, mode_peer, mode if ofi else "shm")
        if ofi:
            prov = chosen_provider.get(mode, OFI_MODES[mode])
            pp = peer_providers.get(mode, {})
            title = (f"Shoal ({mode} path: SHMEM_TRANSPORT=ofi FI_PROVIDER={OFI_MODES[mode]}, provider {prov}) "
                     f"vs raw libfabric on the same provider; "
                     + (f"peer: {mode_peer_name} ({args.peer_prefix}), same FI_PROVIDER, provider "
                        f"{pp.get('verdict', '?')} ({pp.get('evidence', '')})" if mode_peer else
                        f"{peer_name} peer: not applicable (it uses UCX, not libfabric)"))
            if HW_OFI not in hw_bins:
                title += f"; no raw bound ({hw_ofi_skipped or 'hw_ofi not built'})"
        else:
            title = f"Shoal ({mode} path) vs bound vs {peer_name if mode_peer else '(no peer)'}"
        if ofi:
            ktitle = (f"Issue #15 rows, {mode} (provider {chosen_provider.get(mode, OFI_MODES[mode])}): "
                      f"Shoal, {mode_peer_name or 'no peer'}"
                      + (f" (its provider: {peer_providers[mode]['verdict']})" if mode in peer_providers else "")
                      + ", raw libfabric")
            kbound = "raw"
        else:
            ktitle = f"Issue #15 rows, {mode} (Shoal's default node-local path): Shoal, {mode_peer_name or 'no peer'}"
            kbound = "hw bound"
        key_report += ["", ktitle, ""] + key_lines(rows, mode_peer_name, kbound, False)
        key_md += [f"#### {ktitle}", ""] + key_lines(rows, mode_peer_name, kbound, True) + [""]
        qtitle = (f"What shmem_quiet guarantees, {mode} (bench/quiet_visible.c): PE 0 updates a word on "
                  f"PE 1, calls quiet, then tells PE 1 outside OpenSHMEM; PE 1, not calling the library, "
                  f"reads the word")
        qlines = quiet_lines(agg, mode, mode_peer, mode_peer_name, False)
        if qlines:
            key_report += ["", qtitle, ""] + qlines
            key_md += [f"#### {qtitle}", ""] + quiet_lines(agg, mode, mode_peer, mode_peer_name, True) + [""]
        report += ["", title, ""] + table_lines(rows, False, mode_peer_name)
        md += [f"#### {title}", ""] + table_lines(rows, True, mode_peer_name) + [""]
        mem = memory_lines(agg, mode, None if ofi else mode_peer, False)
        if mem:
            report += ["", f"Memory per PE ({mode} path):", ""] + mem
            md += [f"#### Memory per PE ({mode} path)", ""] + \
                memory_lines(agg, mode, None if ofi else mode_peer, True) + [""]
        if ofi:
            checks = ofi_target_checks(rows, chosen_provider.get(mode, OFI_MODES[mode]))
        else:
            checks = target_checks(rows, peer_name)
        report += ["", f"DESIGN.md §7 targets ({mode} path):"]
        report += [f"  {verdict:8s} {label}: {figure}" if not verdict.startswith("MISSED:")
                   else f"  MISSED   {label}: {figure}\n           slower rows: {verdict[8:]}"
                   for label, figure, verdict in checks]
        md += [f"#### DESIGN.md §7 targets ({mode} path)", "", "| target | this run | verdict |", "|---|---|---|"]
        md += [f"| {label} | {figure} | {verdict} |" for label, figure, verdict in checks]
        md.append("")
    if skips:
        seen = set()
        report += ["", "Skipped rows:"]
        md += ["Skipped rows:", ""]
        for s in skips:
            k = (s["lib"], s["mode"], s["bench"], s["op"], s["skip"])
            if k in seen:
                continue
            seen.add(k)
            report.append(f"  {s['lib']}/{s['mode']} {s['bench']} {s['op']}: {s['skip']}")
            md.append(f"* {s['lib']}/{s['mode']} {s['bench']} {s['op']}: {s['skip']}")
        md.append("")
    for m, why in skipped_modes.items():
        report.append(f"Mode {m} skipped: {why}")
        md.append(f"* mode {m} skipped: {why}")
    if hw_ofi_skipped:
        report.append(f"{HW_OFI} skipped: {hw_ofi_skipped}")
        md.append(f"* {HW_OFI} skipped: {hw_ofi_skipped}")
    peer_fail = [f for f in failures if f[0] != shoal.name]
    for f in peer_fail:
        report.append(f"Peer failure (not fatal): {f[0]}/{f[1]} {f[2]} -n {f[3]}: {f[4]}")
        md.append(f"* peer failure: {f[2]} on {f[3]} PEs: {f[4]}")

    key_note = ("_Median over repetitions. Ratios are of time per operation (for the message-rate row, the "
                "inverse of the rate ratio): above 1 means the first named is slower._")
    md = key_md + [key_note, "", "### Every row of the run", ""] + md
    report = key_report + ["", key_note.strip("_")] + report
    pngs = plots(agg, out_dir, peer.name if peer else None, PREFIX_PEER if prefix_peer else None,
                 prefix_peer.label if prefix_peer else None)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"date": datetime.datetime.now().isoformat(timespec="seconds"), "reps": reps,
                   "quick": args.quick, "machine": machine_summary(), "raw": raw, "skips": skips,
                   "skipped_modes": skipped_modes, "modes": requested, "ofi_providers": chosen_provider,
                   "peer_label": prefix_peer.label if prefix_peer else None,
                   "peer_providers": peer_providers,
                   "features": {lib.name: lib.features for lib in libs}}, f, indent=1)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    if args.doc:
        write_doc(args.doc, md, pngs, machine_summary(), reps, args, time.monotonic() - t_start)
    print("\n".join(report))
    print(f"\nWrote {os.path.join(out_dir, 'table.md')}, results.json"
          + (", " + ", ".join(os.path.basename(p) for p in pngs) if pngs else "")
          + f" in {time.monotonic() - t_start:.0f} s")
    if crashed:
        print("\nFAILED (crash, hang or build error on the Shoal side):\n  " + "\n  ".join(crashed))
        return 1
    return 0


def reexec_for_matplotlib():
    """The plots need matplotlib; a python3 first on PATH (pyenv, venv) may
    lack it while the system interpreter has it: rerun under that one."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("SHOAL_BENCH_REEXEC"):
        return
    for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            st, _, _, _ = run([cand, "-c", "import matplotlib"], 30)
            if st == "ok":
                os.environ["SHOAL_BENCH_REEXEC"] = "1"
                os.execv(cand, [cand, os.path.abspath(__file__)] + sys.argv[1:])


if __name__ == "__main__":
    reexec_for_matplotlib()
    sys.exit(main())

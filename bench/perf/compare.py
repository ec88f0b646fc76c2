# SPDX-License-Identifier: BSD-3-Clause
"""Interleaved comparisons (bench/compare.py): programs built against
several OpenSHMEM libraries or Shoal builds and run one after the other in
every repetition, in each path mode and environment variant asked for, so
that all of them see the same machine noise; per row, each one's median
and range over the repetitions, and the first one's time ratio to each
other's. Every launch's rows go to a JSON-lines file as they come, so a
long run can be summarised again, or together with another, by --summary.

The programs are bench/*.c (their JSON lines, common.h) and, given an OSU
micro-benchmarks source tree, OSU's c/openshmem programs (their text
columns)."""

import json
import os
import re
import shlex
import shutil
import statistics
import sys
import time

from .launch import log, remove_leftovers, run, shm_names
from .measure import HIGHER_IS_BETTER, parse_lines, time_ratio
from .peers import openmpi_library, prefix_library, shoal_library
from .plan import CFLAGS, HERE, HW_OFI, HW_OFI_RANDOM, HW_PROGRAMS, mode_env, requested_modes, with_env
from .tables import UNITS, fmt, size_label

MIN_REPS = 5  # fewer: the figures are provisional (bench/README.md)
UNIT = dict(UNITS, lat_us="µs", us="µs", ms="ms", s="s")


def library(spec):
    """NAME=WHERE: WHERE a Shoal meson build directory, an installed
    OpenSHMEM (WHERE/bin/oshcc and WHERE/bin/oshrun: Shoal after meson
    install, Sandia OpenSHMEM, ...), or `ompi` for the oshcc and oshrun on
    PATH (Debian's Open MPI)."""
    name, sep, where = spec.partition("=")
    if not sep or not name or not where or "/" in name or name == "memcpy":
        sys.exit(f"compare.py: {spec}: expected NAME=BUILD_DIR, NAME=PREFIX or NAME=ompi")
    if where == "ompi":
        oshcc, oshrun = shutil.which("oshcc"), shutil.which("oshrun")
        if not oshcc or not oshrun:
            sys.exit(f"compare.py: {spec}: no oshcc and oshrun on PATH")
        lib = openmpi_library(oshcc, oshrun)
    elif os.path.exists(os.path.join(where, "meson-info")):
        if not os.path.exists(os.path.join(where, "src", "libshmem.so")):
            sys.exit(f"compare.py: {spec}: the build has no src/libshmem.so (meson compile -C {where})")
        lib = shoal_library(os.path.abspath(where))
    else:
        lib, why = prefix_library(os.path.abspath(where))
        if not lib:
            sys.exit(f"compare.py: {spec}: {why}")
    lib.name = name
    return lib


def variant(spec):
    """NAME:K=V,K=V -> (NAME, {K: V})."""
    name, sep, rest = spec.partition(":")
    if not sep or not name:
        sys.exit(f"compare.py: --env {spec}: expected NAME:K=V[,K=V] (NAME: for none)")
    env, last = {}, None
    for kv in filter(None, rest.split(",")):
        k, eq, v = kv.partition("=")
        if not eq and last:  # a value with commas: SHOAL_CACHE_SIZES=L2,LLC
            env[last] += "," + kv
            continue
        if not eq:
            sys.exit(f"compare.py: --env {spec}: {kv} is not K=V")
        env[k], last = v, k
    return name, env


class Job:
    """One launch's program: `prog` built per library, run on `npes` PEs
    with `argv`, its output turned into rows by `parse(text, tags)`."""

    def __init__(self, prog, npes, argv, parse):
        self.prog, self.npes, self.argv, self.parse = prog, npes, argv, parse
        self.label = " ".join([prog, "-n", str(npes)] + argv)


def bench_jobs(specs, npes_list):
    """--prog 'PROG ARGS' for each PE count: bench/PROG.c."""
    jobs = []
    for spec in specs:
        words = shlex.split(spec)
        prog = words[0] if words else ""
        if prog in HW_PROGRAMS or prog in (HW_OFI, HW_OFI_RANDOM) or not os.path.exists(os.path.join(HERE, prog + ".c")):
            sys.exit(f"compare.py: --prog {spec}: not an OpenSHMEM program of bench/")
        for n in npes_list:
            jobs.append(Job(prog, n, words[1:], lambda text, tags: sum(parse_lines(text, **tags), [])))
    return jobs


def osu_jobs(rows):
    """PROGRAM:NPES:SIZE rows of OSU's osu_oshm_PROGRAM. put, get, the
    message rates (put_mr, put_mr_nb, get_mr_nb) and atomics run on the
    symmetric heap; a row of atomics is named by its operation
    (atomics:2:shmem_int_add); barrier has one figure (any SIZE)."""
    jobs = []
    for row in filter(None, rows.split(",")):
        try:
            prog, npes, size = row.split(":")
            npes = int(npes)
        except ValueError:
            sys.exit(f"compare.py: --osu {row}: expected PROGRAM:NPES:SIZE")
        argv = ["heap"] if prog in ("put", "get", "atomics") or prog.endswith("_mr") or prog.endswith("_mr_nb") \
            else ["-m", f"{size}:{size}"]
        jobs.append(Job("osu_oshm_" + prog, npes, argv, osu_parser(prog, npes, size)))
    return jobs


def osu_parser(prog, npes, size):
    """OSU's figure for the row: the last lone number (barrier), the
    latency column of the operation's line (atomics), else the second
    column of the size's line; put and get also in GB/s."""

    def parse(text, tags):
        lines = text.splitlines()
        if prog == "barrier":
            found = [line.split()[0] for line in lines if re.fullmatch(r"\s*[0-9.]+\s*", line)]
        else:
            col = 2 if prog == "atomics" else 1
            found = [f[col] for f in (line.split() for line in lines) if len(f) > col and f[0] == size][:1]
        try:
            value = float(found[-1])
        except (IndexError, ValueError):
            return []
        base = dict(tags, bench="osu_oshm_" + prog, npes=npes, metric="lat_us", value=value)
        nbytes = int(size) if size.isdigit() else 0
        if "_mr" in prog:  # messages per second
            return [dict(base, op=prog, size=nbytes, metric="rate_Mops", value=value / 1e6)]
        rows = [dict(base, op=size, size=0) if prog == "atomics" else dict(base, op=prog, size=nbytes)]
        if prog in ("put", "get") and nbytes and value > 0:
            rows.append(dict(base, op=prog, size=nbytes, metric="bw_GBps", value=nbytes / value / 1e3))
        return rows

    return parse


def build(libs, jobs, build_dir, omb=None):
    """Each library's programs, into BUILD_DIR/NAME/: (name, prog) -> path.
    bench/ programs get the BENCH_HAVE_* macros of the routines the
    library has; a failed build is logged and its launches left out."""
    bins = {}
    progs = sorted({j.prog for j in jobs})
    for lib in libs:
        bdir = os.path.join(build_dir, lib.name)
        os.makedirs(bdir, exist_ok=True)
        defines = []
        if any(not p.startswith("osu_oshm_") for p in progs):
            lib.probe(bdir)
            defines = [m for m, ok in lib.features.items() if ok]
        for prog in progs:
            exe = os.path.join(bdir, prog)
            if prog.startswith("osu_oshm_"):
                util = os.path.join(omb, "c", "util")
                cmd = lib.cc + ["-O2", "-DOSHM_1_3", "-DFIELD_WIDTH=20", "-DFLOAT_PRECISION=3", "-I", util] + \
                    lib.cflags + [os.path.join(omb, "c", "openshmem", prog + ".c"), os.path.join(util, "osu_util.c"),
                                  os.path.join(util, "osu_util_pgas.c"), "-o", exe] + lib.ldflags + ["-lm"]
                st, out, err, _ = run(cmd, 300)
            else:
                st, out, err, _ = lib.compile(os.path.join(HERE, prog + ".c"), exe, defines)
            if st == "ok":
                bins[(lib.name, prog)] = exe
            else:
                log(f"compare.py: BUILD FAILED {lib.name}/{prog}: {st}\n{(out + err)[-2000:]}")
    return bins


def build_plain(build_dir, prog):
    """bench/PROG.c, a program of no OpenSHMEM library (hw_memcpy, the
    single-core copy bound; busy_loops, another program's load), or None."""
    hw = os.path.join(build_dir, "hw")
    os.makedirs(hw, exist_ok=True)
    exe = os.path.join(hw, prog)
    st, out, err, _ = run([os.environ.get("CC", "cc")] + CFLAGS + [os.path.join(HERE, prog + ".c"), "-o", exe], 120)
    if st != "ok":
        log(f"compare.py: BUILD FAILED {prog}: {st}\n{out}{err}")
        return None
    return exe


def run_all(libs, jobs, modes, variants, reps, timeout, bins, out, cpus=None, memcpy=None, foreign=None):
    """Every repetition: the memcpy bound (if asked for), then each job in
    each mode and variant with every library in turn, beside another
    program's busy loops if `foreign` is given (bench/busy_loops K). Each row, and each failed launch, is written to
    `out` as it comes; returns them all."""
    records = []

    def keep(rec):
        records.append(rec)
        out.write(json.dumps(rec) + "\n")
        out.flush()

    for rep in range(reps):
        if memcpy:
            st, text, err, _ = run(memcpy, timeout)
            for r in parse_lines(text, lib="memcpy", mode="", variant="", rep=rep)[0]:
                keep(r)
        for job in jobs:
            for mode in modes:
                for vname, venv in variants:
                    for lib in libs:
                        exe = bins.get((lib.name, job.prog))
                        if not exe:
                            continue
                        cmd = lib.launch(job.npes, [exe] + job.argv, bind_to="none" if cpus else None, mode=mode)
                        if cpus:
                            cmd = ["taskset", "-c", cpus] + cmd
                        # The variant is the comparison's point: it wins over
                        # the library's own settings, which win over the mode's.
                        env = with_env(with_env(with_env(os.environ, mode_env(mode)), lib.env), venv)
                        tags = {"lib": lib.name, "mode": mode, "variant": vname, "rep": rep,
                                "load1": round(os.getloadavg()[0], 2)}
                        if foreign:
                            # Started by the launch's own session: its scheduling group.
                            cmd = foreign + ["--"] + cmd
                        before = shm_names()
                        st, text, err, dt = run(cmd, timeout, env=env)
                        left = remove_leftovers(before)
                        rows = job.parse(text, tags)  # figures, and rows skipped with the reason
                        for r in rows:
                            if r.get("bench") == "foreign":
                                r.update(op=f"{r['npes']} busy loops beside {job.prog}", npes=job.npes)
                        for r in rows:
                            keep(r)
                        rows = [r for r in rows if "value" in r]
                        label = f"{lib.name}{'/' + vname if vname else ''} {mode} {job.label}"
                        log(f"compare.py: rep {rep + 1}/{reps} {label}: {st}, {len(rows)} rows, {dt:.1f} s")
                        if left:
                            log(f"compare.py: {label} left {len(left)} name(s) in /dev/shm (removed)")
                        if st != "ok" or not rows:
                            keep(dict(tags, fail=st if st != "ok" else "no figure", job=job.label))
                            log(f"compare.py: {label} stderr:\n{err[-1500:]}")
    return records


def load(paths):
    records = []
    for p in paths:
        with open(p) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def row_label(key):
    mode, bench, op, size, npes, metric = key
    unit = UNIT.get(metric, metric)
    return f"{bench} {op}" + (f" {size_label(size)}" if size else "") + f", {npes} PEs" + \
        (f" [{unit}]" if unit else "")


def cell(vals):
    if not vals:
        return "—"
    return f"{fmt(statistics.median(vals))} ({fmt(min(vals))}–{fmt(max(vals))})"


def summary(records):
    """Markdown: per mode, a table of every row, each column (library, or
    library/variant) its median (min–max), then the first column's ratio
    to each other's, and with the memcpy bound each column's fraction of it."""
    runs = [r["run"] for r in records if "run" in r]
    rows = [r for r in records if "value" in r]
    fails = [r for r in records if "fail" in r]
    skips = [r for r in records if "skip" in r]
    memcpy, cols, groups, modes = {}, [], {}, []
    reps = min([info["reps"] for info in runs] or [len({r.get("rep") for r in rows})])

    def col_name(c):
        return c[0] + (f"/{c[1]}" if c[1] else "")

    for r in rows:
        if r["lib"] == "memcpy":
            if r.get("op") == "memcpy" and "bw_GBps" in r:
                memcpy.setdefault(r["size"], []).append(r["bw_GBps"])
            continue
        col = (r["lib"], r.get("variant", ""))
        if col not in cols:
            cols.append(col)
        if r["mode"] not in modes:
            modes.append(r["mode"])
        key = (r["mode"], r["bench"], r["op"], r.get("size", 0), r["npes"], r["metric"])
        groups.setdefault(key, {}).setdefault(col, []).append(r["value"])
        if "max" in r:
            key = key[:2] + (r["op"] + " (max over PEs)",) + key[3:]
            groups.setdefault(key, {}).setdefault(col, []).append(r["max"])

    loads = [r["load1"] for r in rows if "load1" in r]
    out = []
    for info in runs:
        out.append(f"_`{info['command']}` on {info['date']}._")
    out.append(f"_{reps} interleaved repetition(s)"
               + (f" (fewer than {MIN_REPS}: provisional)" if reps < MIN_REPS else "")
               + (f"; load average (1 min) {min(loads):.1f}–{max(loads):.1f}" if loads else "")
               + ". Cell: median (min–max) over repetitions. Ratio: the first column's median time per operation "
               "over the other's (for GB/s and Mop/s, the inverse of the rate ratio; other units, the plain ratio): "
               "below 1, the first is faster._")
    first = cols[0] if cols else None
    for mode in modes:
        keys = [k for k in groups if k[0] == mode]
        bw = memcpy and any(k[5] == "bw_GBps" and k[3] in memcpy for k in keys)
        head = ["row"] + [col_name(c) for c in cols] + [f"{col_name(first)} / {col_name(c)}" for c in cols[1:]]
        if bw:
            head += ["memcpy"] + [f"{col_name(c)} / memcpy" for c in cols]
        out += ["", f"#### {mode}", "", "| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
        for k in keys:
            g = groups[k]
            med = {c: statistics.median(v) for c, v in g.items() if v}
            line = [row_label(k)] + [cell(g.get(c)) for c in cols]
            line += [fmt(time_ratio(med.get(first), med.get(c), k[5] in HIGHER_IS_BETTER)) for c in cols[1:]]
            if bw:
                m = memcpy.get(k[3]) if k[5] == "bw_GBps" else None
                line.append(cell(m) if m else "")
                line += [fmt(med[c] / statistics.median(m)) if m and c in med else "" for c in cols]
            out.append("| " + " | ".join(line) + " |")
    if skips:
        out += ["", "Rows a program skipped, with its reason:", ""]
        for k in dict.fromkeys((col_name((r["lib"], r.get("variant", ""))), r["mode"], r["bench"], r["op"],
                                r["npes"], r["skip"]) for r in skips):
            out.append(f"* {k[0]} in {k[1]}, {k[2]} {k[3]}, {k[4]} PEs: {k[5]}")
    if fails:
        out += ["", "Failed launches (what they printed before failing is in the medians):", ""]
        seen = {}
        for f in fails:
            k = (col_name((f["lib"], f.get("variant", ""))), f["mode"], f["job"])
            seen.setdefault(k, []).append(f["fail"])
        for (name, mode, job), sts in seen.items():
            out.append(f"* {name} in {mode}, `{job}`: {len(sts)} ({', '.join(sorted(set(sts)))})")
    return out


def start_run(out, command, reps):
    """The run's own record, first in its part of the file; returned."""
    rec = {"run": {"command": command, "date": time.strftime("%Y-%m-%dT%H:%M"), "reps": reps}}
    out.write(json.dumps(rec) + "\n")
    return rec

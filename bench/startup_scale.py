#!/usr/bin/env python3
"""bench/startup_scale.py — run bench/startup_scale at several job sizes,
node-local and through tcp, and summarise start-up time and memory per PE.

  startup_scale.py --prog PROG [--label L] [--local 64,128] [--tcp 32,64]
                   [--reps 3] [--timeout 900] [--out FILE.jsonl] [--oshrun OSHRUN]
  startup_scale.py --summary FILE.jsonl [FILE.jsonl ...]

PROG is startup_scale.c compiled against the library to measure (oshcc
bench/startup_scale.c -Ibench -o PROG). Sizes of one mode run in the order
given, each --reps times, interleaved with the other programs given by
repeating --prog (A,B,A,B,...), so a comparison sees the same load. Every
launch has a timeout that kills its process group. Each run appends its
figures, one JSON object per line with the mode, size, label, repetition
and the machine's load average, to --out; --summary prints the medians
(min-max) per (label, mode, size).
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

MODES = {
    "local": {},
    "tcp": {"SHMEM_TRANSPORT": "ofi", "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "lo"},
}
SHOWN = ["init_s", "first_amo_s", "barrier20_s", "pss_total_kB", "rss_total_kB", "sym_peers_pss_kB", "anon_pss_kB",
         "heap_pss_kB", "prov_shm_pss_kB", "malloc_init_kB", "maps"]


def run_once(oshrun, prog, n, env_extra, timeout):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [oshrun, "-n", str(n), prog]
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, f"timeout after {timeout} s", time.time() - t0
    figs = {}
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("bench") == "startup_scale":
            figs[r["op"]] = {"mean": r["value"], "max": r["max"], "pe0": r["pe0"]}
    if p.returncode != 0 or not figs:
        return None, f"exit {p.returncode}: {err[:1200]} ... {err[-400:]}", time.time() - t0
    return figs, err[-800:] if err.strip() else "", time.time() - t0


def measure(a):
    progs = list(zip(a.prog, a.label or [os.path.basename(x) for x in a.prog]))
    plan = [("local", n) for n in a.local] + [("tcp", n) for n in a.tcp]
    with open(a.out, "a") as out:
        for mode, n in plan:
            for rep in range(a.reps):
                for prog, label in progs:
                    load = os.getloadavg()[0]
                    figs, note, wall = run_once(a.oshrun, prog, n, MODES[mode], a.timeout)
                    rec = {"label": label, "mode": mode, "npes": n, "rep": rep, "load1": load, "wall_s": wall,
                           "figs": figs, "note": note}
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    brief = "FAILED " + note if figs is None else \
                        f"init max {figs['init_s']['max']:.2f} s, pss {figs['pss_total_kB']['mean'] / 1024:.1f} MB"
                    print(f"{label} {mode} {n} PEs rep {rep} (load {load:.1f}, {wall:.0f} s): {brief}", flush=True)


def summary(files):
    rows = {}
    for fn in files:
        for line in open(fn):
            r = json.loads(line)
            rows.setdefault((r["label"], r["mode"], r["npes"]), []).append(r)
    for key in sorted(rows, key=lambda k: (k[1], k[2], k[0])):
        rs = [r for r in rows[key] if r["figs"]]
        loads = [r["load1"] for r in rows[key]]
        print(f"== {key[0]} {key[1]} {key[2]} PEs: {len(rs)}/{len(rows[key])} runs ok, "
              f"load {min(loads):.1f}-{max(loads):.1f}")
        for f in SHOWN:
            for stat in ("max", "mean") if f.endswith("_s") else ("mean", "max"):
                v = [r["figs"][f][stat] for r in rs if f in r["figs"]]
                if not v:
                    continue
                scale, unit = (1 / 1024, "MB") if f.endswith("kB") else (1, "s" if f.endswith("_s") else "")
                print(f"   {f:18s} {stat:4s} median {statistics.median(v) * scale:10.4g} {unit:2s} "
                      f"({min(v) * scale:.4g}-{max(v) * scale:.4g})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prog", action="append", default=[])
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--local", default="", type=lambda s: [int(x) for x in s.split(",") if x])
    ap.add_argument("--tcp", default="", type=lambda s: [int(x) for x in s.split(",") if x])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out", default="startup_scale.jsonl")
    ap.add_argument("--oshrun", default="oshrun")
    ap.add_argument("--summary", nargs="*")
    a = ap.parse_args()
    if a.summary:
        summary(a.summary)
        return
    if not a.prog:
        sys.exit("startup_scale.py: --prog is required")
    measure(a)


if __name__ == "__main__":
    main()

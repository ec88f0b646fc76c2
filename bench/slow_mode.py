#!/usr/bin/env python3
"""bench/slow_mode.py — launch bench/slow_mode_probe.c many times, one
variant after another (A,B,C,A,B,C,...), and show per launch its latencies
and what each PE's threads did, then per variant the medians with their
range and how many launches fell in the slow mode.

  bench/slow_mode.py --shoal-build build [--sos-prefix DIR] --provider shm \\
      --launches 20 --variant default: --variant nothread:SHMEM_PROGRESS_THREAD=0

A variant is NAME:K=V,K=V (Shoal's environment; its name starting with
"sos" runs the --sos-prefix library instead, "before" the Shoal build
given by --before-build, e.g. an older checkout's). Each launch prints one line:
fetch-add, adds back to back + quiet, the same + a fetch
that proves them applied, get 8 B, OSU's add window and its put 1 MiB +
quiet window (each the median of many windows in the launch; ns), the
cache-line round trip
between the PEs' cores before/after, then per PE "main@CPUs
ivcsw ticks" and the other threads that ran ("thread: vcsw/ivcsw ticks").
A launch is slow when its fetch-add is above --slow-factor (1.8) times the
fastest launch of its variant. Nothing here is Shoal-specific but the
build paths: the probe uses standard OpenSHMEM and reads /proc itself.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_probe(cc, cflags, ldflags, out):
    cmd = cc + ["-O2", "-std=gnu11"] + cflags + [os.path.join(HERE, "slow_mode_probe.c"), "-o", out] + \
        ldflags + ["-lpthread"]
    subprocess.run(cmd, check=True)


def parse_env(spec):
    env = {}
    for kv in filter(None, spec.split(",")):
        k, _, v = kv.partition("=")
        env[k] = v
    return env


def summary(pe):
    main = pe["threads"][0]
    # ticks: CPU time (1/100 s) the main thread got over the timed part;
    # a PE whose core other jobs share gets few, and its launch is slow
    parts = [f"main@{main['cpus']} iv{main['ivcsw']} {main['ticks']}tk"]
    for t in pe["threads"][1:]:
        if t["vcsw"] or t["ivcsw"] or t["ticks"]:
            parts.append(f"t{t['tid'] % 1000}: v{t['vcsw']}/iv{t['ivcsw']} {t['ticks']}tk")
    return " ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shoal-build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--sos-prefix", default=None)
    ap.add_argument("--before-build", default=None, help="another Shoal build, for variants named before*")
    ap.add_argument("--provider", default="shm")
    ap.add_argument("--launches", type=int, default=20)
    ap.add_argument("--budget-ms", default="100")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--slow-factor", type=float, default=1.8)
    ap.add_argument("--launcher-args", default="", help="extra launcher options, e.g. '--bind-to none'")
    ap.add_argument("--taskset", default="", help="run each PE under taskset -c LIST (LIST per PE: 0/1)")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--out", default=None, help="write every launch's JSON here")
    args = ap.parse_args()
    variants = args.variant or ["default:"]

    work = os.path.join(HERE, "_build", "slow_mode")
    os.makedirs(work, exist_ok=True)
    def shoal(build, name):
        build = os.path.abspath(build)
        with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
            src = json.load(f)["directories"]["source"]
        probe = os.path.join(work, name)
        compile_probe([os.environ.get("CC", "cc")], ["-I", os.path.join(build, "include"), "-I",
                      os.path.join(src, "include")],
                      ["-L", os.path.join(build, "src"), "-lshmem", f"-Wl,-rpath,{os.path.join(build, 'src')}"],
                      probe)
        return probe, [os.path.join(build, "src", "tools", "oshrun"), "-n", "2"]

    shoal_probe, shoal_run = shoal(args.shoal_build, "probe_shoal")
    before_probe = before_run = None
    if args.before_build:
        before_probe, before_run = shoal(args.before_build, "probe_before")
    sos_probe = sos_run = None
    if args.sos_prefix:
        sos_probe = os.path.join(work, "probe_sos")
        compile_probe([os.path.join(args.sos_prefix, "bin", "oshcc")], [], [], sos_probe)
        sos_run = [os.path.join(args.sos_prefix, "bin", "oshrun"), "--allow-run-as-root", "--oversubscribe",
                   "-n", "2"]
    extra = args.launcher_args.split()

    results = {v: [] for v in variants}
    out = open(args.out, "w") if args.out else None
    for i in range(args.launches):
        for v in variants:
            name, _, spec = v.partition(":")
            env = dict(os.environ, SHMEM_TRANSPORT="ofi", FI_PROVIDER=args.provider)
            env.pop("SHMEM_OFI_PROVIDER", None)
            if args.provider == "tcp":
                env["FI_TCP_IFACE"] = "lo"
            is_sos = name.startswith("sos")
            if is_sos:
                env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            env.update(parse_env(spec))
            probe, launch = (sos_probe, sos_run) if is_sos else \
                (before_probe, before_run) if name.startswith("before") else (shoal_probe, shoal_run)
            if probe is None:
                sys.exit(f"slow_mode.py: variant {name} needs --sos-prefix or --before-build")
            cmd = launch + extra
            if args.taskset:
                # each rank pins itself: a wrapper reading the launcher's rank variable
                cmd += ["sh", "-c", f'cpus="{args.taskset}"; r=${{OMPI_COMM_WORLD_RANK:-${{PMIX_RANK:-0}}}}; '
                        'c=$(echo "$cpus" | cut -d/ -f$((r + 1))); exec taskset -c "$c" "$@"', "probe"]
            cmd += [probe, "--budget-ms", args.budget_ms]
            try:
                p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout,
                                   start_new_session=True)
                line = next((l for l in p.stdout.splitlines() if l.startswith("{")), None)
            except subprocess.TimeoutExpired:
                line = None
            if not line:
                print(f"{i:2d} {name:12s} FAILED", flush=True)
                continue
            r = json.loads(line)
            results[v].append(r)
            if out:
                out.write(json.dumps({"launch": i, "variant": name, **r}) + "\n")
            print(f"{i:2d} {name:12s} fadd {r['fetch_add_ns']:7.0f} add_nq {r['add_nq_ns']:7.0f} "
                  f"+fetch {r['add_nq_fetched_ns']:7.0f} "
                  f"get {r['get_ns']:7.0f} osu-add {r['osu_add_ns']:5.0f} osu-put1m {r['osu_put1m_ns']:6.0f} "
                  f"line {r['line_rtt_ns'][0]:4.0f}/{r['line_rtt_ns'][1]:4.0f} | " + " | ".join(summary(pe) for pe in r["pes"]), flush=True)

    print(f"\nuptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"{'variant':12s} {'n':>3s} {'fetch-add median (min-max)':>28s} {'adds b2b + quiet':>24s} "
          f"{'+ a fetch':>24s} {'get 8 B':>24s} {'OSU add window':>24s} {'OSU put 1 MiB + quiet':>24s} slow")
    for v in variants:
        rs = results[v]
        if not rs:
            continue
        def col(key):
            xs = [r[key] for r in rs]
            return f"{statistics.median(xs):7.0f} ({min(xs):.0f}-{max(xs):.0f})"
        fast = min(r["fetch_add_ns"] for r in rs)
        slow = sum(r["fetch_add_ns"] > args.slow_factor * fast for r in rs)
        print(f"{v.partition(':')[0]:12s} {len(rs):3d} {col('fetch_add_ns'):>28s} {col('add_nq_ns'):>24s} "
              f"{col('add_nq_fetched_ns'):>24s} {col('get_ns'):>24s} {col('osu_add_ns'):>24s} "
              f"{col('osu_put1m_ns'):>24s} {slow}/{len(rs)}")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""The command line of bench/run.py: parse the options, then either
re-render or redraw an earlier run from its results.json, or build, run
and report a new one."""

import argparse
import json
import os
import shlex
import sys
import time

from . import doc
from .launch import log, run
from .measure import aggregate
from .peers import PREFIX_PEER, find_shoal_build, is_open_mpi, openmpi_library, prefix_library, shoal_library
from .plan import HERE, OFI_MODES, requested_modes
from .plots import plots
from .report import render
from .suite import build_all, build_hw_ofi, confirm_peer_providers, offered_modes, run_reps


def parse_args(description):
    ap = argparse.ArgumentParser(description=description)
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
                    "'<!-- run.py end -->' (the summary page), its tables into MD_FILE's directory/perf/tables.md, "
                    "and copy the plots into MD_FILE's directory/perf/")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per launch (default 120; quick 30)")
    ap.add_argument("--only", default=None, help="comma-separated programs to run (e.g. coll_lat,hw_rtt)")
    ap.add_argument("--replot", metavar="RESULTS_JSON", default=None,
                    help="no build or run: redraw the plots of an earlier run's results.json into --out")
    ap.add_argument("--render", metavar="RESULTS_JSON", default=None,
                    help="no build or run: rewrite table.md, the plots and (with --doc) the document from an "
                    "earlier run's results.json, into --out (default: the results' directory)")
    return ap.parse_args()


def command_line():
    """This invocation, as a reader would type it from the checkout."""
    return "python3 bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def peers_in(agg):
    peer_lib = "openmpi" if any(k[0] == "openmpi" for k in agg) else None
    prefix = PREFIX_PEER if any(k[0] == PREFIX_PEER for k in agg) else None
    return peer_lib, prefix


def replot(args):
    with open(args.replot) as f:
        saved = json.load(f)
    out_dir = os.path.abspath(args.out or os.path.dirname(os.path.abspath(args.replot)))
    os.makedirs(out_dir, exist_ok=True)
    agg = aggregate(saved["raw"])
    peer_lib, prefix = peers_in(agg)
    print("\n".join(plots(agg, out_dir, peer_lib, prefix, saved.get("peer_label"))))
    return 0


def doc_name(path):
    """MD_FILE as given from the checkout, else just its name."""
    rel = os.path.relpath(os.path.abspath(path), os.path.dirname(HERE))
    return os.path.basename(path) if rel.startswith("..") else rel


def rerender(args):
    """table.md, the plots and the document of a saved run; the text report
    is printed as at the end of the run."""
    with open(args.render) as f:
        res = json.load(f)
    out_dir = os.path.abspath(args.out or os.path.dirname(os.path.abspath(args.render)))
    os.makedirs(out_dir, exist_ok=True)
    report, md = render(res)
    agg = aggregate(res["raw"])
    peer_lib, prefix = peers_in(agg)
    pngs = plots(agg, out_dir, peer_lib, prefix, res.get("peer_label"))
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    if args.doc:
        doc.write_doc(args.doc, res, md, pngs, rendered_by="python3 bench/run.py --render RESULTS_JSON --doc "
                      + doc_name(args.doc))
    print("\n".join(report))
    print(f"\nWrote {os.path.join(out_dir, 'table.md')}"
          + (", " + ", ".join(os.path.basename(p) for p in pngs) if pngs else ""))
    return 0


def libraries(args, requested):
    """Shoal, the Open MPI peer (node-local only) and the --peer-prefix
    library (ofi modes only), each None when not run."""
    shoal = shoal_library(find_shoal_build(args))
    peer = None
    if not args.no_peer and "shm" not in requested:
        log("run.py: no shm mode asked for; the peer (compared in the shm table only) is not run")
    elif not args.no_peer:
        if os.path.exists(args.peer_oshcc) and os.path.exists(args.peer_oshrun) and is_open_mpi(args.peer_oshrun):
            peer = openmpi_library(args.peer_oshcc, args.peer_oshrun)
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
            else:
                log(f"run.py: --peer-prefix {args.peer_prefix} not usable: {why}")
    return shoal, peer, prefix_peer


def main(description):
    args = parse_args(description)
    if args.replot:
        return replot(args)
    if args.render:
        return rerender(args)
    reps = args.reps or (1 if args.quick else 5)
    timeout = args.timeout or (30 if args.quick else 120)
    args.build_dir = os.path.abspath(args.build_dir)
    out_dir = os.path.abspath(args.out or os.path.join(args.build_dir, "out"))
    os.makedirs(args.build_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    t_start = time.monotonic()
    load_start = os.getloadavg()
    crashed = []

    requested = requested_modes(args.mode, "run.py")
    shoal, peer, prefix_peer = libraries(args, requested)
    libs = [lib for lib in (shoal, peer, prefix_peer) if lib]
    hw_bins = build_all(libs, shoal, args.build_dir, crashed)
    modes, skipped_modes, chosen_provider = offered_modes(shoal, requested)
    peer_providers = confirm_peer_providers(prefix_peer, modes, args.build_dir, timeout)
    ofi_asked = [m for m in requested if m in OFI_MODES]
    hw_ofi_skipped = build_hw_ofi(ofi_asked, args.build_dir, hw_bins, crashed)
    raw, skips, failures = run_reps(args, reps, timeout, shoal, peer, prefix_peer, modes, skipped_modes,
                                    ofi_asked, hw_bins, crashed)

    # -- report: everything below is rebuilt from results.json alone (--render)
    res = {"date": doc.now(), "reps": reps, "quick": args.quick, "machine": doc.machine_summary(),
           "raw": raw, "skips": skips, "skipped_modes": skipped_modes, "modes": requested,
           "ofi_providers": chosen_provider, "peer_label": prefix_peer.label if prefix_peer else None,
           "peer_providers": peer_providers, "features": {lib.name: lib.features for lib in libs},
           "hw_ofi_skipped": hw_ofi_skipped, "hw_ofi_built": "hw_ofi" in hw_bins,
           "peer_failures": [list(f[:5]) for f in failures if f[0] != shoal.name],
           "command": command_line(), "seconds": round(time.monotonic() - t_start),
           "load": {"start": list(load_start), "end": list(os.getloadavg())}}
    report, md = render(res)
    agg = aggregate(raw)
    pngs = plots(agg, out_dir, peer.name if peer else None, PREFIX_PEER if prefix_peer else None,
                 prefix_peer.label if prefix_peer else None)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    if args.doc:
        doc.write_doc(args.doc, res, md, pngs)
    print("\n".join(report))
    print(f"\nWrote {os.path.join(out_dir, 'table.md')}, results.json"
          + (", " + ", ".join(os.path.basename(p) for p in pngs) if pngs else "")
          + f" in {time.monotonic() - t_start:.0f} s")
    if crashed:
        print("\nFAILED (crash, hang or build error on the Shoal side):\n  " + "\n  ".join(crashed))
        return 1
    return 0


def reexec_for_matplotlib(script):
    """The plots need matplotlib; a python3 first on PATH (pyenv, venv) may
    lack it while the system interpreter has it: rerun `script` under that one."""
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
                os.execv(cand, [cand, os.path.abspath(script)] + sys.argv[1:])

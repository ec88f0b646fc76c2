# SPDX-License-Identifier: BSD-3-Clause
"""Running the suite: build the programs for every library and the bound
programs, find which path modes this Shoal build and libfabric offer, then
run every repetition with Shoal and its peers interleaved (same machine
noise for both), each launch under a timeout, collecting every row."""

import concurrent.futures
import os

from .launch import log, remove_leftovers, run, shm_names
from .measure import parse_lines
from .peers import PREFIX_PEER, peer_provider
from .plan import CFLAGS, HERE, HW_OFI, HW_OFI_RANDOM, HW_PROGRAMS, NCORES, OFI_MODES, SHMEM_PROGRAMS, make_plan, \
    mode_env, with_env


def build_lib(lib, build_dir):
    """Compile every benchmark program against `lib`, with the BENCH_HAVE_*
    macros its probes found; returns the failures (one message each)."""
    bdir = os.path.join(build_dir, lib.name)
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


def build_all(libs, shoal, build_dir, crashed):
    """Every library's programs and the hardware-bound programs; returns
    the bound programs built (name -> path). A build failure on Shoal's
    side goes into `crashed`."""
    for lib in libs:
        fails = build_lib(lib, build_dir)
        have = [m.replace("BENCH_HAVE_", "") for m, ok in lib.features.items() if ok]
        log(f"run.py: built for {lib.name}; optional routines found: {', '.join(have) or 'none'}")
        for f in fails:
            log("run.py: BUILD FAILED " + f)
            if lib is shoal:
                crashed.append(f.splitlines()[0])
    hw_dir = os.path.join(build_dir, "hw")
    os.makedirs(hw_dir, exist_ok=True)
    hw_bins = {}
    for prog in HW_PROGRAMS:
        build_hw(prog, hw_dir, [], hw_bins, crashed)
    return hw_bins


def build_hw(prog, hw_dir, libs, hw_bins, crashed):
    """One hardware-bound program from bench/PROG.c into hw_bins; a build
    failure goes into `crashed`."""
    cc = [os.environ.get("CC", "cc")]
    exe = os.path.join(hw_dir, prog)
    st, out, err, _ = run(cc + CFLAGS + [os.path.join(HERE, prog + ".c"), "-o", exe] + libs, 120)
    if st == "ok":
        hw_bins[prog] = exe
    else:
        crashed.append(f"hw/{prog}: build {st}")
        log(f"run.py: BUILD FAILED hw/{prog}\n{out}{err}")


def offered_modes(shoal, requested):
    """Which requested modes this Shoal build and libfabric offer (shoal-info
    says which provider would be chosen). Returns (modes as (mode, env)
    pairs, skipped mode -> reason, ofi mode -> provider chosen)."""
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
    return modes, skipped_modes, chosen_provider


def confirm_peer_providers(prefix_peer, modes, build_dir, timeout):
    """The --peer-prefix library must run on the provider of each ofi mode:
    ofi mode -> {'verdict', 'evidence'} (peers.peer_provider)."""
    peer_providers = {}
    if prefix_peer:
        for m, env in modes:
            if m in OFI_MODES:
                verdict, evidence = peer_provider(prefix_peer, m, env, os.path.join(build_dir, PREFIX_PEER),
                                                  timeout)
                peer_providers[m] = {"verdict": verdict, "evidence": evidence}
                log(f"run.py: {prefix_peer.label} in {m}: provider {verdict} ({evidence})")
    return peer_providers


def build_hw_ofi(ofi_asked, build_dir, hw_bins, crashed):
    """The raw libfabric bounds (hw_ofi, hw_ofi_random), for the providers
    of the ofi modes asked for. Returns why they were skipped (libfabric's
    headers or library missing), or None."""
    if not ofi_asked:
        return None
    hw_dir = os.path.join(build_dir, "hw")
    cc = [os.environ.get("CC", "cc")]
    probe = os.path.join(hw_dir, "fabric_probe.c")
    with open(probe, "w") as f:
        f.write("#include <rdma/fabric.h>\n#include <rdma/fi_rma.h>\n#include <rdma/fi_atomic.h>\n"
                "int main(void) { return (int)fi_version() == 0; }\n")
    st, out, err, _ = run(cc + [probe, "-o", probe[:-2], "-lfabric"], 60)
    if st != "ok":
        why = ("libfabric headers or library not found (rdma/fabric.h, -lfabric): "
               + (err.strip().splitlines() or [st])[0])
        log(f"run.py: {HW_OFI} and {HW_OFI_RANDOM} skipped: {why}; the ofi tables have no bound")
        return why
    for prog in (HW_OFI, HW_OFI_RANDOM):
        build_hw(prog, hw_dir, ["-lfabric"], hw_bins, crashed)
    return None


def run_reps(args, reps, timeout, shoal, peer, prefix_peer, modes, skipped_modes, ofi_asked, hw_bins, crashed):
    """Every repetition: the bounds, then each program with Shoal in every
    mode and its peers right after it. Returns (rows, skip notes,
    failures as (lib, mode, prog, npes, status, stderr tail))."""
    jobs, hw_jobs, hw_ofi_argv, hw_ofi_random_runs = make_plan(args)
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
        for mode in ofi_asked:
            if HW_OFI_RANDOM not in hw_bins or (only and HW_OFI_RANDOM not in only):
                continue
            prov = OFI_MODES[mode]
            for npes, argv in hw_ofi_random_runs:
                label = f"hw/{HW_OFI_RANDOM} --provider {prov} --np {npes}"
                shm_before = shm_names()
                st, out, err, dt = run([hw_bins[HW_OFI_RANDOM], "--provider", prov] + argv, timeout,
                                       env=with_env(os.environ, {"FI_PROVIDER": prov}))
                left = remove_leftovers(shm_before)
                rows, sk = parse_lines(out, lib="hw", mode=mode, rep=rep)
                raw += rows
                if rep == 0:
                    skips += sk
                log(f"run.py: rep {rep + 1}/{reps} {label}: {st}, {len(rows)} rows, {dt:.1f} s")
                if left:
                    log(f"run.py: {label} left {len(left)} name(s) in /dev/shm (removed): {' '.join(left[:8])}")
                if st != "ok":
                    crashed.append(f"{label}: {st}")
                    log(f"run.py: {label} {st}: {err[-1000:]}")
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
                cmd = lib.launch(npes, [lib.binaries[prog]] + argv, mode=mode)
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
    return raw, skips, failures

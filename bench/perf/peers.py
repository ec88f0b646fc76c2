# SPDX-License-Identifier: BSD-3-Clause
"""The libraries compared: Shoal (a meson build of this checkout), Open
MPI's OSHMEM (the node-local peer) and any OpenSHMEM installed under a
prefix (--peer-prefix, e.g. Sandia OpenSHMEM over the same libfabric):
how each compiles, links and launches, and which libfabric provider the
prefix library really opens in an ofi mode."""

import concurrent.futures
import json
import os
import sys

from .launch import log, run
from .plan import CFLAGS, FEATURE_PROBES, NCORES, OFI_MODES, REPO, with_env

class Library:
    """How to compile against and launch one OpenSHMEM implementation."""

    def __init__(self, name, cc, cflags, ldflags, launch_prefix, env=None, bind=True, mode_args=None):
        self.name = name
        self.bind = bind  # the launcher takes Open MPI's --bind-to
        # Path mode -> the launcher's extra arguments: how a library that
        # ignores SHMEM_TRANSPORT and FI_PROVIDER takes the same path.
        self.mode_args = mode_args or {}
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

    def launch(self, npes, argv, bind_to=None, mode=None):
        """The launch command in path mode `mode`; PEs bound to a core each
        when they fit, unless `bind_to` says otherwise ("none" under taskset)."""
        bind_to = bind_to or ("core" if npes <= NCORES else "none")
        return self.launch_prefix(npes) + (["--bind-to", bind_to] if self.bind else []) + \
            self.mode_args.get(mode, []) + argv


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


# Open MPI's OSHMEM goes through UCX, not libfabric: in ofi-tcp its UCX is
# confined to the tcp transport (and self), so it too crosses the kernel's
# TCP stack (UCX_LOG_LEVEL=info then shows "rma_am(tcp/lo) amo_am(tcp/lo)";
# unconfined, "sysv/memory posix/memory"). In ofi-shm it keeps its own
# shared-memory transports.
OPENMPI_MODE_ARGS = {"ofi-tcp": ["-x", "UCX_TLS=tcp,self"]}


def openmpi_library(oshcc, oshrun):
    return Library("openmpi", [oshcc], [], [],
                   lambda n: [oshrun, "--allow-run-as-root", "--oversubscribe", "--mca", "osc", "ucx",
                              "-n", str(n)],
                   env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
                   mode_args=OPENMPI_MODE_ARGS)


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


# SPDX-License-Identifier: BSD-3-Clause
"""The PNG plots of one run (matplotlib, if installed): latency and
bandwidth by size, AMO latency by kind, collective latency by PE count."""

import math
import os

from .launch import log
from .measure import hw_bounds
from .plan import NCORES, OFI_MODES
from .tables import size_label

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

    # Every PE issuing to random PEs (app_patterns): rate per PE by PE
    # count, against raw libfabric doing the same (hw_ofi_random); and
    # all-to-all time per call.
    panels = [(op, "rate_Mops", 8) for op in ("random_g", "random_put_w64", "random_put_w1024", "random_add")]
    a2a = sorted({k[2] for d in agg.values() for k in d if k[0] == "pattern" and k[1] in ("alltoall", "team_alltoall")})
    panels += [("alltoall", "lat_ns", size) for size in sorted({a2a[0], a2a[-1]})] if a2a else []
    if any(k[0] == "pattern" for d in agg.values() for k in d):
        fig, axes = plt.subplots(1, len(panels), figsize=(2.6 * len(panels), 2.8), squeeze=False)
        for ax, (op, metric, size) in zip(axes[0], panels):
            for lib, mode, label, style in series_libs:
                for o in ([op, "team_alltoall"] if op == "alltoall" else [op]):
                    x, y = series(lib, mode, "pattern", o, metric, by="npes", size=size)
                    if x:
                        ax.plot(x, y, style, ms=3, alpha=1.0 if o == op else 0.5,
                                label=label + (" (team)" if o != op else ""), color=colour[(lib, mode)])
            for m in raw_modes:
                x, y = series("hw", m, "hw_ofi_random", op, metric, by="npes", size=size)
                if x:
                    ax.plot(x, y, ":", color=colour[("shoal", m)], label=f"raw libfabric {OFI_MODES[m]} (bound)")
            ax.axvline(NCORES + 0.5, color="gray", lw=0.6)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(op + (f" {size_label(size)} a pair" if metric == "lat_ns" else ""), fontsize=9)
            ax.set_xlabel("PEs", fontsize=8)
            ax.set_ylabel("ns per call (median)" if metric == "lat_ns" else "Mop/s per PE (median)", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
        legend(axes[0][0], 6)
        save(fig, "patterns.png")

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


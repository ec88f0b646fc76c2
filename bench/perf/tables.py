# SPDX-License-Identifier: BSD-3-Clause
"""Tables of one run, as text (the terminal report) or markdown: every
row per mode against its bound and its peer, the key rows, the bounds
themselves, memory per PE, what quiet guarantees, and DESIGN.md §7's
targets evaluated on the run."""

from .measure import (HIGHER_IS_BETTER, bound_for, hw_bounds, ofi_bound_for, ofi_raw, time_ratio,
                      two_line_rtt)
from .plan import NCORES, OFI_MODES

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


UNITS = {"lat_ns": "ns", "bw_GBps": "GB/s", "rate_Mops": "Mop/s", "agg_rate_Mops": "Mop/s, all PEs", "kB": "kB",
         "count": ""}
# Where every PE issues (app_patterns), a rate is each PE's.
PER_PE_UNITS = {"rate_Mops": "Mop/s per PE"}
RAW_PATTERN_UNITS = {"rate_Mops": "Mop/s per process", "agg_rate_Mops": "Mop/s, all processes"}

SECTION_ORDER = ["rma_lat", "rma_bw", "amo_lat", "signal", "coll", "pattern", "mem"]


def row_name(key):
    bench, op, size, npes, metric = key
    parts = [op]
    if bench in ("rma_lat", "rma_bw", "signal", "coll", "pattern") and size:
        parts.append(size_label(size))
    if bench in ("coll", "mem", "pattern"):
        parts.append(f"{npes} PEs" + (" (oversub.)" if npes > NCORES else ""))
    unit = (PER_PE_UNITS if bench == "pattern" else {}).get(metric) or UNITS.get(metric, metric)
    return f"{bench}: " + " ".join(parts) + (f" [{unit}]" if unit else "")


OP_ORDER = ["p", "g", "p_roundtrip", "putmem", "getmem", "put_bw", "put_nbi_bw", "get_bw", "get_nbi_bw",
            "put_rate", "get_rate", "fetch_add", "fetch_inc", "compare_swap", "swap", "fetch", "fetch_and",
            "fetch_or", "fetch_xor", "add", "inc", "set", "and", "or", "xor", "add_int", "add_nq", "inc_nq",
            "add_int_nq",
            "fetch_add_roundtrip", "barrier_all", "sync_all", "sync", "team_sync", "broadcast", "team_broadcast",
            "fcollect", "team_fcollect", "alltoall", "team_alltoall", "sum_reduce", "team_sum_reduce",
            "random_g", "random_put_w64", "random_put_w1024", "random_add"]
METRIC_ORDER = ["lat_ns", "rate_Mops", "agg_rate_Mops", "bw_GBps"]


def row_order(k):
    bench, op, size, npes, metric = k
    return (SECTION_ORDER.index(bench) if bench in SECTION_ORDER else 99, bench,
            size if bench == "coll" else 0,
            OP_ORDER.index(op) if op in OP_ORDER else 99, op,
            METRIC_ORDER.index(metric) if metric in METRIC_ORDER else 99, metric, npes, size)


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
    # hw_ofi's two-process rows, then hw_ofi_random's by pattern and process count.
    for k in sorted(raw, key=lambda k: (k[0] != "hw_ofi", order.get(k[1], 9), k[1], k[4], k[3], k[2])):
        if k[0] == "hw_ofi":
            name = k[1] + (f" {size_label(k[2])}" if k[1] in ("put", "get", "put_bw", "get_bw") else "")
            unit = UNITS.get(k[4], k[4])
        else:
            name = f"{k[1]}, {k[3]} processes" + (" (oversub.)" if k[3] > NCORES else "")
            unit = RAW_PATTERN_UNITS.get(k[4]) or UNITS.get(k[4], k[4])
        body.append([name, stat_cell(raw[k]), unit])
    if markdown:
        return ["| " + " | ".join(head) + " |", "|---|---:|---|"] + ["| " + " | ".join(b) + " |" for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(3)]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head] + body]


# ---------------------------------------------------------------- key rows

# The key rows, OSU-style at 2 PEs: label, bench, op, size
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
    """The key rows of one mode: Shoal, the peer, the bound, and the
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


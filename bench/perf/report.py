# SPDX-License-Identifier: BSD-3-Clause
"""One run's report, rebuilt from its saved results (results.json) alone,
so a run can be re-rendered without rerunning it: the text printed at the
end of a run, the markdown of table.md (every table of the run), and the
one-page summary of the key rows against each peer as ratios."""

import statistics

from .measure import aggregate, hw_bounds, two_line_rtt
from .peers import PREFIX_PEER
from .plan import HW_OFI, HW_OFI_RANDOM, OFI_MODES
from .tables import (build_table, fmt, hw_lines, key_lines, memory_lines, ofi_raw_lines, ofi_target_checks,
                     quiet_lines, table_lines, target_checks, UNITS)

PEER_NAME = "OpenMPI"  # the node-local peer's column name
KEY_NOTE = ("_Median over repetitions. Ratios are of time per operation (for the message-rate row, the "
            "inverse of the rate ratio): above 1 means the first named is slower._")


class Run:
    """What a report needs to know about a run, read from its results."""

    def __init__(self, res):
        self.res = res
        self.raw = res["raw"]
        self.agg = aggregate(self.raw)
        self.reps = res.get("reps", 1)
        self.requested = res.get("modes") or sorted({r["mode"] for r in self.raw if r["lib"] == "shoal"})
        self.skipped_modes = res.get("skipped_modes", {})
        self.modes = [m for m in self.requested if m not in self.skipped_modes]
        self.ofi_asked = [m for m in self.requested if m in OFI_MODES]
        self.chosen_provider = res.get("ofi_providers", {})
        self.peer_providers = res.get("peer_providers", {})
        libs = set(res.get("features", {})) | {r["lib"] for r in self.raw}
        self.peer = "openmpi" if "openmpi" in libs else None
        self.prefix = PREFIX_PEER if PREFIX_PEER in libs else None
        self.prefix_label = res.get("peer_label") or ("peer" if self.prefix else None)
        self.hw_ofi_skipped = res.get("hw_ofi_skipped")
        self.hw_ofi_built = res.get("hw_ofi_built", any(r.get("bench") == HW_OFI for r in self.raw))

    def peer_of(self, mode):
        """(results key, column name) of the peer compared in `mode`: Open
        MPI (over UCX) node-local, the --peer-prefix library on the ofi
        modes; (None, None) if it was not run."""
        if mode in OFI_MODES:
            return (self.prefix, self.prefix_label) if self.prefix else (None, None)
        return (self.peer, PEER_NAME) if self.peer else (None, None)

    def rows(self, mode):
        peer, _ = self.peer_of(mode)
        return build_table(self.agg, mode, peer, mode if mode in OFI_MODES else "shm")


def render(res):
    """(text report lines, table.md lines) of a run's results."""
    run = Run(res)
    agg, reps = run.agg, run.reps
    report, md = [], []
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
    report += [""] + hw_lines(agg)
    md += ["#### Hardware bounds", ""] + hw_lines(agg, True) + [""]
    # Raw libfabric, per provider of the ofi modes asked for.
    raw_info = {}
    for r in run.raw:
        if r.get("bench") in (HW_OFI, HW_OFI_RANDOM) and r["mode"] not in raw_info:
            raw_info[r["mode"]] = r
    for mode in run.ofi_asked:
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
    for mode in run.modes:
        ofi = mode in OFI_MODES
        mode_peer, mode_peer_name = run.peer_of(mode)
        rows = run.rows(mode)
        prov = run.chosen_provider.get(mode, OFI_MODES.get(mode))
        if ofi:
            pp = run.peer_providers.get(mode, {})
            title = (f"Shoal ({mode} path: SHMEM_TRANSPORT=ofi FI_PROVIDER={OFI_MODES[mode]}, provider {prov}) "
                     f"vs raw libfabric on the same provider; "
                     + (f"peer: {mode_peer_name}, same FI_PROVIDER, provider "
                        f"{pp.get('verdict', '?')} ({pp.get('evidence', '')})" if mode_peer else
                        f"{PEER_NAME} peer: not applicable (it uses UCX, not libfabric)"))
            if not run.hw_ofi_built:
                title += f"; no raw bound ({run.hw_ofi_skipped or 'hw_ofi not built'})"
            ktitle = (f"Key rows, {mode} (provider {prov}): Shoal, {mode_peer_name or 'no peer'}"
                      + (f" (its provider: {run.peer_providers[mode]['verdict']})"
                         if mode in run.peer_providers else "")
                      + ", raw libfabric")
            kbound = "raw"
        else:
            title = f"Shoal ({mode} path) vs bound vs {PEER_NAME if mode_peer else '(no peer)'}"
            ktitle = f"Key rows, {mode} (Shoal's default node-local path): Shoal, {mode_peer_name or 'no peer'}"
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
        checks = ofi_target_checks(rows, prov) if ofi else target_checks(rows, PEER_NAME)
        report += ["", f"DESIGN.md §7 targets ({mode} path):"]
        report += [f"  {verdict:8s} {label}: {figure}" if not verdict.startswith("MISSED:")
                   else f"  MISSED   {label}: {figure}\n           slower rows: {verdict[8:]}"
                   for label, figure, verdict in checks]
        md += [f"#### DESIGN.md §7 targets ({mode} path)", "", "| target | this run | verdict |", "|---|---|---|"]
        md += [f"| {label} | {figure} | {verdict} |" for label, figure, verdict in checks]
        md.append("")
    skips = res.get("skips", [])
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
    for m, why in run.skipped_modes.items():
        report.append(f"Mode {m} skipped: {why}")
        md.append(f"* mode {m} skipped: {why}")
    if run.hw_ofi_skipped:
        report.append(f"{HW_OFI} skipped: {run.hw_ofi_skipped}")
        md.append(f"* {HW_OFI} skipped: {run.hw_ofi_skipped}")
    for lib, mode, prog, npes, status in res.get("peer_failures", []):
        report.append(f"Peer failure (not fatal): {lib}/{mode} {prog} -n {npes}: {status}")
        md.append(f"* peer failure: {prog} on {npes} PEs: {status}")

    md = key_md + [KEY_NOTE, "", "### Every row of the run", ""] + md
    report = key_report + ["", KEY_NOTE.strip("_")] + report
    return report, md


# ---------------------------------------------------------------- the summary page

# The OSU-equivalent rows of the summary: label, bench, ops (the first one
# measured by both sides of a comparison is taken: the active-set form of
# a collective first, as the 1.4 peers have no team form), size (None:
# any), PE count.
SUMMARY_ROWS = [
    ("put latency 8 B (putmem + quiet)", "rma_lat", ["putmem"], 8, 2),
    ("get latency 8 B (getmem)", "rma_lat", ["getmem"], 8, 2),
    ("put bandwidth 1 MiB (putmem)", "rma_bw", ["put_bw"], 1 << 20, 2),
    ("get bandwidth 1 MiB (getmem)", "rma_bw", ["get_bw"], 1 << 20, 2),
    ("message rate 8 B (put_nbi, windows of 64)", "rma_bw", ["put_rate"], 8, 2),
    ("atomic add, back to back + one quiet", "amo_lat", ["add_nq"], None, 2),
    ("atomic add + quiet each", "amo_lat", ["add"], None, 2),
    ("atomic fetch-add", "amo_lat", ["fetch_add"], None, 2),
    ("atomic compare-swap", "amo_lat", ["compare_swap"], None, 2),
    ("barrier_all, 2 PEs", "coll", ["barrier_all"], None, 2),
    ("barrier_all, 4 PEs", "coll", ["barrier_all"], None, 4),
    ("barrier_all, 8 PEs", "coll", ["barrier_all"], None, 8),
    ("broadcast 8 B (active set), 4 PEs", "coll", ["broadcast", "team_broadcast"], 8, 4),
    ("broadcast 8 B (active set), 8 PEs", "coll", ["broadcast", "team_broadcast"], 8, 8),
    ("sum_to_all 8 B (active set), 4 PEs", "coll", ["sum_reduce", "team_sum_reduce"], 8, 4),
    ("sum_to_all 8 B (active set), 8 PEs", "coll", ["sum_reduce", "team_sum_reduce"], 8, 8),
    # Every PE issuing to random other PEs (app_patterns), per PE.
    ("random adds (GUPS), 2 PEs, rate per PE", "pattern", ["random_add"], 8, 2),
    ("random adds (GUPS), 8 PEs, rate per PE", "pattern", ["random_add"], 8, 8),
    ("random 8 B gets (shmem_g), 8 PEs, rate per PE", "pattern", ["random_g"], 8, 8),
    ("random 8 B put_nbi, a quiet per 1024, 8 PEs, rate per PE", "pattern", ["random_put_w1024"], 8, 8),
    ("all-to-all 8 B a pair (active set), 8 PEs", "pattern", ["alltoall", "team_alltoall"], 8, 8),
]


def _pick(rows, bench, ops, size, npes, need=None):
    """The row of the first of `ops` measured (and for which `need(row)`
    holds, if given): a comparison takes a form both libraries have."""
    for op in ops:
        for r in rows:
            k = r["key"]
            if k[0] == bench and k[1] == op and (size is None or k[2] == size) and k[3] == npes and \
                    r["shoal"] and (need is None or need(r)):
                return r
    return None


def _other(r, which):
    return (r["peer"] or {}).get("median") if which == "peer" else r["bound"]


def _ratio_cell(values):
    """median [min–max] of per-repetition ratios; '—' if none."""
    if not values:
        return "—"
    m = statistics.median(values)
    if len(values) > 1:
        return f"{fmt(m)} [{fmt(min(values))}–{fmt(max(values))}]"
    return fmt(m)


def _value_cell(r):
    """Shoal's median [min–max] of a row, with its unit."""
    if not r or not r["shoal"]:
        return "—"
    s, metric = r["shoal"], r["key"][4]
    if metric == "lat_ns":
        scale, unit = (1e3, "µs") if s["median"] >= 1e3 else (1, "ns")
    else:
        scale, unit = 1, UNITS.get(metric, metric)
    rng = f" [{fmt(s['min'] / scale)}–{fmt(s['max'] / scale)}]" if s["n"] > 1 else ""
    return f"{fmt(s['median'] / scale)}{rng} {unit}"


def summary_lines(res):
    """The summary page's tables (markdown): per key row, Shoal's time over
    each peer's and over the bound, as the median [min–max] over
    repetitions of the ratio within each repetition (Shoal and the peer
    ran one after the other in it); then Shoal's own figures."""
    run = Run(res)
    by_rep = {}
    for r in run.raw:
        by_rep.setdefault(r.get("rep", 0), []).append(r)
    rep_runs = [Run(dict(res, raw=rows)) for _, rows in sorted(by_rep.items())]
    # Columns: (mode, label of the comparison, which: 'peer' or 'bound').
    cols = []
    for mode in run.modes:
        peer, peer_name = run.peer_of(mode)
        where = "node-local" if mode == "shm" else f"{mode}"
        if peer:
            cols.append((mode, f"{where}: Shoal / {peer_name}", "peer"))
        cols.append((mode, f"{where}: Shoal / " + ("raw libfabric" if mode in OFI_MODES else "hw bound"), "bound"))
    tables = {mode: run.rows(mode) for mode in run.modes}
    rep_tables = [{mode: rr.rows(mode) for mode in run.modes} for rr in rep_runs]

    head = ["row"] + [c[1] for c in cols]
    ratio_body, value_body = [], []
    for label, bench, ops, size, npes in SUMMARY_ROWS:
        cells = [label]
        for mode, _, which in cols:
            vals = []
            for t in rep_tables:
                r = _pick(t[mode], bench, ops, size, npes, need=lambda r: _other(r, which))
                if r:
                    s, other = r["shoal"]["median"], _other(r, which)
                    vals.append(other / s if r["higher_is_better"] else s / other)
            cells.append(_ratio_cell(vals))
        ratio_body.append(cells)
        vcells = [label]
        for mode in run.modes:
            r = _pick(tables[mode], bench, ops, size, npes)
            vcells.append(_value_cell(r))
        value_body.append(vcells)
    # Rows nothing measured (e.g. 8 PEs in a quick run) are left out.
    keep = [i for i, b in enumerate(ratio_body) if any(c != "—" for c in b[1:] + value_body[i][1:])]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    lines += ["| " + " | ".join(ratio_body[i]) + " |" for i in keep]
    vhead = ["row (Shoal alone)"] + [("node-local" if m == "shm" else m) for m in run.modes]
    vlines = ["| " + " | ".join(vhead) + " |", "|" + "|".join(["---"] + ["---:"] * len(run.modes)) + "|"]
    vlines += ["| " + " | ".join(value_body[i]) + " |" for i in keep]
    return lines, vlines

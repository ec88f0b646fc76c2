# SPDX-License-Identifier: BSD-3-Clause
"""From program output to figures: the JSON lines each program prints,
grouped into median, min and max over repetitions, and the bound each
row is compared with (hardware bounds node-local, raw libfabric on the
network path)."""

import json
import math
import statistics


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


HIGHER_IS_BETTER = {"bw_GBps", "rate_Mops", "agg_rate_Mops"}


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
# app_patterns' rows that hw_ofi_random also measures.
RANDOM_PATTERNS = {"random_g", "random_put_w64", "random_put_w1024", "random_add"}
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
    if bench == "pattern" and op in RANDOM_PATTERNS:
        # The same streams, batches and checks on raw libfabric, as many processes.
        v = raw.get(("hw_ofi_random", op, size, npes, metric))
        return (v["median"] if v else None), "raw, same pattern"
    if bench == "rma_bw" and metric == "rate_Mops" and op == "put_rate":
        v = raw.get(("hw_ofi", "put_rate", 8, 2, "rate_Mops"))
        return (v["median"] if v else None), "raw 8 B puts, windowed"
    if bench == "rma_bw" and metric == "bw_GBps":
        if op in ("put_bw", "put_nbi_bw"):
            return bw("put_bw", size), "raw put bw"
        if op in ("get_bw", "get_nbi_bw"):
            return bw("get_bw", size), "raw get bw"
    return None, ""

def time_ratio(a, b, higher_is_better):
    """a / b as a ratio of time per operation (> 1: a is slower)."""
    if a is None or b is None or not a or not b:
        return None
    return b / a if higher_is_better else a / b


#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/run.py — build and run Shoal's benchmark suite in one command.

    python3 bench/run.py [BUILD_DIR] [--quick] [--reps N] [--out DIR]
                         [--shoal-build DIR] [--mode shm,ofi-tcp,ofi-shm] [--no-peer]
                         [--peer-prefix DIR [--peer-env K=V ...]] [--doc MD_FILE]
    python3 bench/run.py --replot RESULTS_JSON [--out DIR]
    python3 bench/run.py --render RESULTS_JSON [--out DIR] [--doc MD_FILE]

* Builds the benchmark programs (bench/*.c) twice: against Shoal and against
  the peer implementation (Open MPI's OSHMEM, through its oshcc), plus the
  hardware-bound programs with the plain C compiler: hw_memcpy and hw_rtt
  (the node-local bounds) and hw_ofi and hw_ofi_random (raw libfabric,
  linked with -lfabric: the network-path bounds; skipped, with the reason
  logged, when libfabric's headers are missing). Routines that appeared after OpenSHMEM 1.4 are used
  only when a compile-and-link test against that library passes
  (BENCH_HAVE_* macros).
* Path modes (--mode, comma separated): `shm` (Shoal's default node-local
  path), `ofi-tcp` (SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp: every PE, this one
  included, through libfabric's tcp;ofi_rxm) and `ofi-shm`
  (SHMEM_TRANSPORT=ofi FI_PROVIDER=shm); `ofi` means both ofi modes. An ofi
  mode is skipped, with the reason, when the Shoal build or libfabric does
  not offer it (shoal-info says which provider would be chosen).
* Runs everything REPS times, interleaving Shoal and the peer so both see
  the same machine noise, each launch under a timeout that kills its whole
  process tree. hw_ofi runs once per repetition for each provider of the
  ofi modes asked for, hw_ofi_random once per provider and process count
  that app_patterns (every PE issuing to random PEs) runs at.
* Prints one table per mode: per row the median, min and max over the
  repetitions, the bound measured in the same run and the ratio to it. In
  the shm table the bounds are the memcpy / cache-line figures and the
  peer's figures follow with the Shoal / peer ratio. In the ofi tables the
  bound is raw libfabric on the same provider (hw_ofi: put/putmem rows vs
  raw put of the same size, get/getmem vs raw get, p vs put 8 B, g vs get
  8 B, fetching AMOs vs raw fetch-add, non-fetching AMOs + quiet vs raw add,
  add_nq/inc_nq (back to back, one quiet) vs raw adds back to back,
  put/get bandwidth at 1 MiB vs raw windowed bandwidth; hw_ofi_random:
  app_patterns' random rows vs the same pattern raw), and Open MPI is
  not compared there: its OSHMEM uses UCX, not libfabric. Writes
  results.json, table.md (a markdown fragment) and PNG plots to the output
  directory.
* --peer-prefix DIR adds another installed OpenSHMEM (any implementation
  with DIR/bin/oshcc and DIR/bin/oshrun, e.g. Sandia OpenSHMEM built over
  the same libfabric) to the ofi tables: its programs are built with its
  oshcc, launched with its oshrun under the same FI_PROVIDER (and
  SHMEM_TRANSPORT=ofi, which it may ignore), interleaved with Shoal's
  runs, and each ofi table gains its median [min-max] and Shoal / peer.
  Before the runs, a 2-PE probe per ofi mode checks which provider it
  really opened (SHMEM_DEBUG's "provider:" line, else libfabric's log).
* The output starts with the key rows per mode (OSU-style at 2 PEs:
  Shoal, the peer, raw libfabric or the hardware bound, and the three
  time ratios). --doc MD_FILE writes the summary page (the key rows
  against each peer as ratios) between '<!-- run.py begin -->' and
  '<!-- run.py end -->' in MD_FILE, every table into perf/tables.md
  beside it, and the plots into that perf/. --render RESULTS_JSON does
  the same from a saved run, without building or running anything.

Exit status: 0 unless something crashed or hung on the Shoal side (a build
failure, a Shoal or bound program failing, in any mode that was not
skipped). Timings are never asserted; a failing peer is reported, not
fatal. Skipped modes (the library or libfabric does not offer the path) are
reported, not fatal.

The code is in bench/perf/, one module per concern: plan (what to run),
launch (processes, timeouts, leftovers in /dev/shm), peers (the libraries
and how each builds and launches), suite (building and the interleaved
repetitions), measure (parsing, medians and ranges, bounds), tables,
report (a run's report from its results alone), plots, doc (writing the
documents) and cli (the options); compare is bench/compare.py's engine.
bench/README.md lists every program with what it measures.
"""


import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perf.cli import main, reexec_for_matplotlib  # noqa: E402

if __name__ == "__main__":
    reexec_for_matplotlib(__file__)
    sys.exit(main(__doc__.split("\n\n")[0]))

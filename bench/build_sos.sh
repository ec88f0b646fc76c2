#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Build Sandia OpenSHMEM (SOS) as a comparison peer for bench/run.py --peer-prefix.
# Nothing of SOS is part of Shoal: this only configures and installs a checkout.
#
#   bench/build_sos.sh SRC_DIR PREFIX
#
# SRC_DIR: an SOS source tree (git clone --recurse-submodules, or an archive of a
# tag with modules/tests-sos filled in: autogen.sh refuses to run without it).
# PREFIX:  where bin/oshcc and bin/oshrun end up.
#
# It uses Debian's libfabric (the same one Shoal uses) and PMIx (launcher: Open
# MPI's mpirun), so both libraries talk to the same provider code.
# Needs: apt-get install -y autoconf automake libtool libfabric-dev libpmix-dev
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 SRC_DIR PREFIX" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
prefix=$2
jobs=${JOBS:-2}

if [ ! -f "$src/modules/tests-sos/test/Makefile.am" ]; then
    echo "$0: $src/modules/tests-sos is empty; fetch the tests-sos submodule first" >&2
    exit 1
fi

# Debian installs PMIx under its own directory (pmix2), not /usr/include.
pmix=/usr/lib/x86_64-linux-gnu/pmix2
if [ ! -f "$pmix/include/pmix.h" ]; then
    pmix=/usr
fi

cd "$src"
[ -x configure ] || ./autogen.sh >autogen.log 2>&1

# --with-ofi=/usr: the system libfabric (1.17 on Debian 12).
# --with-pmix: PMIx, so Open MPI's mpirun launches SOS jobs as it does Shoal's.
# --enable-hard-polling: without it SOS asks libfabric for FI_RMA_EVENT
#   (target-side counters to sleep on in waits), which neither tcp;ofi_rxm
#   nor shm offers in libfabric 1.17: shmem_init fails with "OFI transport
#   did not find any valid fabric services". Waits then poll memory.
# --enable-ofi-manual-progress: both providers have manual data progress
#   only; SOS asks for FI_PROGRESS_AUTO unless told.
# --enable-manual-progress: SOS then drives libfabric's progress while it
#   waits; without it a PE polling memory in a barrier never applies the
#   atomics aimed at it (rxm and shm apply them in software), and a 2-PE
#   add + barrier hangs.
# --disable-fortran: the comparison is C only.
# Everything else stays at SOS's defaults (inject, bounce buffers,
# non-fetching AMOs, fi_cntr_wait for completion).
./configure --prefix="$prefix" \
    --with-ofi=/usr \
    --with-pmix="$pmix" \
    --with-oshrun-launcher=mpirun \
    --enable-hard-polling \
    --enable-ofi-manual-progress \
    --enable-manual-progress \
    --disable-fortran \
    >configure.log 2>&1 || { tail -30 configure.log; exit 1; }
make -j"$jobs" >make.log 2>&1 || { tail -30 make.log; exit 1; }
make install >install.log 2>&1 || { tail -30 install.log; exit 1; }
echo "SOS installed in $prefix: $(ls "$prefix/bin" | tr '\n' ' ')"

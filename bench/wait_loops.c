/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/wait_loops.c — loops whose time is all waiting: what a PE pays
 * for each wait, on a quiet node or one whose CPUs other programs keep
 * busy (bench/compare.py --foreign K). Standard OpenSHMEM only.
 *
 *   wait_loops [pingpong] [barrier] [fadd] [--reps N]   (none named: all three)
 *
 * pingpong  PE pairs (0,1), (2,3), ...: N round trips of shmem_long_put of
 *           one word + shmem_long_wait_until, no quiet (as the public
 *           "sping" example does); row "pingpong": µs a round trip, the
 *           slowest pair's. An odd PE out waits in the barrier after.
 * barrier   N/10 shmem_barrier_all; row "barrier": µs a barrier.
 * fadd      every PE N/10 fetch-adds to its right neighbour's counter;
 *           row "fetch_add": µs an operation, the slowest PE's.
 * Default N: 10000. Every received value and every counter is checked:
 * a wrong one ends the job (shmem_global_exit(1)).
 */
#include "common.h"

#include <shmem.h>

static long ball, counter;
static double slowest_us;

/* The slowest PE's figure (the 1.4 reduction, which Open MPI 4.1's
 * OSHMEM has too). */
static double slowest(double mine)
{
    static double in, pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    static long psync[SHMEM_REDUCE_SYNC_SIZE];

    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    in = mine;
    shmem_barrier_all();
    shmem_double_max_to_all(&slowest_us, &in, 1, 0, 0, shmem_n_pes(), pwrk, psync);
    return slowest_us;
}

static void pingpong(long reps)
{
    int me = shmem_my_pe(), peer = me ^ 1;
    double t0, us = 0;

    ball = 0;
    shmem_barrier_all();
    t0 = bench_now_ns();
    if (peer < shmem_n_pes()) {
        for (long r = 1; r <= reps; r++) {
            if (me & 1) {
                shmem_long_wait_until(&ball, SHMEM_CMP_EQ, r);
                shmem_long_p(&ball, r, peer);
            } else {
                shmem_long_p(&ball, r, peer);
                shmem_long_wait_until(&ball, SHMEM_CMP_EQ, r);
            }
        }
        us = (bench_now_ns() - t0) / 1e3 / (double)reps;
    }
    shmem_quiet();
    us = slowest(us);
    if (ball != (peer < shmem_n_pes() ? reps : 0)) {
        fprintf(stderr, "wait_loops: PE %d: ball %ld, expected %ld\n", me, ball, reps);
        shmem_global_exit(1);
    }
    if (me == 0)
        bench_emit("wait_loops", "pingpong", 8, shmem_n_pes(), "lat_us", us, NULL);
}

static void barriers(long n)
{
    double t0;

    shmem_barrier_all();
    t0 = bench_now_ns();
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
    double us = slowest((bench_now_ns() - t0) / 1e3 / (double)n);
    if (shmem_my_pe() == 0)
        bench_emit("wait_loops", "barrier", 0, shmem_n_pes(), "lat_us", us, NULL);
}

static void fetch_adds(long n)
{
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    long last = -1;
    double t0;

    counter = 0;
    shmem_barrier_all();
    t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        long got = shmem_long_atomic_fetch_add(&counter, 1, right);
        /* Only this PE adds to its right neighbour's counter. */
        if (got != last + 1) {
            fprintf(stderr, "wait_loops: PE %d: fetch-add %ld fetched %ld, expected %ld\n", me, i, got, last + 1);
            shmem_global_exit(1);
        }
        last = got;
    }
    double us = slowest((bench_now_ns() - t0) / 1e3 / (double)n);
    if (counter != n) {
        fprintf(stderr, "wait_loops: PE %d: counter %ld, expected %ld\n", me, counter, n);
        shmem_global_exit(1);
    }
    if (me == 0)
        bench_emit("wait_loops", "fetch_add", 8, shmem_n_pes(), "lat_us", us, NULL);
}

int main(int argc, char **argv)
{
    int want_pp = 0, want_bar = 0, want_fadd = 0;
    long reps = 10000;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "pingpong"))
            want_pp = 1;
        else if (!strcmp(argv[i], "barrier"))
            want_bar = 1;
        else if (!strcmp(argv[i], "fadd"))
            want_fadd = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atol(argv[i + 1]) >= 10)
            reps = atol(argv[++i]);
        else {
            fprintf(stderr, "wait_loops: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!want_pp && !want_bar && !want_fadd)
        want_pp = want_bar = want_fadd = 1;
    shmem_init();
    if (want_pp && shmem_n_pes() >= 2)
        pingpong(reps);
    if (want_bar)
        barriers(reps / 10);
    if (want_fadd)
        fetch_adds(reps / 10);
    shmem_finalize();
    return 0;
}

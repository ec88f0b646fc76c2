/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/amo_lat.c — latency of every AMO kind, PE 0 on a word of PE 1
 * (2 PEs). `long` for the standard and extended AMOs, `unsigned long` for
 * the bitwise ones (the types every 1.4 implementation provides). Non-fetching
 * AMOs are timed with a shmem_quiet after each, so every row is a completed
 * operation; the *_nq rows show the issue cost alone (back to back, one
 * quiet at the end: what OSU's atomic benchmarks time). add_int and
 * add_int_nq are the same on an `int` word.
 * In these rows PE 1 is idle, so after the first operation the word's cache
 * line stays with PE 0's core. fetch_add_roundtrip makes the line move on
 * every operation: PE 0 and PE 1 take turns incrementing one word on PE 1,
 * each polling (atomic fetch) for its turn; one iteration is two fetch-adds
 * and one round trip of the line, comparable to the cache-line round trip.
 */
#include "common.h"

#include <shmem.h>

static long *lw;              /* symmetric */
static long turn;             /* next value this PE waits for */
static unsigned long *uw;     /* symmetric */
static int *iw;               /* symmetric */
static volatile long lsink;
static volatile unsigned long usink;

#define FETCHING(name, expr)                      \
    static void name(void *arg, long n)           \
    {                                             \
        (void)arg;                                \
        long s = 0;                               \
        for (long i = 0; i < n; i++)              \
            s += (long)(expr);                    \
        lsink = s;                                \
    }
#define NONFETCHING(name, stmt)                   \
    static void name(void *arg, long n)           \
    {                                             \
        (void)arg;                                \
        for (long i = 0; i < n; i++) {            \
            stmt;                                 \
            shmem_quiet();                        \
        }                                         \
    }
#define NONFETCHING_NQ(name, stmt)                \
    static void name(void *arg, long n)           \
    {                                             \
        (void)arg;                                \
        for (long i = 0; i < n; i++)              \
            stmt;                                 \
        shmem_quiet();                            \
    }

FETCHING(fetch_add, shmem_long_atomic_fetch_add(lw, 1, 1))
FETCHING(fetch_inc, shmem_long_atomic_fetch_inc(lw, 1))
FETCHING(compare_swap, shmem_long_atomic_compare_swap(lw, i, i + 1, 1))
FETCHING(swap, shmem_long_atomic_swap(lw, i, 1))
FETCHING(fetch, shmem_long_atomic_fetch(lw, 1))
FETCHING(fetch_and, shmem_ulong_atomic_fetch_and(uw, ~0UL, 1))
FETCHING(fetch_or, shmem_ulong_atomic_fetch_or(uw, 1UL, 1))
FETCHING(fetch_xor, shmem_ulong_atomic_fetch_xor(uw, 1UL, 1))
NONFETCHING(add, shmem_long_atomic_add(lw, 1, 1))
NONFETCHING(inc, shmem_long_atomic_inc(lw, 1))
NONFETCHING(set, shmem_long_atomic_set(lw, i, 1))
NONFETCHING(and_, shmem_ulong_atomic_and(uw, ~0UL, 1))
NONFETCHING(or_, shmem_ulong_atomic_or(uw, 1UL, 1))
NONFETCHING(xor_, shmem_ulong_atomic_xor(uw, 1UL, 1))
NONFETCHING_NQ(add_nq, shmem_long_atomic_add(lw, 1, 1))
NONFETCHING_NQ(inc_nq, shmem_long_atomic_inc(lw, 1))
NONFETCHING(add_int, shmem_int_atomic_add(iw, 1, 1))
NONFETCHING_NQ(add_int_nq, shmem_int_atomic_add(iw, 1, 1))

static const struct {
    const char *op;
    bench_batch_fn f;
    long min_n; /* operations a batch starts at (the _nq rows: back to back) */
} kinds[] = {
    {"fetch_add", fetch_add, 1},
    {"fetch_inc", fetch_inc, 1},
    {"compare_swap", compare_swap, 1},
    {"swap", swap, 1},
    {"fetch", fetch, 1},
    {"set", set, 1},
    {"add", add, 1},
    {"inc", inc, 1},
    {"fetch_and", fetch_and, 1},
    {"fetch_or", fetch_or, 1},
    {"fetch_xor", fetch_xor, 1},
    {"and", and_, 1},
    {"or", or_, 1},
    {"xor", xor_, 1},
    {"add_nq", add_nq, BENCH_BACK_TO_BACK},
    {"inc_nq", inc_nq, BENCH_BACK_TO_BACK},
    {"add_int", add_int, 1},
    {"add_int_nq", add_int_nq, BENCH_BACK_TO_BACK},
};

/* PE 0 waits for even values, PE 1 for odd ones; the word lives on PE 1. */
static void amo_turns(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        while (shmem_long_atomic_fetch(lw, 1) != turn)
            ;
        shmem_long_atomic_fetch_add(lw, 1, 1);
        turn += 2;
    }
}

int main(int argc, char **argv)
{
    struct bench_args a;
    int me, npes;

    bench_parse_args(argc, argv, &a, 8, 8);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            bench_skip("amo_lat", "all", npes, "needs 2 PEs");
        shmem_finalize();
        return 0;
    }
    lw = shmem_calloc(1, sizeof *lw);
    uw = shmem_calloc(1, sizeof *uw);
    iw = shmem_calloc(1, sizeof *iw);
    if (!lw || !uw || !iw) {
        fprintf(stderr, "amo_lat: symmetric allocation failed\n");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        shmem_barrier_all();
        if (me == 0) {
            double ns = bench_time_batches(kinds[k].f, NULL, a.budget_ns, kinds[k].min_n);
            bench_emit("amo_lat", kinds[k].op, sizeof(long), npes, "lat_ns", ns, NULL);
        }
    }
    /* Turns: reset the word, then both PEs run the same fixed counts. */
    shmem_barrier_all();
    if (me == 1)
        *lw = 0;
    shmem_barrier_all();
    if (me <= 1) {
        long n = a.quick ? 500 : 2000;
        int batches = a.quick ? 7 : 31;
        double ns;

        turn = me;
        amo_turns(NULL, n); /* warm-up */
        ns = bench_time_fixed(amo_turns, NULL, n, batches);
        if (me == 0)
            bench_emit("amo_lat", "fetch_add_roundtrip", sizeof(long), npes, "lat_ns", ns, NULL);
    }
    shmem_barrier_all();
    (void)usink;
    shmem_free(iw);
    shmem_free(uw);
    shmem_free(lw);
    shmem_finalize();
    return 0;
}

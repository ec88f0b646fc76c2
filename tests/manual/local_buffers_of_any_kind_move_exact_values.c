/* SPDX-License-Identifier: BSD-3-Clause */
/* Puts from and gets into buffers the library did not allocate (the
 * stack, malloc, a malloc'd buffer freed and allocated again), next to
 * the symmetric heap and a global, at three sizes: injected, bounced
 * (above the inject size, up to SHMEM_OFI_BOUNCE_SIZE) and zero-copy
 * (above it); fetching AMOs whose operands and results live on the
 * stack; non-fetching AMOs completed by quiet. Every PE checks exact
 * values. The manifest runs it on the network path with SHMEM_OFI_FORCE=
 * mr_local,context,transmit_complete (every local buffer registered or
 * bounced, a context per operation, quiet's flush as the delivery
 * guarantee) on tcp and on shm, and without the force in every mode. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 5     /* longs: injected on every provider here */
#define MEDIUM 700  /* longs (5600 B): above tcp's and shm's inject size, bounced */
#define LARGE 4096  /* longs (32 KiB): above the default bounce size */
#define ROUNDS 20   /* fetching AMOs per kind */

static long dst[2][LARGE];     /* symmetric (a global): targets of puts */
static long src_global[LARGE]; /* symmetric: source of gets */
static long counter[64];       /* per source PE: fetch-add and cswap */
static int counter32[64];
static long adds[64];          /* per source PE: non-fetching adds */
static int failures;

static long pattern(int pe, int kind, int i)
{
    return (long)pe * 1000003L + (long)kind * 7919L + i;
}

static void fill(long *buf, int n, int pe, int kind)
{
    for (int i = 0; i < n; i++)
        buf[i] = pattern(pe, kind, i);
}

static void expect(const char *what, const long *buf, int n, int pe, int kind)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != pattern(pe, kind, i)) {
            fprintf(stderr, "PE %d: FAIL %s: element %d is %ld, expected %ld\n", shmem_my_pe(), what, i, buf[i],
                    pattern(pe, kind, i));
            failures++;
            return;
        }
}

/* Put n longs from buf to the right neighbour, blocking or nbi; the
 * neighbour checks them after a barrier. */
static void put_round(const char *what, long *buf, int n, int kind, int nbi)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;

    fill(buf, n, me, kind);
    if (nbi)
        shmem_long_put_nbi(dst[0], buf, (size_t)n, right);
    else
        shmem_long_put(dst[0], buf, (size_t)n, right);
    if (!nbi)
        memset(buf, 0xa5, (size_t)n * sizeof *buf); /* the source is free on return */
    shmem_quiet();
    shmem_barrier_all();
    expect(what, dst[0], n, left, kind);
    shmem_barrier_all();
}

/* Get n longs from the right neighbour's src_global into buf. */
static void get_round(const char *what, long *buf, int n, int kind, int nbi)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;

    fill(src_global, n, me, kind);
    shmem_barrier_all();
    memset(buf, 0, (size_t)n * sizeof *buf);
    if (nbi) {
        shmem_long_get_nbi(buf, src_global, (size_t)n, right);
        shmem_quiet();
    } else
        shmem_long_get(buf, src_global, (size_t)n, right);
    expect(what, buf, n, right, kind);
    shmem_barrier_all();
}

static void rma_from(const char *name, long *buf, int kind)
{
    static const int sizes[] = {SMALL, MEDIUM, LARGE};
    char what[96];

    for (int s = 0; s < 3; s++)
        for (int nbi = 0; nbi < 2; nbi++) {
            snprintf(what, sizeof what, "put from %s, %d longs%s", name, sizes[s], nbi ? ", nbi" : "");
            put_round(what, buf, sizes[s], kind + s, nbi);
            snprintf(what, sizeof what, "get into %s, %d longs%s", name, sizes[s], nbi ? ", nbi" : "");
            get_round(what, buf, sizes[s], kind + 10 + s, nbi);
        }
}

static void amo_rounds(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();

    for (int t = 0; t < npes; t++) {
        for (long r = 0; r < ROUNDS; r++) {
            long one = 1, got = shmem_long_atomic_fetch_add(&counter[me], one, t);
            int got32 = shmem_int_atomic_fetch_inc(&counter32[me], t);
            if (got != 2 * r || got32 != (int)r) {
                fprintf(stderr, "PE %d: FAIL fetch_add/fetch_inc to PE %d round %ld gave %ld/%d, expected %ld/%ld\n",
                        me, t, r, got, got32, 2 * r, r);
                failures++;
            }
            long cond = 2 * r + 1, value = 2 * r + 2;
            long old = shmem_long_atomic_compare_swap(&counter[me], cond, value, t);
            /* Only this PE updates its slot: the swap always matches. */
            if (old != 2 * r + 1) {
                fprintf(stderr, "PE %d: FAIL compare_swap to PE %d round %ld saw %ld, expected %ld\n", me, t, r, old,
                        2 * r + 1);
                failures++;
            }
            long seen = shmem_long_atomic_fetch(&counter[me], t);
            if (seen != 2 * r + 2) {
                fprintf(stderr, "PE %d: FAIL atomic_fetch from PE %d round %ld gave %ld, expected %ld\n", me, t, r,
                        seen, 2 * r + 2);
                failures++;
            }
            shmem_long_atomic_fetch_add(&counter[me], -1, t); /* back to 2r + 1 ... */
            shmem_long_atomic_add(&counter[me], 1, t);          /* ... and on to 2r + 2 */
            shmem_long_atomic_add(&adds[me], r + 1, t);
        }
    }
    shmem_quiet();
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        long want = (long)ROUNDS * (ROUNDS + 1) / 2;
        if (adds[p] != want || counter[p] != 2L * ROUNDS || counter32[p] != ROUNDS) {
            fprintf(stderr, "PE %d: FAIL totals from PE %d: adds %ld counter %ld counter32 %d, expected %ld %ld %d\n",
                    me, p, adds[p], counter[p], counter32[p], want, 2L * ROUNDS, ROUNDS);
            failures++;
        }
    }
}

int main(void)
{
    long stack_buf[MEDIUM];
    long *heap_buf, *sym_buf, *big;
    int me, total;
    static int sym_failures;

    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() > 64) {
        if (me == 0)
            fprintf(stderr, "this test takes at most 64 PEs\n");
        shmem_global_exit(2);
    }
    heap_buf = malloc(LARGE * sizeof *heap_buf);
    sym_buf = shmem_malloc(LARGE * sizeof *sym_buf);
    if (!heap_buf || !sym_buf) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(2);
    }

    /* The stack takes small and medium transfers; a large one would not
     * fit in every thread's stack, so it is on the heap below. */
    {
        char what[64];
        for (int nbi = 0; nbi < 2; nbi++) {
            snprintf(what, sizeof what, "put from the stack, %d longs%s", SMALL, nbi ? ", nbi" : "");
            put_round(what, stack_buf, SMALL, 1, nbi);
            snprintf(what, sizeof what, "put from the stack, %d longs%s", MEDIUM, nbi ? ", nbi" : "");
            put_round(what, stack_buf, MEDIUM, 2, nbi);
            snprintf(what, sizeof what, "get into the stack, %d longs%s", SMALL, nbi ? ", nbi" : "");
            get_round(what, stack_buf, SMALL, 3, nbi);
            snprintf(what, sizeof what, "get into the stack, %d longs%s", MEDIUM, nbi ? ", nbi" : "");
            get_round(what, stack_buf, MEDIUM, 4, nbi);
        }
    }
    rma_from("malloc", heap_buf, 100);
    rma_from("the symmetric heap", sym_buf, 200);
    rma_from("a global", dst[1], 300);

    /* A large buffer freed and allocated again (often at the same
     * address): its new contents, not the old ones, must arrive. */
    for (int k = 0; k < 3; k++) {
        char what[64];
        big = malloc(LARGE * sizeof *big);
        if (!big) {
            fprintf(stderr, "PE %d: out of memory\n", me);
            shmem_global_exit(2);
        }
        snprintf(what, sizeof what, "put from a reallocated buffer, round %d", k);
        put_round(what, big, LARGE, 400 + k, k & 1);
        snprintf(what, sizeof what, "get into a reallocated buffer, round %d", k);
        get_round(what, big, LARGE, 500 + k, k & 1);
        free(big);
    }

    amo_rounds();

    free(heap_buf);
    shmem_free(sym_buf);
    sym_failures = failures;
    shmem_barrier_all();
    total = shmem_int_atomic_fetch(&sym_failures, 0);
    shmem_barrier_all();
    for (int p = 1; p < shmem_n_pes(); p++)
        total += shmem_int_atomic_fetch(&sym_failures, p);
    if (me == 0 && total == 0)
        printf("OK\n");
    shmem_finalize();
    return total ? 1 : 0;
}

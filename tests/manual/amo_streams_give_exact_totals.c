/* SPDX-License-Identifier: BSD-3-Clause */
/* Long streams of non-fetching AMOs, back to back with nothing between
 * them that would wait: every PE sends every PE (itself included) STREAM
 * adds on int and long long and STREAM xors on uint64_t into the slots
 * kept for it, then reads its own slots back with fetching AMOs before
 * any quiet (a PE reads back what it wrote), then quiets; after a
 * barrier every PE checks the slots every PE wrote into it. On a network
 * path the streams are far longer than any window of operations in
 * flight (posted, windowed), so running out of room, waiting for it and
 * completing at quiet are all exercised; the totals must be exact. */
#include "check.h"

#include <stdint.h>

#define STREAM 3000
#define MAXPES 64

static int isum[MAXPES];        /* [source PE] */
static long long llsum[MAXPES]; /* [source PE] */
static uint64_t xors[MAXPES];   /* [source PE] */

/* What source PE s sends target t as its k-th operation. */
static int iv(int s, int t, int k) { return (s + 1) * 7 + t * 3 + k % 5; }
static long long llv(int s, int t, int k) { return ((long long)(s + 1) << 33) + (long long)t * 11 + k; }
static uint64_t xv(int s, int t, int k)
{
    return ((uint64_t)(s * 131 + t * 17 + k) * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)k << 7);
}

/* What source PE s's streams leave in its slots on target t. */
static void expected(int s, int t, int *ie, long long *lle, uint64_t *xe)
{
    *ie = 0;
    *lle = 0;
    *xe = 0;
    for (int k = 0; k < STREAM; k++) {
        *ie += iv(s, t, k);
        *lle += llv(s, t, k);
        *xe ^= xv(s, t, k);
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    if (npes > MAXPES) {
        if (me == 0)
            fprintf(stderr, "needs at most %d PEs\n", MAXPES);
        shmem_global_exit(1);
    }
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < MAXPES; i++) {
            isum[i] = 0;
            llsum[i] = 0;
            xors[i] = 0;
        }
        shmem_barrier_all();
        /* Round 0 sends the three streams one after another to one PE at
         * a time; round 1 interleaves targets within each step. */
        if (round == 0) {
            for (int t = 0; t < npes; t++) {
                for (int k = 0; k < STREAM; k++)
                    shmem_int_atomic_add(&isum[me], iv(me, t, k), t);
                for (int k = 0; k < STREAM; k++)
                    shmem_longlong_atomic_add(&llsum[me], llv(me, t, k), t);
                for (int k = 0; k < STREAM; k++)
                    shmem_uint64_atomic_xor(&xors[me], xv(me, t, k), t);
            }
        } else {
            for (int k = 0; k < STREAM; k++)
                for (int t = 0; t < npes; t++) {
                    shmem_int_atomic_add(&isum[me], iv(me, t, k), t);
                    shmem_longlong_atomic_add(&llsum[me], llv(me, t, k), t);
                    shmem_uint64_atomic_xor(&xors[me], xv(me, t, k), t);
                }
        }
        /* Read back before any quiet: the fetch must see this PE's stream. */
        for (int t = 0; t < npes; t++) {
            int ie;
            long long lle;
            uint64_t xe;

            expected(me, t, &ie, &lle, &xe);
            int ig = shmem_int_atomic_fetch(&isum[me], t);
            long long llg = shmem_longlong_atomic_fetch(&llsum[me], t);
            uint64_t xg = shmem_uint64_atomic_fetch(&xors[me], t);
            CHECK(ig == ie, "round %d: int adds read back from PE %d: %d, expected %d", round, t, ig, ie);
            CHECK(llg == lle, "round %d: long long adds read back from PE %d: %lld, expected %lld", round, t, llg,
                  lle);
            CHECK(xg == xe, "round %d: xors read back from PE %d: %#llx, expected %#llx", round, t,
                  (unsigned long long)xg, (unsigned long long)xe);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int s = 0; s < npes; s++) {
            int ie;
            long long lle;
            uint64_t xe;

            expected(s, me, &ie, &lle, &xe);
            CHECK(isum[s] == ie, "round %d: int adds from PE %d: %d, expected %d", round, s, isum[s], ie);
            CHECK(llsum[s] == lle, "round %d: long long adds from PE %d: %lld, expected %lld", round, s, llsum[s],
                  lle);
            CHECK(xors[s] == xe, "round %d: xors from PE %d: %#llx, expected %#llx", round, s,
                  (unsigned long long)xors[s], (unsigned long long)xe);
        }
        shmem_barrier_all();
    }
    int rc = check_finish();
    shmem_finalize();
    return rc;
}

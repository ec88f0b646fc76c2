/* SPDX-License-Identifier: BSD-3-Clause */
/* One PE (the target, PE 0) computes in a tight loop without calling the
 * library, polling a flag in its own symmetric memory.  Every other PE keeps
 * doing puts, gets and AMOs against it; the last peer to finish sets the flag
 * with a put.  All values must be exact: communication with a PE must make
 * progress while that PE never enters the library. */
#include "check.h"

#include <stdatomic.h>
#include <stdint.h>

#define TARGET 0
#define ROUNDS 200     /* rounds of traffic from every peer */
#define SLOT 64        /* longs each peer owns in the target's put area */
#define MAXPES 64
#define SRC_LEN 512

static long done_flag;                  /* set by the last peer, with a put */
static long arrived;                    /* peers that finished (fetch_inc) */
static long put_area[MAXPES][SLOT];     /* peer p writes row p */
static long get_src[SRC_LEN];           /* written by the target before it computes */
static long counter;                    /* fetch_add target */
static int cas_word;                    /* compare_swap increments */
static long long last_round[MAXPES];    /* atomic_set by each peer */

static long src_value(int i) { return 7919L * i + 13; }

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes < 2 || npes > MAXPES) {
        if (me == 0)
            fprintf(stderr, "needs 2..%d PEs, got %d\n", MAXPES, npes);
        shmem_finalize();
        return 1;
    }
    int peers = npes - 1;

    if (me == TARGET)
        for (int i = 0; i < SRC_LEN; i++)
            get_src[i] = src_value(i);
    shmem_barrier_all();

    if (me == TARGET) {
        /* Compute, touching nothing but local memory, until the flag is set.
         * Bounded by wall time so a lost flag is a failure, not a hang. */
        volatile long *flag = &done_flag;
        uint64_t x = 88172645463325252ull, spins = 0;
        double start = check_now();
        while (*flag == 0) {
            for (int k = 0; k < 1000; k++) {   /* xorshift: real work */
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            if (++spins % 1024 == 0 && check_now() - start > CHECK_WAIT_LIMIT_S) {
                fprintf(stderr, "PE %d: FAIL flag never arrived while computing "
                        "(arrived=%ld)\n", me, *(volatile long *)&arrived);
                break;
            }
        }
        atomic_thread_fence(memory_order_acquire);
        CHECK(*flag == 1, "done_flag = %ld, want 1", *flag);
        CHECK(x != 0, "xorshift state collapsed");
        /* Everything the peers did must already be here, seen by plain loads. */
        long want_arrived = peers;
        CHECK(arrived == want_arrived, "arrived = %ld, want %ld", arrived, want_arrived);
        for (int p = 1; p < npes; p++)
            for (int i = 0; i < SLOT; i++) {
                long want = (long)p * 1000000 + (ROUNDS - 1) * 1000 + i;
                CHECK(put_area[p][i] == want, "put_area[%d][%d] = %ld, want %ld",
                      p, i, put_area[p][i], want);
            }
        long want_counter = (long)peers * ROUNDS * (ROUNDS + 1) / 2;
        CHECK(counter == want_counter, "counter = %ld, want %ld", counter, want_counter);
        CHECK(cas_word == peers * ROUNDS, "cas_word = %d, want %d", cas_word, peers * ROUNDS);
        for (int p = 1; p < npes; p++)
            CHECK(last_round[p] == ROUNDS - 1, "last_round[%d] = %lld, want %d",
                  p, last_round[p], ROUNDS - 1);
    } else {
        long buf[SLOT], got[SRC_LEN];
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < SLOT; i++)
                buf[i] = (long)me * 1000000 + r * 1000 + i;
            if (r % 2)
                shmem_long_put(put_area[me], buf, SLOT, TARGET);
            else
                shmem_putmem_nbi(put_area[me], buf, sizeof buf, TARGET), shmem_quiet();

            /* Gets of data the busy target wrote before it started computing. */
            int off = (r * 37) % SRC_LEN, len = SRC_LEN - off;
            shmem_long_get(got, get_src + off, (size_t)len, TARGET);
            for (int i = 0; i < len; i++)
                CHECK(got[i] == src_value(off + i), "round %d get_src[%d] = %ld, want %ld",
                      r, off + i, got[i], src_value(off + i));
            long one = shmem_long_g(&get_src[r % SRC_LEN], TARGET);
            CHECK(one == src_value(r % SRC_LEN), "round %d g = %ld", r, one);

            /* AMOs: fetch_add of r+1 (old value bounded by the total), a
             * compare-swap increment loop, and an atomic set. */
            long old = shmem_long_atomic_fetch_add(&counter, (long)r + 1, TARGET);
            CHECK(old >= 0 && old <= (long)peers * ROUNDS * (ROUNDS + 1) / 2,
                  "fetch_add returned %ld", old);
            int seen = shmem_int_atomic_fetch(&cas_word, TARGET), tries = 0;
            for (;;) {
                int prev = shmem_int_atomic_compare_swap(&cas_word, seen, seen + 1, TARGET);
                if (prev == seen)
                    break;
                seen = prev;
                if (++tries > 10000000) {
                    CHECK(0, "compare_swap loop did not converge");
                    break;
                }
            }
            shmem_longlong_atomic_set(&last_round[me], (long long)r, TARGET);
        }
        /* My puts are complete; count myself in.  The last peer raises the flag. */
        shmem_quiet();
        long before = shmem_long_atomic_fetch_inc(&arrived, TARGET);
        CHECK(before >= 0 && before < peers, "arrived fetch_inc returned %ld", before);
        if (before == peers - 1) {
            shmem_long_p(&done_flag, 1, TARGET);
            shmem_quiet();
        }
    }

    shmem_barrier_all();
    /* Every PE re-checks the target's totals through the library. */
    long c = shmem_long_atomic_fetch(&counter, TARGET);
    CHECK(c == (long)peers * ROUNDS * (ROUNDS + 1) / 2, "counter seen from PE %d = %ld", me, c);
    int cw = shmem_int_g(&cas_word, TARGET);
    CHECK(cw == peers * ROUNDS, "cas_word seen = %d", cw);

    int rc = check_finish();
    shmem_finalize();
    return rc;
}

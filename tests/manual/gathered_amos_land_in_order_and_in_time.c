/* SPDX-License-Identifier: BSD-3-Clause */
/* Non-fetching AMOs that a network path may gather into one message
 * (docs/design.md, "Gathering"): each PE sends the next
 * PE streams whose consecutive AMOs name different words, in the heap and
 * in static data (different registrations), with different operands;
 * then, where it matters, what follows them must find them applied:
 *   1. a get of the words (a PE reads back what it wrote);
 *   2. a fence and a put of a flag: the target, seeing the flag, checks
 *      every word with plain loads;
 *   3. sets of one word in a row: the last one wins;
 *   4. a few adds and then no library call at all: the sender sleeps,
 *      reading a local word, until the target (waiting for the total)
 *      puts it; only the progress thread can send what was gathered.
 *   5. as 4, with int and long adds in turn: in a stream each AMO starts
 *      a run of its own, and the last one too waits gathered.
 * Exact values on every PE. */
#include "check.h"

#include <stdint.h>
#include <time.h>

#define WORDS 64
#define STREAM 2000
#define STREAM2 1999 /* part 3's adds: not a multiple of any message's worth, so some wait gathered */
#define TAIL 10         /* adds of part 4: more than one message's worth, not a multiple of it */
#define PATIENCE_S 20.0 /* part 4: how long the sender waits, out of the library */

static long long gwords[WORDS]; /* static data: incremented */
static long long flag, last_set;
static long tail_total;
static volatile long long tail_seen; /* put by the target; read with plain loads */
static long mixed_long_total;
static int mixed_int_total;
static volatile long long mixed_seen;

static long long add_operand(int s, int k) { return (long long)(s + 1) * 1000003LL + k * 7 + (k % 3); }

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    long long *hwords = shmem_calloc(WORDS, sizeof(long long)); /* heap: added to */
    long long hexp[WORDS] = {0}, gexp[WORDS] = {0}, got[WORDS];

    if (!hwords) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    /* Streams to the next PE: each add names another heap word than the
     * one before, each increment another static word. */
    for (int k = 0; k < STREAM; k++) {
        shmem_longlong_atomic_add(&hwords[(k * 5) % WORDS], add_operand(me, k), to);
        shmem_longlong_atomic_inc(&gwords[(k * 7 + 3) % WORDS], to);
    }
    for (int k = 0; k < STREAM; k++) {
        hexp[(k * 5) % WORDS] += add_operand(me, k);
        gexp[(k * 7 + 3) % WORDS] += 1;
    }

    /* 1. Read back before any quiet. */
    shmem_longlong_get(got, hwords, WORDS, to);
    for (int w = 0; w < WORDS; w++)
        CHECK(got[w] == hexp[w], "get of PE %d's heap word %d after the adds: %lld, expected %lld", to, w, got[w],
              hexp[w]);

    /* 3. Sets of one word in a row, then more adds: fence, flag. */
    for (int k = 0; k < 100; k++)
        shmem_longlong_atomic_set(&last_set, (long long)me * 1000 + k, to);
    for (int k = 0; k < STREAM2; k++)
        shmem_longlong_atomic_add(&hwords[(k * 3 + 1) % WORDS], add_operand(me, k + STREAM), to);
    for (int k = 0; k < STREAM2; k++)
        hexp[(k * 3 + 1) % WORDS] += add_operand(me, k + STREAM);
    shmem_fence();
    shmem_longlong_p(&flag, 1, to);

    /* 2. As the target: the flag means every AMO before the fence is
     * there. Plain loads after the wait. */
    shmem_longlong_wait_until(&flag, SHMEM_CMP_EQ, 1);
    for (int w = 0; w < WORDS; w++) {
        long long he = 0, ge = 0;

        for (int k = 0; k < STREAM; k++) {
            if ((k * 5) % WORDS == w)
                he += add_operand(from, k);
            if (k < STREAM2 && (k * 3 + 1) % WORDS == w)
                he += add_operand(from, k + STREAM);
            if ((k * 7 + 3) % WORDS == w)
                ge += 1;
        }
        CHECK(hwords[w] == he, "heap word %d from PE %d when its flag came: %lld, expected %lld", w, from,
              hwords[w], he);
        CHECK(gwords[w] == ge, "static word %d from PE %d when its flag came: %lld, expected %lld", w, from,
              gwords[w], ge);
    }
    CHECK(last_set == (long long)from * 1000 + 99, "last of PE %d's sets: %lld, expected %lld", from, last_set,
          (long long)from * 1000 + 99);
    shmem_barrier_all();

    /* 4. A few adds, then the sender stays out of the library. The target
     * waits for the total and answers with a put. */
    long tail_expect = 0;

    for (int k = 0; k < TAIL; k++)
        tail_expect += (long)add_operand(from, k);
    for (int k = 0; k < TAIL; k++)
        shmem_long_atomic_add(&tail_total, (long)add_operand(me, k), to);
    {
        double t0 = check_now();

        /* The sender's side: no call until the target's answer is here
         * or patience runs out. The target's side runs after it (the
         * ring: every PE is both). */
        if (me % 2 == 0)
            check_sleep_until(&tail_seen, 1, t0, PATIENCE_S);
        wait_long_bounded(&tail_total, SHMEM_CMP_EQ, tail_expect, "the total of the previous PE's last adds");
        shmem_longlong_p((long long *)&tail_seen, 1, from);
        if (me % 2 != 0)
            check_sleep_until(&tail_seen, 1, t0, PATIENCE_S);
        CHECK(tail_seen == 1, "PE %d's last %d adds were not applied at PE %d within %.0f s while PE %d made no "
              "library call", me, TAIL, to, PATIENCE_S, me);
    }
    shmem_barrier_all();

    /* 5. int and long adds in turn, then out of the library, as in 4. */
    long long_expect = 0;
    int int_expect = 0;

    for (int k = 0; k < TAIL; k++) {
        long_expect += (long)add_operand(from, k);
        int_expect += k + 1 + from;
    }
    for (int k = 0; k < TAIL; k++) {
        shmem_long_atomic_add(&mixed_long_total, (long)add_operand(me, k), to);
        shmem_int_atomic_add(&mixed_int_total, k + 1 + me, to);
    }
    {
        double t0 = check_now();

        if (me % 2 == 0)
            check_sleep_until(&mixed_seen, 1, t0, PATIENCE_S);
        wait_long_bounded(&mixed_long_total, SHMEM_CMP_EQ, long_expect,
                          "the long total of the previous PE's mixed adds");
        wait_int_bounded(&mixed_int_total, SHMEM_CMP_EQ, int_expect, "the int total of the previous PE's mixed adds");
        shmem_longlong_p((long long *)&mixed_seen, 1, from);
        if (me % 2 != 0)
            check_sleep_until(&mixed_seen, 1, t0, PATIENCE_S);
        CHECK(mixed_seen == 1, "PE %d's last %d int and long adds in turn were not applied at PE %d within %.0f s "
              "while PE %d made no library call", me, 2 * TAIL, to, PATIENCE_S, me);
    }
    shmem_barrier_all();

    shmem_free(hwords);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}

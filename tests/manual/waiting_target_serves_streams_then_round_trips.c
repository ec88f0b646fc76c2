/* SPDX-License-Identifier: BSD-3-Clause */
/* A PE blocked in shmem_long_wait_until while the other PEs stream
 * non-fetching AMOs at it, then make round trips to it. On libfabric's
 * shm such a wait spaces its polls further while a stream lasts and
 * returns to the short gap when it ends (transport/ofi_progress.c): the
 * streams must all land, the flags that follow them must end the waits,
 * and the fetch-adds that follow a stream must be served with exact,
 * distinct tickets.
 *
 * The last PE is the target; every other PE is a source. Three phases,
 * the target waiting in each for every source's flag:
 *  1. a stream of STREAM adds, then fence + an increment of `arrived`:
 *     when the target sees every increment, every add is there;
 *  2. ROUNDS fetch-adds on a ticket counter, each a round trip;
 *  3. another stream, at once a fetch of the slot (a PE reads back what
 *     it wrote), then fetch-adds again.
 * Exact values are checked on every PE. */
#include "check.h"

#define STREAM 20000
#define ROUNDS 500
#define MAXPES 64

static long sum[MAXPES]; /* [source PE], on the target */
static long arrived, tickets, fetched_total;

static long value(int s, int phase, int k) { return (long)(s + 1) * 1000003 + phase * 7 + k % 97; }

static long stream_total(int s, int phase)
{
    long t = 0;
    for (int k = 0; k < STREAM; k++)
        t += value(s, phase, k);
    return t;
}

/* ROUNDS fetch-adds of 1 on the target's ticket counter: strictly
 * increasing tickets here; returns their sum. */
static long take_tickets(int target, int phase)
{
    long prev = -1, total = 0;

    for (int r = 0; r < ROUNDS; r++) {
        long t = shmem_long_atomic_fetch_add(&tickets, 1, target);
        CHECK(t > prev && t >= 0, "phase %d: ticket %ld after %ld", phase, t, prev);
        prev = t;
        total += t;
    }
    return total;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), target = npes - 1, sources = npes - 1;

    if (npes < 2 || npes > MAXPES) {
        if (me == 0)
            fprintf(stderr, "needs 2 to %d PEs\n", MAXPES);
        shmem_global_exit(1);
    }
    long mine = 0; /* what this source's streams left in its slot */

    for (int phase = 1; phase <= 3; phase++) {
        long tickets_before = (long)sources * ROUNDS * (phase == 3 ? 1 : 0);

        arrived = 0;
        shmem_barrier_all();
        if (me != target) {
            if (phase != 2) {
                for (int k = 0; k < STREAM; k++)
                    shmem_long_atomic_add(&sum[me], value(me, phase, k), target);
                mine += stream_total(me, phase);
            }
            if (phase == 3) {
                long got = shmem_long_atomic_fetch(&sum[me], target);
                CHECK(got == mine, "phase 3: slot read back right after the stream: %ld, expected %ld", got, mine);
            }
            if (phase != 1) {
                long total = take_tickets(target, phase);
                shmem_long_atomic_add(&fetched_total, total, target);
            }
            shmem_fence(); /* the adds land before the flag */
            shmem_long_atomic_inc(&arrived, target);
        } else {
            shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, sources);
            for (int s = 0; s < sources; s++) {
                long want = stream_total(s, 1) + (phase == 3 ? stream_total(s, 3) : 0);
                CHECK(sum[s] == want, "phase %d: adds from PE %d: %ld, expected %ld", phase, s, sum[s], want);
            }
            if (phase != 1) {
                /* Every ticket handed out once: 0 .. n-1 summed. */
                long n = tickets_before + (long)sources * ROUNDS;
                long want = n * (n - 1) / 2;
                CHECK(tickets == n, "phase %d: ticket counter %ld, expected %ld", phase, tickets, n);
                CHECK(fetched_total == want, "phase %d: tickets fetched sum to %ld, expected %ld", phase,
                      fetched_total, want);
            }
        }
        shmem_barrier_all();
    }
    int rc = check_finish();
    shmem_finalize();
    return rc;
}

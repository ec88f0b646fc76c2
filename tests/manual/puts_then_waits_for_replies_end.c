/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * puts_then_waits_for_replies_end: a put or non-fetching AMO delivers
 * without a quiet when the sender then waits for the answer (the library
 * may gather it: docs/design.md, "Gathering"). PEs pair up (0-1, 2-3, ...;
 * an odd last PE only joins the barriers): in each of ROUNDS
 * rounds the even PE puts the round's value, or adds to a counter, and
 * waits for the odd PE's reply, sent the same way; neither calls quiet.
 * A last phase waits without the library: the even PE puts, then spins
 * on plain loads of its reply word, so only the progress threads move
 * both messages. Exact values on every PE.
 */
#include "check.h"

#define ROUNDS 2000
#define SPIN_S 20.0

static long ball, reply, counter, counter_reply;
static volatile long quiet_reply;

int main(void)
{
    int me, npes, peer, even;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        printf("OK\n");
        shmem_finalize();
        return 0;
    }
    peer = me % 2 == 0 ? (me + 1 < npes ? me + 1 : -1) : me - 1;
    even = me % 2 == 0;
    shmem_barrier_all();
    if (peer >= 0) {
        for (long r = 1; r <= ROUNDS; r++) {
            if (even) {
                if (r % 2)
                    shmem_long_p(&ball, r, peer);
                else
                    shmem_long_atomic_add(&counter, 1, peer);
                if (r % 2)
                    wait_long_bounded(&reply, SHMEM_CMP_EQ, r, "the put reply");
                else
                    wait_long_bounded(&counter_reply, SHMEM_CMP_EQ, r / 2, "the AMO reply");
            } else {
                if (r % 2) {
                    wait_long_bounded(&ball, SHMEM_CMP_EQ, r, "the put");
                    shmem_long_p(&reply, r, peer);
                } else {
                    wait_long_bounded(&counter, SHMEM_CMP_EQ, r / 2, "the AMO");
                    shmem_long_atomic_inc(&counter_reply, peer);
                }
            }
        }
        /* No library call while waiting: the progress threads deliver. */
        if (even) {
            double start = check_now();
            shmem_long_p(&ball, -1, peer);
            while (quiet_reply != -1 && check_now() - start < SPIN_S)
                ;
            CHECK(quiet_reply == -1, "no reply within %.0f s without library calls", SPIN_S);
        } else {
            wait_long_bounded(&ball, SHMEM_CMP_EQ, -1, "the last put");
            shmem_long_p((long *)&quiet_reply, -1, peer);
        }
    }
    shmem_barrier_all();
    if (peer >= 0) {
        CHECK(even ? reply == ROUNDS - 1 : ball == -1, "final ball/reply %ld/%ld", ball, reply);
        CHECK(even ? counter_reply == ROUNDS / 2 : counter == ROUNDS / 2, "final counters %ld/%ld", counter,
              counter_reply);
    }
    return check_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c — a first OpenSHMEM program.
 *
 * Every PE writes a short message into its right neighbour's memory, takes a
 * ticket from a counter that lives on PE 0, and waits at a barrier; then
 * every PE checks what its left neighbour wrote and prints one line, and PE 0
 * checks that the tickets were handed out exactly once each.
 *
 * Build and run with Shoal's wrappers (from the install prefix):
 *     oshcc -o ring ring.c
 *     oshrun -n 4 ./ring
 *
 * Only standard OpenSHMEM 1.5 C11 API is used.
 */
#include <shmem.h>
#include <stdio.h>

#define MSG_LEN 4

/* Global and static variables are symmetric: every PE has one, at an address
 * other PEs can name.  Only PE 0's copies of these two are used. */
static long ticket_counter;
static long ticket_sum;
static int failures;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;

    /* Symmetric heap memory: same size on every PE, returned by all at once. */
    int *inbox = shmem_malloc(MSG_LEN * sizeof(int));
    int *sender = shmem_malloc(sizeof(int));
    if (inbox == NULL || sender == NULL) {
        fprintf(stderr, "PE %d: shmem_malloc failed\n", me);
        shmem_global_exit(1);
    }

    /* The message: a pattern the receiver can check, then who sent it. */
    int msg[MSG_LEN];
    for (int i = 0; i < MSG_LEN; i++)
        msg[i] = 100 * me + i;
    shmem_put(inbox, msg, MSG_LEN, right);      /* a block of ints */
    shmem_p(sender, me, right);                 /* a single int */

    /* A fetching atomic: each PE gets a distinct ticket 0..npes-1. */
    long ticket = shmem_atomic_fetch_add(&ticket_counter, 1L, 0);
    shmem_atomic_add(&ticket_sum, ticket, 0);

    /* The barrier completes every put and atomic above and makes them visible. */
    shmem_barrier_all();

    int ok = *sender == left;
    for (int i = 0; i < MSG_LEN; i++)
        ok = ok && inbox[i] == 100 * left + i;
    if (!ok)
        shmem_atomic_inc(&failures, 0);

    /* Print in PE order (the launcher may still interleave lines). */
    for (int pe = 0; pe < npes; pe++) {
        if (pe == me) {
            printf("PE %d of %d: got %d from left neighbour, counter ticket %ld%s\n",
                   me, npes, *sender, ticket, ok ? "" : "  <-- WRONG MESSAGE");
            fflush(stdout);
        }
        shmem_barrier_all();
    }

    int status = ok ? 0 : 1;
    if (me == 0) {
        long expected_sum = (long)npes * (npes - 1) / 2;
        int all_ok = failures == 0 && ticket_counter == npes && ticket_sum == expected_sum;
        if (all_ok)
            printf("ring: all %d PEs OK\n", npes);
        else
            printf("ring: FAILED (%d PEs got a wrong message; counter %ld, expected %d; "
                   "ticket sum %ld, expected %ld)\n",
                   failures, ticket_counter, npes, ticket_sum, expected_sum);
        status = all_ok ? 0 : 1;
    }

    shmem_free(sender);
    shmem_free(inbox);
    shmem_finalize();
    return status;
}

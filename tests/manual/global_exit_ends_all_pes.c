/* SPDX-License-Identifier: BSD-3-Clause */
/* PE 1 calls shmem_global_exit(7) while every other PE waits in a barrier
 * that can never complete.  The whole job must end (within the manifest
 * timeout) with exactly status 7 (PMIx_Abort hands it to the launcher).  If
 * the barrier ever completes, or global_exit returns, the program exits 0,
 * which the manifest (expect_status = 7) treats as a failure. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 1) {
        /* let the others get into the barrier first */
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fprintf(stderr, "PE 1: calling shmem_global_exit(7)\n");
        fflush(stderr);
        shmem_global_exit(7);
        fprintf(stderr, "PE 1: TEST FAILURE: shmem_global_exit returned\n");
        return 0;
    }
    shmem_barrier_all();                       /* PE 1 never arrives */
    fprintf(stderr, "PE %d: TEST FAILURE: barrier completed without PE 1\n", me);
    return 0;
}

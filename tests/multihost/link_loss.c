/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_loss.c — run by tests/multihost/run.sh across two hosts (4 PEs,
 * 2+2): PE 0 takes the link between the hosts down
 * ($SHOAL_TEST_LINK_DOWN), then "barrier" enters a barrier, "get" first
 * gets from the last PE (on the other host; PE 0's neighbours wait 3 s
 * before the barrier, so the get is first to time out). The job must end with an
 * error naming the routine and a peer on the other host: nothing here
 * may complete after the link is gone.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096

static long mine[N], got[N];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "barrier";
    int me, n;

    if (strcmp(mode, "barrier") && strcmp(mode, "get")) {
        fprintf(stderr, "link_loss: mode must be barrier or get, not %s\n", mode);
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    for (int i = 0; i < N; i++)
        mine[i] = (long)me * N + i;
    shmem_barrier_all();
    /* The path to the other host works before the link goes. */
    shmem_get(got, mine, N, n - 1);
    for (int i = 0; i < N; i++)
        if (got[i] != (long)(n - 1) * N + i) {
            fprintf(stderr, "PE %d: got[%d] = %ld from PE %d, expected %ld\n", me, i, got[i], n - 1,
                    (long)(n - 1) * N + i);
            shmem_global_exit(3);
        }
    shmem_barrier_all();
    if (me == 0) {
        const char *cmd = getenv("SHOAL_TEST_LINK_DOWN");
        if (!cmd || system(cmd) != 0) {
            fprintf(stderr, "PE 0: cannot take the link down (SHOAL_TEST_LINK_DOWN=%s)\n", cmd ? cmd : "unset");
            shmem_global_exit(4);
        }
        printf("PE 0: link down\n"); /* the harness times the end from here */
        fflush(stdout);
        if (!strcmp(mode, "get"))
            shmem_get(got, mine, N, n - 1);
    } else if (!strcmp(mode, "get") && shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_SHARED) >= 0) {
        /* On PE 0's host, let PE 0's get be the first to find the link
         * gone: a barrier entered now would time out with it, and
         * whichever PE here reports first ends the job (the other host's
         * output cannot arrive). */
        sleep(3);
    }
    shmem_barrier_all();
    printf("PE %d: the barrier completed with the link down\n", me);
    shmem_finalize();
    return 0;
}

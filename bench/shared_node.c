/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/shared_node.c — how long shmem_init takes, and what the PEs then do
 * to a node they share: a program that starts, and then waits as real
 * programs do (PE 0 busy elsewhere, reading input or computing, while the
 * others wait for it in a barrier).
 *
 * Every PE reads CLOCK_REALTIME on entering main, after shmem_init, and
 * after the waiting phase; PE 0 prints one JSON line per figure (the
 * slowest PE's):
 *   init_s        shmem_init's own time
 *   init_done_s   main's entry of the first PE to enter ... the last PE's
 *                 shmem_init return; with --t0 EPOCH_S (when the launcher
 *                 was started), from that instant instead
 *   init_done_epoch  the last PE's shmem_init return (seconds since the epoch)
 *
 *   --wait S      the waiting phase: PE 0 is away S seconds (outside the
 *                 library), then all meet in shmem_barrier_all (default 3)
 *   --busy        PE 0 computes while away (else it sleeps)
 *   --t0 EPOCH_S  the launcher's start, for init_done_s
 * SHARED_NODE_TRACE=1 in the environment: each PE also prints its entry
 * and init times on stderr (to see which job waited for what).
 *
 * bench/shared_node.py starts two such jobs together, and one alone, and
 * compares them.
 */
#include "common.h"

#include <shmem.h>
#include <unistd.h>

static double epoch_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double entered = epoch_s(), wait_s = 3, t0 = 0;
    int busy = 0;
    static double mine[3], all[3]; /* min entry, max init, max init return (symmetric: data segment) */
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 3];
    static long psync[SHMEM_REDUCE_SYNC_SIZE];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--wait") && i + 1 < argc)
            wait_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--busy"))
            busy = 1;
        else if (!strcmp(argv[i], "--t0") && i + 1 < argc)
            t0 = atof(argv[++i]);
        else {
            fprintf(stderr, "shared_node: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    shmem_init();
    double inited = epoch_s();
    if (getenv("SHARED_NODE_TRACE"))
        fprintf(stderr, "PE %d pid %d: entered %.3f, init done %.3f\n", shmem_my_pe(), (int)getpid(), entered, inited);

    /* The waiting phase, as a real program's. */
    if (shmem_my_pe() == 0 && wait_s > 0) {
        struct timespec nap = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
        volatile unsigned long spin = 0;

        if (!busy)
            nanosleep(&nap, NULL);
        while (busy && epoch_s() < inited + wait_s)
            for (int k = 0; k < 100000; k++)
                spin += (unsigned long)k;
    }
    shmem_barrier_all();

    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    mine[0] = -entered; /* the earliest entry, as a max of negatives */
    mine[1] = inited - entered;
    mine[2] = inited;
    shmem_double_max_to_all(all, mine, 3, 0, 0, shmem_n_pes(), pwrk, psync);
    if (shmem_my_pe() == 0) {
        double first_entry = -all[0];
        char extra[64];

        snprintf(extra, sizeof extra, "\"wait_s\":%g,\"busy\":%d", wait_s, busy);
        bench_emit("shared_node", "init", 0, shmem_n_pes(), "init_s", all[1], extra);
        bench_emit("shared_node", "init", 0, shmem_n_pes(), "init_done_s", all[2] - (t0 > 0 ? t0 : first_entry),
                   extra);
        printf("{\"bench\":\"shared_node\",\"op\":\"init\",\"size\":0,\"npes\":%d,\"metric\":\"init_done_epoch\","
               "\"value\":%.6f}\n",
               shmem_n_pes(), all[2]);
    }
    shmem_finalize();
    return 0;
}

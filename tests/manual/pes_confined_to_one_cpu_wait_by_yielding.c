/* SPDX-License-Identifier: BSD-3-Clause */
/* PEs confined to one CPU (a container's or a job's cpuset, a launcher that
 * binds them all to one core) on a machine with more: the library counts
 * the CPUs its node's PEs may run on, not the machine's, and so waits by
 * giving the CPU away at once (SHMEM_INFO's "Node:" line, checked by the
 * manifest, says what it counted). Then every PE passes a token around the
 * ring with fetch-adds, gets and barriers, each step waiting for a peer
 * that can only run when the waiter yields: exact values on every PE.
 * Each PE confines itself before shmem_init, to the first CPU that takes
 * it (the same on every PE of the node). */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <unistd.h>

#define ROUNDS 200

static long token;   /* fetch-added by the left neighbour */
static long stamp;   /* read by the right neighbour */

static int confine_to_one_cpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);

    for (int cpu = 0; cpu < n && cpu < CPU_SETSIZE; cpu++) {
        cpu_set_t one;

        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0)
            return cpu;
    }
    return -1;
}

int main(void)
{
    int cpu = confine_to_one_cpu();

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    CHECK(cpu >= 0, "no CPU accepted this PE alone");
    for (long r = 1; r <= ROUNDS; r++) {
        stamp = r * 1000 + me;
        shmem_barrier_all();
        long before = shmem_long_atomic_fetch_add(&token, 1, right);
        CHECK(before == r - 1, "round %ld: token of PE %d was %ld before my add, not %ld", r, right, before, r - 1);
        long seen = shmem_long_g(&stamp, left);
        CHECK(seen == r * 1000 + left, "round %ld: stamp of PE %d read %ld, not %ld", r, left, seen, r * 1000 + left);
        shmem_barrier_all();
        CHECK(token == r, "round %ld: my token is %ld, not %ld", r, token, r);
    }
    check_finish();
    shmem_finalize();
    return 0;
}

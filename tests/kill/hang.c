/* SPDX-License-Identifier: BSD-3-Clause */
/* A job whose PEs wait forever: PE 0 in shmem_long_wait_until on a flag
 * nobody sets, every other PE in shmem_barrier_all (which PE 0 never
 * reaches). Each PE says "PE n waiting" on stdout first, so tests/kill/run.sh
 * kills the job only once every PE is inside the library. */
#include <shmem.h>
#include <stdio.h>

static long never_set;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    printf("PE %d waiting\n", me);
    fflush(stdout);
    if (me == 0)
        shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 1);
    else
        shmem_barrier_all();
    fprintf(stderr, "PE %d: TEST FAILURE: the wait ended\n", me);
    return 1;
}

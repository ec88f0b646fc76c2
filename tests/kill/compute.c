/* SPDX-License-Identifier: BSD-3-Clause */
/* A job whose PEs compute forever without calling the library after a
 * first barrier. Each PE says "PE n computing" on stdout first, so
 * tests/kill/run.sh kills the job only once every PE is computing. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    printf("PE %d computing\n", me);
    fflush(stdout);
    volatile unsigned long x = 1;
    for (;;)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return 0;
}

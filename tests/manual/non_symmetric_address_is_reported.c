/* SPDX-License-Identifier: BSD-3-Clause */
/* Under SHMEM_DEBUG=1, shmem_int_put with a stack array as dest must be
 * caught: stderr names the routine and the dest argument as not symmetric,
 * and the job ends with a nonzero status.  If the call returns, this program
 * says so and exits 0, which the manifest treats as a failure. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int on_stack[4] = {0};
    int src[4] = {5, 6, 7, 8};
    shmem_barrier_all();
    shmem_int_put(on_stack, src, 4, (me + 1) % npes);   /* dest is not symmetric */
    shmem_quiet();
    fprintf(stderr, "PE %d: TEST FAILURE: the call with a stack address returned normally (%d)\n",
            me, on_stack[0]);
    shmem_finalize();
    return 0;
}

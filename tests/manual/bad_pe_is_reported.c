/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem_int_put to pe == n_pes must be caught: the library prints an error
 * naming the routine and the bad pe argument on stderr and the job ends with
 * a nonzero status.  Run with and without SHMEM_DEBUG (the PE check is always
 * on).  If the call returns, this program says so and exits 0, which the
 * manifest (expect_status = "nonzero") treats as a failure. */
#include <shmem.h>
#include <stdio.h>

static int dest[4];

int main(void)
{
    shmem_init();
    int npes = shmem_n_pes();
    int src[4] = {1, 2, 3, 4};
    shmem_barrier_all();
    shmem_int_put(dest, src, 4, npes);        /* one past the last PE */
    shmem_quiet();
    fprintf(stderr, "PE %d: TEST FAILURE: the call with pe = %d returned normally\n",
            shmem_my_pe(), npes);
    shmem_finalize();
    return 0;
}

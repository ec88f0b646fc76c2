/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The default symmetric heap (512 MiB, SHMEM_SYMMETRIC_SIZE unset) takes a
 * 400 MiB allocation: programs written for Sandia OpenSHMEM, whose default
 * is 512 MiB too, run without setting the variable. Every PE writes the
 * first and last element of its block into its right neighbour's and
 * checks what its left neighbour wrote; only those pages are touched.
 */
#include <shmem.h>
#include "check.h"

#define BYTES ((size_t)400 << 20)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    size_t count = BYTES / sizeof(long);
    long *block = shmem_malloc(BYTES);

    CHECK(block != NULL, "shmem_malloc(%zu) returned NULL with the default heap", BYTES);
    if (block) {
        shmem_long_p(&block[0], 1000 + me, right);
        shmem_long_p(&block[count - 1], 2000 + me, right);
        shmem_barrier_all();
        CHECK(block[0] == 1000 + left, "block[0] = %ld, expected %d", block[0], 1000 + left);
        CHECK(block[count - 1] == 2000 + left, "block[last] = %ld, expected %d", block[count - 1], 2000 + left);
        shmem_barrier_all();
        shmem_free(block);
    }
    int rc = check_finish();
    shmem_finalize();
    return rc;
}

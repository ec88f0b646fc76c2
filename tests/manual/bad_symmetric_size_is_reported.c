/* SPDX-License-Identifier: BSD-3-Clause */
/* With SHMEM_SYMMETRIC_SIZE=12XB (not a size), shmem_init must fail with a
 * message naming SHMEM_SYMMETRIC_SIZE and a nonzero status.  If shmem_init
 * returns, this program says so and exits 0, which the manifest treats as a
 * failure. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    shmem_init();
    const char *v = getenv("SHMEM_SYMMETRIC_SIZE");
    fprintf(stderr, "PE %d: TEST FAILURE: shmem_init accepted a heap size of \"%s\"\n",
            shmem_my_pe(), v ? v : "(unset)");
    shmem_finalize();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A malformed Shoal environment variable (set by the manifest) must stop
 * shmem_init with one line naming the variable, its value and the accepted
 * forms, and a nonzero status. The argument only names the variable under
 * test, so each manifest entry gets its own label. If shmem_init returns,
 * this program says so and exits 0, which the manifest treats as a failure. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "(none)";
    const char *value = getenv(name);

    shmem_init();
    fprintf(stderr, "PE %d: TEST FAILURE: shmem_init accepted %s=\"%s\"\n", shmem_my_pe(), name,
            value ? value : "(unset)");
    shmem_finalize();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A setting every PE must share (argv[1]: SHMEM_SYMMETRIC_SIZE or
 * SHMEM_PROFILE) is set differently on the launcher's rank 1 alone, before
 * shmem_init (PMIX_RANK, which mpirun and srun --mpi=pmix both set). The
 * job must stop in shmem_init with a line naming the variable, never hang
 * at finalize or misread a peer's heap. If shmem_init returns, this
 * program says so and exits 0, which the manifest treats as a failure. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "(none)";
    const char *rank = getenv("PMIX_RANK");

    if (!rank) {
        fprintf(stderr, "TEST FAILURE: PMIX_RANK is not set: run this under oshrun\n");
        return 0;
    }
    if (atoi(rank) == 1) {
        if (strcmp(name, "SHMEM_SYMMETRIC_SIZE") == 0)
            setenv(name, "64M", 1);
        else if (strcmp(name, "SHMEM_PROFILE") == 0)
            setenv(name, "1", 1);
        else {
            fprintf(stderr, "TEST FAILURE: no differing value for %s\n", name);
            return 0;
        }
    }
    shmem_init();
    fprintf(stderr, "PE %d: TEST FAILURE: shmem_init accepted %s differing on PE 1\n", shmem_my_pe(), name);
    shmem_finalize();
    return 0;
}

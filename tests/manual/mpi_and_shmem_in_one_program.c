/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_and_shmem_in_one_program.c — a program that uses MPI and OpenSHMEM
 * together under oshrun (which launches through Open MPI's mpirun, so both
 * libraries see the same job): MPI_COMM_WORLD's rank and size are
 * shmem_my_pe and shmem_n_pes, an MPI_Allreduce and an OpenSHMEM AMO
 * (every PE adds me + 1 to a counter on PE 0) both give the exact sum, on
 * every PE. argv[1] is the order of the two inits and argv[2] of the two
 * finalizes: "mpi-first" or "shmem-first". Built only when meson finds MPI;
 * otherwise the runner reports SKIP. */
#include <mpi.h>

#include "check.h"

#include <string.h>

static long counter;

static int order_arg(const char *s)
{
    if (!strcmp(s, "mpi-first"))
        return 1;
    if (!strcmp(s, "shmem-first"))
        return 0;
    return -1;
}

int main(int argc, char **argv)
{
    int mpi_init_first, mpi_fini_first, rank = -1, size = -1, me, npes, rc;
    long mine, sum = -1, got, want, checked = 0;

    if (argc != 3 || (mpi_init_first = order_arg(argv[1])) < 0 || (mpi_fini_first = order_arg(argv[2])) < 0) {
        fprintf(stderr, "usage: mpi_and_shmem_in_one_program mpi-first|shmem-first mpi-first|shmem-first\n");
        return 2;
    }
    if (mpi_init_first) {
        MPI_Init(&argc, &argv);
        shmem_init();
    } else {
        shmem_init();
        MPI_Init(&argc, &argv);
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    checked += 2;
    CHECK(rank == me, "MPI_COMM_WORLD rank %d, shmem_my_pe %d", rank, me);
    CHECK(size == npes, "MPI_COMM_WORLD size %d, shmem_n_pes %d", size, npes);

    want = (long)npes * (npes + 1) / 2;
    mine = me + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    checked++;
    CHECK(sum == want, "MPI_Allreduce sum %ld, expected %ld", sum, want);

    shmem_long_atomic_add(&counter, mine, 0);
    shmem_barrier_all();
    got = shmem_long_atomic_fetch(&counter, 0);
    checked++;
    CHECK(got == want, "counter on PE 0 is %ld, expected %ld", got, want);

    /* The two libraries' synchronisation interleaved: an MPI barrier, then
     * an OpenSHMEM put seen after an MPI barrier. */
    MPI_Barrier(MPI_COMM_WORLD);
    shmem_long_p(&counter, 1000 + me, (me + 1) % npes);
    shmem_quiet();
    MPI_Barrier(MPI_COMM_WORLD);
    checked++;
    CHECK(counter == 1000 + (me + npes - 1) % npes, "after MPI_Barrier: counter %ld, expected %d", counter,
          1000 + (me + npes - 1) % npes);

    rc = check_finish();
    if (rc == 0 && me == 0)
        printf("checked %ld values on each of %d PEs\n", checked, npes);
    fflush(stdout);
    if (mpi_fini_first) {
        MPI_Finalize();
        shmem_finalize();
    } else {
        shmem_finalize();
        MPI_Finalize();
    }
    return rc;
}

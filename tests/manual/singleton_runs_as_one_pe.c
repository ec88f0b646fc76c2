/* SPDX-License-Identifier: BSD-3-Clause */
/* Started without a launcher the program is a job of one PE: n_pes is 1,
 * my_pe is 0, and RMA, AMOs, shmem_ptr and barriers to itself work. */
#include "check.h"

static long counter;
static int table[32];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes == 1, "shmem_n_pes() = %d without a launcher, want 1", npes);
    CHECK(me == 0, "shmem_my_pe() = %d without a launcher, want 0", me);

    int src[32];
    for (int i = 0; i < 32; i++)
        src[i] = 3 * i + 1;
    shmem_int_put(table, src, 32, 0);
    shmem_quiet();
    for (int i = 0; i < 32; i++)
        CHECK(table[i] == 3 * i + 1, "table[%d] = %d after put to self", i, table[i]);
    int got[32];
    shmem_int_get(got, table, 32, 0);
    for (int i = 0; i < 32; i++)
        CHECK(got[i] == 3 * i + 1, "get from self [%d] = %d", i, got[i]);

    long *heap = shmem_malloc(1024 * sizeof(long));
    CHECK(heap != NULL, "shmem_malloc = NULL");
    if (heap) {
        shmem_long_p(&heap[1023], 77, 0);
        shmem_barrier_all();
        CHECK(shmem_long_g(&heap[1023], 0) == 77, "g heap[1023] = %ld", shmem_long_g(&heap[1023], 0));
        CHECK(shmem_ptr(heap, 0) == heap, "shmem_ptr(heap, 0) != heap");
        shmem_free(heap);
    }

    long old = shmem_long_atomic_fetch_add(&counter, 5, 0);
    CHECK(old == 0, "fetch_add returned %ld, want 0", old);
    shmem_long_atomic_inc(&counter, 0);
    long cs = shmem_long_atomic_compare_swap(&counter, 6, 100, 0);
    CHECK(cs == 6, "compare_swap returned %ld, want 6", cs);
    CHECK(shmem_long_atomic_fetch(&counter, 0) == 100, "counter = %ld, want 100",
          shmem_long_atomic_fetch(&counter, 0));
    shmem_long_wait_until(&counter, SHMEM_CMP_EQ, 100);
    shmem_sync_all();
    shmem_barrier_all();
    CHECK(shmem_pe_accessible(0) == 1, "shmem_pe_accessible(0) != 1");
    CHECK(shmem_pe_accessible(1) == 0, "shmem_pe_accessible(1) != 0 in a singleton");

    int rc = check_finish();
    shmem_finalize();
    return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem_set_lock / shmem_clear_lock make a non-atomic read-modify-write on
 * PE 0 (get, add, put, quiet) exact under contention; an occupancy counter
 * proves no two PEs are inside at once.  shmem_test_lock returns 0 when it
 * takes a free lock and 1 when the lock is held, and a test_lock spin is a
 * working mutex too.  Locks live in .bss and on the symmetric heap. */
#include "check.h"

#define K 300
#define SPIN_LIMIT 50000000L

static long lock_a;            /* global lock */
static long value_a;           /* protected by lock_a, on PE 0 */
static long inside;            /* occupancy counter on PE 0 */
static long lock_b;            /* for the test_lock semantics */

static void critical_increment(long *value, int round)
{
    long occ = shmem_long_atomic_fetch_inc(&inside, 0);
    CHECK(occ == 0, "round %d: %ld other PE(s) inside the critical section", round, occ);
    long v = shmem_long_g(value, 0);
    shmem_long_p(value, v + 1, 0);
    shmem_quiet();
    occ = shmem_long_atomic_fetch_add(&inside, -1, 0);
    CHECK(occ == 1, "round %d: occupancy %ld on leaving, want 1", round, occ);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    long *heap_lock = shmem_calloc(1, sizeof(long));
    long *heap_value = shmem_calloc(1, sizeof(long));
    if (!heap_lock || !heap_value) {
        fprintf(stderr, "PE %d: FAIL shmem_calloc returned NULL\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    /* 1. set_lock / clear_lock on a global lock. */
    for (int r = 0; r < K; r++) {
        shmem_set_lock(&lock_a);
        critical_increment(&value_a, r);
        shmem_clear_lock(&lock_a);
    }
    shmem_barrier_all();
    long va = shmem_long_g(&value_a, 0);
    CHECK(va == (long)npes * K, "value under global lock = %ld, want %ld", va, (long)npes * K);

    /* 2. test_lock semantics, in lock-step. */
    shmem_barrier_all();
    if (me == 0) {
        int t = shmem_test_lock(&lock_b);
        CHECK(t == 0, "test_lock on a free lock returned %d, want 0", t);
    }
    shmem_barrier_all();
    int t;
    if (me != 0) {   /* locks are not reentrant: only non-holders test */
        t = shmem_test_lock(&lock_b);
        CHECK(t == 1, "test_lock on a lock held by PE 0 returned %d, want 1", t);
    }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock_b);
    shmem_barrier_all();
    if (me == npes - 1) {
        t = shmem_test_lock(&lock_b);
        CHECK(t == 0, "test_lock after PE 0 released returned %d, want 0", t);
    }
    shmem_barrier_all();
    if (me != npes - 1) {
        t = shmem_test_lock(&lock_b);
        CHECK(t == 1, "test_lock on a lock held by PE %d returned %d, want 1", npes - 1, t);
    }
    shmem_barrier_all();
    if (me == npes - 1)
        shmem_clear_lock(&lock_b);
    shmem_barrier_all();

    /* 3. A test_lock spin as the mutex, on a heap lock. */
    for (int r = 0; r < K; r++) {
        long spins = 0;
        while (shmem_test_lock(heap_lock) != 0) {
            if (++spins > SPIN_LIMIT) {
                fprintf(stderr, "PE %d: FAIL test_lock never succeeded in round %d\n", me, r);
                shmem_global_exit(2);
            }
            sched_yield();
        }
        critical_increment(heap_value, r);
        shmem_clear_lock(heap_lock);
    }
    shmem_barrier_all();
    long vh = shmem_long_g(heap_value, 0);
    CHECK(vh == (long)npes * K, "value under heap lock = %ld, want %ld", vh, (long)npes * K);

    /* 4. Mixing set_lock and test_lock on the same lock. */
    shmem_barrier_all();
    for (int r = 0; r < K; r++) {
        if ((r + me) % 2)
            shmem_set_lock(heap_lock);
        else
            while (shmem_test_lock(heap_lock) != 0)
                sched_yield();
        critical_increment(heap_value, r);
        shmem_clear_lock(heap_lock);
    }
    shmem_barrier_all();
    vh = shmem_long_g(heap_value, 0);
    CHECK(vh == 2L * npes * K, "value after mixed locking = %ld, want %ld", vh, 2L * npes * K);

    int rc = check_finish();
    shmem_free(heap_value);
    shmem_free(heap_lock);
    shmem_finalize();
    return rc;
}

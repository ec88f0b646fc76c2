/* SPDX-License-Identifier: BSD-3-Clause */
/* The point-to-point synchronisation families: shmem_test / _all / _any /
 * _some (+ _vector) with and without status masks, on values PE 0 sets with
 * AMOs on itself, then shmem_wait_until / _all / _any / _some (+ _vector) on
 * values other PEs change with AMOs.  Return values are exact: 1/0 for test
 * and test_all, an index or SIZE_MAX for _any, a count and indices for _some. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define N 8

static long lv[N];          /* test families, set locally by AMO */
static long wv[N];          /* wait families, set by PE 1 */
static int iv;              /* wait_until on int, generic name */
static long sum;            /* wait_until on long, all peers add */
static long go;             /* PE 0 -> PE 1 phase handshake */

static void set_all_local(long *a, const long *vals)
{
    for (int i = 0; i < N; i++)
        shmem_long_atomic_set(&a[i], vals[i], shmem_my_pe());
    shmem_quiet();
}

/* Sort a short index list so sets can be compared. */
static void sort_sizes(size_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
            size_t t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
}

static void check_indices(const char *what, size_t *got, size_t n, const size_t *want, size_t nwant)
{
    CHECK(n == nwant, "%s returned %zu, want %zu", what, n, nwant);
    if (n != nwant || n > N)
        return;
    sort_sizes(got, n);
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s index %zu = %zu, want %zu", what, i, got[i], want[i]);
}

/* Tests on PE 0's own array, no peers involved. */
static void local_tests(void)
{
    static const long seq[N] = {0, 1, 2, 3, 4, 5, 6, 7};
    set_all_local(lv, seq);
    int none[N] = {0};
    int mask0[N] = {1, 0, 0, 0, 0, 0, 0, 0};
    int mask56[N] = {0, 0, 0, 0, 0, 1, 1, 0};
    int all[N] = {1, 1, 1, 1, 1, 1, 1, 1};
    int odd[N] = {0, 1, 0, 1, 0, 1, 0, 1};
    size_t idx[N];

    /* shmem_test: every comparison operator. */
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_EQ, 3) == 1, "test EQ 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_EQ, 4) == 0, "test EQ 4");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_NE, 4) == 1, "test NE 4");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_NE, 3) == 0, "test NE 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_GT, 2) == 1, "test GT 2");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_GT, 3) == 0, "test GT 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_GE, 3) == 1, "test GE 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_GE, 4) == 0, "test GE 4");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_LT, 4) == 1, "test LT 4");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_LT, 3) == 0, "test LT 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_LE, 3) == 1, "test LE 3");
    CHECK(shmem_long_test(&lv[3], SHMEM_CMP_LE, 2) == 0, "test LE 2");
    CHECK(shmem_test(&lv[0], SHMEM_CMP_EQ, 0L) == 1, "generic shmem_test EQ 0");

    /* test_all */
    CHECK(shmem_long_test_all(lv, N, NULL, SHMEM_CMP_GE, 0) == 1, "test_all GE 0");
    CHECK(shmem_long_test_all(lv, N, NULL, SHMEM_CMP_GT, 0) == 0, "test_all GT 0");
    CHECK(shmem_long_test_all(lv, N, none, SHMEM_CMP_GT, 0) == 0, "test_all GT 0, zero mask");
    CHECK(shmem_long_test_all(lv, N, mask0, SHMEM_CMP_GT, 0) == 1, "test_all GT 0, index 0 masked");
    CHECK(shmem_long_test_all(lv, N, all, SHMEM_CMP_EQ, 99) == 1, "test_all all masked (empty set)");
    CHECK(shmem_long_test_all(lv, 0, NULL, SHMEM_CMP_EQ, 99) == 1, "test_all nelems 0");

    /* test_any */
    CHECK(shmem_long_test_any(lv, N, NULL, SHMEM_CMP_EQ, 5) == 5, "test_any EQ 5");
    CHECK(shmem_long_test_any(lv, N, NULL, SHMEM_CMP_EQ, 100) == SIZE_MAX, "test_any none satisfied");
    CHECK(shmem_long_test_any(lv, N, mask56, SHMEM_CMP_EQ, 5) == SIZE_MAX, "test_any EQ 5 masked");
    size_t a = shmem_long_test_any(lv, N, mask56, SHMEM_CMP_GE, 5);
    CHECK(a == 7, "test_any GE 5 with 5,6 masked = %zu, want 7", a);
    CHECK(shmem_long_test_any(lv, N, all, SHMEM_CMP_GE, 0) == SIZE_MAX, "test_any all masked");
    CHECK(shmem_long_test_any(lv, 0, NULL, SHMEM_CMP_GE, 0) == SIZE_MAX, "test_any nelems 0");

    /* test_some */
    size_t n = shmem_long_test_some(lv, N, idx, NULL, SHMEM_CMP_GE, 5);
    check_indices("test_some GE 5", idx, n, (const size_t[]){5, 6, 7}, 3);
    n = shmem_long_test_some(lv, N, idx, mask56, SHMEM_CMP_GE, 5);
    check_indices("test_some GE 5 masked 5,6", idx, n, (const size_t[]){7}, 1);
    n = shmem_long_test_some(lv, N, idx, NULL, SHMEM_CMP_LT, 0);
    CHECK(n == 0, "test_some LT 0 returned %zu, want 0", n);
    n = shmem_long_test_some(lv, N, idx, all, SHMEM_CMP_GE, 0);
    CHECK(n == 0, "test_some all masked returned %zu, want 0", n);

    /* vector forms: per-element comparison values */
    long evens[N] = {0, 100, 2, 100, 4, 100, 6, 100};
    CHECK(shmem_long_test_all_vector(lv, N, NULL, SHMEM_CMP_EQ, evens) == 0, "test_all_vector EQ");
    CHECK(shmem_long_test_all_vector(lv, N, odd, SHMEM_CMP_EQ, evens) == 1, "test_all_vector EQ odd masked");
    CHECK(shmem_long_test_all_vector(lv, N, NULL, SHMEM_CMP_LE, evens) == 1, "test_all_vector LE");
    int mask024[N] = {1, 0, 1, 0, 1, 0, 0, 0};
    a = shmem_long_test_any_vector(lv, N, mask024, SHMEM_CMP_EQ, evens);
    CHECK(a == 6, "test_any_vector EQ with 0,2,4 masked = %zu, want 6", a);
    a = shmem_long_test_any_vector(lv, N, NULL, SHMEM_CMP_EQ, evens);
    CHECK(a == 0 || a == 2 || a == 4 || a == 6, "test_any_vector EQ = %zu, want an even index", a);
    CHECK(shmem_long_test_any_vector(lv, N, NULL, SHMEM_CMP_GT, evens) == SIZE_MAX,
          "test_any_vector GT none satisfied");
    n = shmem_long_test_some_vector(lv, N, idx, NULL, SHMEM_CMP_EQ, evens);
    check_indices("test_some_vector EQ", idx, n, (const size_t[]){0, 2, 4, 6}, 4);
    n = shmem_long_test_some_vector(lv, N, idx, mask024, SHMEM_CMP_EQ, evens);
    check_indices("test_some_vector EQ masked 0,2,4", idx, n, (const size_t[]){6}, 1);

    /* waits whose answer is already known return at once */
    shmem_long_wait_until_all(lv, N, NULL, SHMEM_CMP_GE, 0);
    shmem_long_wait_until_all(lv, N, all, SHMEM_CMP_EQ, 12345);   /* empty set */
    a = shmem_long_wait_until_any(lv, N, mask56, SHMEM_CMP_GE, 5);
    CHECK(a == 7, "wait_until_any (already true) = %zu, want 7", a);
    a = shmem_long_wait_until_any(lv, N, all, SHMEM_CMP_EQ, 12345);
    CHECK(a == SIZE_MAX, "wait_until_any all masked = %zu, want SIZE_MAX", a);
    n = shmem_long_wait_until_some(lv, N, idx, all, SHMEM_CMP_EQ, 12345);
    CHECK(n == 0, "wait_until_some all masked = %zu, want 0", n);
    n = shmem_long_wait_until_some(lv, N, idx, NULL, SHMEM_CMP_LE, 1);
    check_indices("wait_until_some LE 1 (already true)", idx, n, (const size_t[]){0, 1}, 2);
    n = shmem_long_wait_until_some_vector(lv, N, idx, NULL, SHMEM_CMP_EQ, evens);
    check_indices("wait_until_some_vector (already true)", idx, n, (const size_t[]){0, 2, 4, 6}, 4);
    shmem_long_wait_until_all_vector(lv, N, odd, SHMEM_CMP_EQ, evens);
    a = shmem_long_wait_until_any_vector(lv, N, mask024, SHMEM_CMP_EQ, evens);
    CHECK(a == 6, "wait_until_any_vector (already true) = %zu, want 6", a);
}

/* Phase handshake: PE 0 resets, then lets PE 1 change values. */
static void phase_start(int me, long phase)
{
    if (me == 0) {
        static const long zeros[N] = {0};
        set_all_local(wv, zeros);
        shmem_long_atomic_set(&go, phase, 1);
    } else if (me == 1) {
        wait_long_bounded(&go, SHMEM_CMP_EQ, phase, "phase start");
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes < 2) {
        fprintf(stderr, "needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    size_t idx[N];

    if (me == 0)
        local_tests();
    shmem_barrier_all();

    /* Phase 1: every peer adds 1 to PE 0's sum; PE 0 waits for all of them.
     * PE 1 also wakes an int wait_until (generic name) after a delay. */
    if (me == 0) {
        shmem_long_wait_until(&sum, SHMEM_CMP_GE, npes - 1);
        CHECK(sum == npes - 1, "sum = %ld, want %d", sum, npes - 1);
        shmem_wait_until(&iv, SHMEM_CMP_NE, 0);
        CHECK(iv == 42, "iv = %d, want 42", iv);
    } else {
        shmem_long_atomic_add(&sum, 1, 0);
        if (me == 1) {
            for (volatile int spin = 0; spin < 100000; spin++)
                ;
            shmem_int_atomic_set(&iv, 42, 0);
        }
    }
    shmem_barrier_all();

    /* Phase 2: wait_until_all; PE 1 sets the elements one by one. */
    phase_start(me, 2);
    if (me == 0) {
        shmem_long_wait_until_all(wv, N, NULL, SHMEM_CMP_EQ, 1);
        for (int i = 0; i < N; i++)
            CHECK(wv[i] == 1, "after wait_until_all wv[%d] = %ld, want 1", i, wv[i]);
    } else if (me == 1) {
        for (int i = N - 1; i >= 0; i--)
            shmem_long_atomic_set(&wv[i], 1, 0);
    }
    shmem_barrier_all();

    /* Phase 3: wait_until_any; the first element PE 1 satisfies is masked,
     * so the only possible answer is index 3. */
    phase_start(me, 3);
    if (me == 0) {
        int status[N] = {1, 0, 0, 0, 0, 0, 0, 0};
        size_t a = shmem_long_wait_until_any(wv, N, status, SHMEM_CMP_EQ, 2);
        CHECK(a == 3, "wait_until_any = %zu, want 3", a);
        CHECK(wv[3] == 2, "wv[3] = %ld, want 2", wv[3]);
    } else if (me == 1) {
        shmem_long_atomic_set(&wv[0], 2, 0);
        shmem_long_atomic_set(&wv[3], 2, 0);
    }
    shmem_barrier_all();

    /* Phase 4: wait_until_some; PE 1 satisfies indices 1 and 6. */
    phase_start(me, 4);
    if (me == 0) {
        size_t n = shmem_long_wait_until_some(wv, N, idx, NULL, SHMEM_CMP_EQ, 3);
        CHECK(n >= 1 && n <= 2, "wait_until_some returned %zu, want 1 or 2", n);
        for (size_t i = 0; i < n && i < N; i++)
            CHECK((idx[i] == 1 || idx[i] == 6) && wv[idx[i]] == 3,
                  "wait_until_some index %zu = %zu (value %ld)", i, idx[i],
                  idx[i] < N ? wv[idx[i]] : -1L);
    } else if (me == 1) {
        shmem_long_atomic_set(&wv[1], 3, 0);
        shmem_long_atomic_set(&wv[6], 3, 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        size_t n = shmem_long_test_some(wv, N, idx, NULL, SHMEM_CMP_EQ, 3);
        check_indices("test_some after wait_until_some", idx, n, (const size_t[]){1, 6}, 2);
    }
    shmem_barrier_all();

    /* Phase 5: vector waits; each element waits for its own value. */
    phase_start(me, 5);
    long want[N] = {10, 11, 12, 13, 14, 15, 16, 17};
    if (me == 0) {
        shmem_long_wait_until_all_vector(wv, N, NULL, SHMEM_CMP_GE, want);
        for (int i = 0; i < N; i++)
            CHECK(wv[i] == want[i], "after wait_until_all_vector wv[%d] = %ld, want %ld",
                  i, wv[i], want[i]);
    } else if (me == 1) {
        for (int i = 0; i < N; i++)
            shmem_long_atomic_add(&wv[i], want[i], 0);
    }
    shmem_barrier_all();

    phase_start(me, 6);
    if (me == 0) {
        int status[N] = {0, 0, 0, 0, 0, 0, 0, 1};
        size_t a = shmem_long_wait_until_any_vector(wv, N, status, SHMEM_CMP_EQ, want);
        CHECK((a == 5 || a == 2) && wv[a] == want[a], "wait_until_any_vector = %zu, want 5 or 2", a);
        size_t n = shmem_long_wait_until_some_vector(wv, N, idx, status, SHMEM_CMP_EQ, want);
        CHECK(n >= 1, "wait_until_some_vector returned %zu", n);
        for (size_t i = 0; i < n && i < N; i++)
            CHECK(idx[i] == 5 || idx[i] == 2, "wait_until_some_vector index %zu", idx[i]);
    } else if (me == 1) {
        shmem_long_atomic_set(&wv[7], want[7], 0);  /* masked */
        shmem_long_atomic_set(&wv[5], want[5], 0);
        shmem_long_atomic_set(&wv[2], want[2], 0);
    }
    shmem_barrier_all();

    /* Phase 7: the same with int and the C11 generic names. */
    static int wi[N];
    if (me == 0)
        for (int i = 0; i < N; i++)
            shmem_int_atomic_set(&wi[i], 0, 0);
    shmem_barrier_all();
    if (me == 0) {
        shmem_wait_until_all(wi, N, NULL, SHMEM_CMP_GT, 0);
        size_t a = shmem_test_any(wi, N, NULL, SHMEM_CMP_EQ, 7);
        CHECK(a == 6, "generic test_any on int = %zu, want 6 (wi[6] == 7)", a);
        CHECK(shmem_test_all(wi, N, NULL, SHMEM_CMP_GT, 0) == 1, "generic test_all on int");
        size_t n = shmem_test_some(wi, N, idx, NULL, SHMEM_CMP_LE, 2);
        check_indices("generic test_some on int", idx, n, (const size_t[]){0, 1}, 2);
    } else if (me == 1) {
        for (int i = 0; i < N; i++)
            shmem_int_atomic_set(&wi[i], i + 1, 0);
    }

    int rc = check_finish();
    shmem_finalize();
    return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Global and static variables are symmetric data objects: puts, gets, strided
 * RMA and AMOs work on them on every peer — zero-initialised (.bss), explicitly
 * initialised (.data), file-scope static and function-scope static. */
#include "check.h"

#include <stdint.h>

#define MAXPES 64

static long counter;                 /* .bss, internal linkage */
int table[64];                       /* .bss, external linkage */
long initialised[8] = {11, 22, 33, 44, 55, 66, 77, 88};  /* .data */
static double sdouble = 3.25;        /* .data, internal linkage */
static int64_t big_bss[4096];        /* a larger .bss object */
short halfwords[16];                 /* a narrow type */

static int *function_static(void)
{
    static int fs[16];               /* function-scope static */
    return fs;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    if (npes > MAXPES) {
        fprintf(stderr, "needs at most %d PEs\n", MAXPES);
        shmem_finalize();
        return 1;
    }

    /* .data values are still the initial ones on every peer. */
    long init_copy[8];
    shmem_long_get(init_copy, initialised, 8, right);
    for (int i = 0; i < 8; i++)
        CHECK(init_copy[i] == 11L * (i + 1), "get initialised[%d] from PE %d = %ld", i, right, init_copy[i]);
    double d = shmem_double_g(&sdouble, left);
    CHECK(d == 3.25, "g sdouble from PE %d = %g, want 3.25", left, d);
    shmem_barrier_all();

    /* Puts into the right neighbour's globals. */
    int row[64];
    for (int i = 0; i < 64; i++)
        row[i] = me * 100 + i;
    shmem_int_put(table, row, 64, right);
    long pair[2] = {me, me + 1};
    shmem_put(initialised, pair, 2, right);                        /* C11 generic */
    shmem_double_p(&sdouble, 0.5 + me, right);
    shmem_int_iput(function_static(), row, 2, 3, 8, right);        /* fs[0,2,..14] = row[0,3,..21] */
    shmem_short_p(&halfwords[me % 16], (short)(-1 - me), right);
    static int64_t bigsrc[4096];
    for (int i = 0; i < 4096; i++)
        bigsrc[i] = ((int64_t)me << 40) | i;
    shmem_int64_put_nbi(big_bss, bigsrc, 4096, right);
    shmem_quiet();

    /* AMOs on a static counter on PE 0, and on the right neighbour's table. */
    long old = shmem_long_atomic_fetch_add(&counter, me + 1, 0);
    /* others add (p + 1) and inc: old is below the final total minus my part */
    CHECK(old >= 0 && old <= (long)npes * (npes + 1) / 2 + npes - (me + 1) - 1,
          "fetch_add on counter returned %ld", old);
    shmem_atomic_inc(&counter, 0);                                  /* C11 generic */
    shmem_barrier_all();

    for (int i = 0; i < 64; i++)
        CHECK(table[i] == left * 100 + i, "table[%d] = %d, want %d", i, table[i], left * 100 + i);
    CHECK(initialised[0] == left && initialised[1] == left + 1,
          "initialised[0..1] = %ld %ld, want %d %d", initialised[0], initialised[1], left, left + 1);
    for (int i = 2; i < 8; i++)
        CHECK(initialised[i] == 11L * (i + 1), "initialised[%d] = %ld changed", i, initialised[i]);
    CHECK(sdouble == 0.5 + left, "sdouble = %g, want %g", sdouble, 0.5 + left);
    int *fs = function_static();
    for (int i = 0; i < 16; i++) {
        int want = (i % 2 == 0) ? left * 100 + (i / 2) * 3 : 0;
        CHECK(fs[i] == want, "function static fs[%d] = %d, want %d", i, fs[i], want);
    }
    CHECK(halfwords[left % 16] == (short)(-1 - left), "halfwords[%d] = %d", left % 16, halfwords[left % 16]);
    for (int i = 0; i < 4096; i++)
        if (big_bss[i] != (((int64_t)left << 40) | i)) {
            CHECK(0, "big_bss[%d] = %lld, want %lld", i, (long long)big_bss[i],
                  (long long)(((int64_t)left << 40) | i));
            break;
        }
    long want_counter = (long)npes * (npes + 1) / 2 + npes;
    long c = shmem_long_atomic_fetch(&counter, 0);
    CHECK(c == want_counter, "counter on PE 0 = %ld, want %ld", c, want_counter);
    shmem_barrier_all();

    /* Gets from globals, strided get from a function static, AMOs on .data. */
    int got[64];
    shmem_int_get(got, table, 64, right);            /* right's table was written by me */
    for (int i = 0; i < 64; i++)
        CHECK(got[i] == me * 100 + i, "get table[%d] from PE %d = %d", i, right, got[i]);
    int strided[8];
    shmem_int_iget(strided, function_static(), 1, 2, 8, right);
    for (int i = 0; i < 8; i++)
        CHECK(strided[i] == me * 100 + 3 * i, "iget fs[%d] from PE %d = %d", 2 * i, right, strided[i]);
    shmem_barrier_all();
    for (int p = 0; p < npes; p++)
        shmem_long_atomic_add(&initialised[7], 1000, p);
    long sw = shmem_long_atomic_swap(&initialised[6], (long)me, right);
    CHECK(sw == 77, "swap initialised[6] on PE %d returned %ld, want 77", right, sw);
    int cs = shmem_int_atomic_compare_swap(&table[63], me * 100 + 63, -5, right);
    CHECK(cs == me * 100 + 63, "compare_swap table[63] on PE %d returned %d, want %d",
          right, cs, me * 100 + 63);
    shmem_barrier_all();
    CHECK(initialised[7] == 88 + 1000L * npes, "initialised[7] = %ld, want %ld",
          initialised[7], 88 + 1000L * npes);
    CHECK(initialised[6] == left, "initialised[6] = %ld, want %d", initialised[6], left);
    CHECK(table[63] == -5, "table[63] = %d, want -5", table[63]);

    int rc = check_finish();
    shmem_finalize();
    return rc;
}

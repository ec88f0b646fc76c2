/* SPDX-License-Identifier: BSD-3-Clause */
/* Programs written against OpenSHMEM 1.0 still build and run: start_pes,
 * _my_pe, _num_pes, shmalloc/shfree/shrealloc/shmemalign, the old AMO names
 * (finc, fadd, cswap, swap, inc, add, fetch, set), the old waits
 * (shmem_wait, shmem_long_wait, shmem_int_wait, the long shmem_wait_until
 * function) and _SHMEM_CMP_*.  No shmem_finalize: start_pes implies it. */
#include "check.h"

#include <stdint.h>

static int icount;
static int iswap;
static long lflag;
static int iflag;
static long lwait;

int main(void)
{
    start_pes(0);
    int me = _my_pe();
    int npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe/_num_pes = %d/%d, shmem says %d/%d",
          me, npes, shmem_my_pe(), shmem_n_pes());
    CHECK(me >= 0 && me < npes, "_my_pe = %d of %d", me, npes);

    /* legacy allocation */
    long *a = shmalloc(100 * sizeof(long));
    CHECK(a != NULL, "shmalloc = NULL");
    if (!a)
        shmem_global_exit(1);
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    long *b = shrealloc(a, 5000 * sizeof(long));
    CHECK(b != NULL, "shrealloc = NULL");
    if (!b)
        shmem_global_exit(1);
    for (int i = 0; i < 100; i++)
        CHECK(b[i] == me * 1000 + i, "after shrealloc b[%d] = %ld", i, b[i]);
    long *al = shmemalign(4096, 512);
    CHECK(al != NULL && (uintptr_t)al % 4096 == 0, "shmemalign(4096) = %p", (void *)al);
    shmem_barrier_all();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    shmem_long_put(b + 4000, b, 100, right);
    if (al)
        shmem_long_p(al, (long)me, right);
    shmem_barrier_all();
    for (int i = 0; i < 100; i++)
        CHECK(b[4000 + i] == left * 1000 + i, "shrealloc'd tail [%d] = %ld", 4000 + i, b[4000 + i]);
    if (al)
        CHECK(al[0] == left, "shmemalign block [0] = %ld, want %d", al[0], left);
    shmem_barrier_all();
    shfree(al);
    shfree(b);

    /* legacy AMO names, all on PE 0 */
    int t = shmem_int_finc(&icount, 0);
    CHECK(t >= 0 && t < 112 * npes, "shmem_int_finc returned %d", t);
    int f = shmem_int_fadd(&icount, 10, 0);
    CHECK(f >= 1 && f < 112 * npes, "shmem_int_fadd returned %d", f);
    shmem_int_inc(&icount, 0);
    shmem_int_add(&icount, 100, 0);
    shmem_barrier_all();
    int total = shmem_int_fetch(&icount, 0);
    CHECK(total == 112 * npes, "icount = %d, want %d", total, 112 * npes);
    shmem_barrier_all();
    if (me == 0)
        shmem_int_set(&iswap, -1, 0);
    shmem_barrier_all();
    /* a cswap chain: PE p waits for its turn, value p-1 -> p */
    for (long spins = 0; shmem_int_cswap(&iswap, me - 1, me, 0) != me - 1; spins++) {
        if (spins > 100000000L) {
            CHECK(0, "shmem_int_cswap chain never reached PE %d", me);
            break;
        }
        sched_yield();
    }
    shmem_barrier_all();
    int last = shmem_int_swap(&iswap, 12345, 0);   /* everyone swaps; one sees npes-1 */
    CHECK(last == npes - 1 || last == 12345, "shmem_int_swap returned %d", last);
    shmem_barrier_all();
    CHECK(shmem_int_fetch(&iswap, 0) == 12345, "iswap = %d after swaps", shmem_int_fetch(&iswap, 0));
    long ls = shmem_long_swap(&lwait, 0L, right);   /* lwait is 0 everywhere: a no-op swap */
    CHECK(ls == 0, "shmem_long_swap returned %ld, want 0", ls);
    shmem_barrier_all();

    /* legacy waits: PE 0 sets flags on everyone else, who wait with the old names */
    if (me == 0) {
        for (int p = 1; p < npes; p++) {
            shmem_long_p(&lflag, 5, p);
            shmem_int_p(&iflag, 9, p);
            shmem_long_p(&lwait, 3, p);
        }
        shmem_quiet();
    } else {
        shmem_wait(&lflag, 0);                             /* until != 0 */
        CHECK(lflag == 5, "after shmem_wait lflag = %ld", lflag);
        shmem_long_wait(&lflag, 0);
        shmem_int_wait(&iflag, 0);
        CHECK(iflag == 9, "after shmem_int_wait iflag = %d", iflag);
        (shmem_wait_until)(&lwait, _SHMEM_CMP_EQ, 3);      /* the 1.0 long function */
        CHECK(lwait == 3, "after shmem_wait_until lwait = %ld", lwait);
        shmem_long_wait_until(&lwait, _SHMEM_CMP_GE, 3);
    }
    CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE &&
          _SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE &&
          _SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE,
          "_SHMEM_CMP_* differ from SHMEM_CMP_*");

    /* no shmem_finalize: start_pes finalizes at exit */
    return check_finish();
}

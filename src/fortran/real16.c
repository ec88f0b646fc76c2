/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fortran/real16.c — SHMEM_REAL16_{MAX,MIN,SUM,PROD}_TO_ALL. REAL*16 is
 * IEEE binary128, which no C type of the table is (long double is x87
 * extended precision on x86-64), so it is reduced here with _Float128.
 * Every PE reads every member's source with gets between two barriers on
 * pSync, folding in PE order, so all members get bit-identical results;
 * dest is written after the second barrier, so dest may be source. pWrk
 * is not needed. O(PE_size) gets per PE: fine for the rare REAL*16.
 */
#include <stdlib.h>
#include <string.h>

#include "shmemi_fortran.h"

typedef _Float128 real16;

static const char *const names[] = {
    [SHMEMI_OP_MAX] = "SHMEM_REAL16_MAX_TO_ALL",
    [SHMEMI_OP_MIN] = "SHMEM_REAL16_MIN_TO_ALL",
    [SHMEMI_OP_SUM] = "SHMEM_REAL16_SUM_TO_ALL",
    [SHMEMI_OP_PROD] = "SHMEM_REAL16_PROD_TO_ALL",
};

static void fold(enum shmemi_reduce_op op, real16 *acc, const real16 *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (op) {
        case SHMEMI_OP_MAX: acc[i] = x[i] > acc[i] ? x[i] : acc[i]; break;
        case SHMEMI_OP_MIN: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
        case SHMEMI_OP_SUM: acc[i] += x[i]; break;
        default: acc[i] *= x[i]; break;
        }
    }
}

void shmemi_f_real16_to_all(enum shmemi_reduce_op op, void *dest, const void *source, const shmemi_fint *nreduce,
                            const shmemi_fint *PE_start, const shmemi_fint *logPE_stride,
                            const shmemi_fint *PE_size, void *pWrk, long *pSync)
{
    const char *routine = names[op];
    int start = (int)*PE_start, log = (int)*logPE_stride, size = (int)*PE_size;
    int me = shmemi_my_pe();
    size_t n, bytes;
    real16 *acc, *tmp;

    (void)pWrk;
    shmemi_check_init(routine);
    if (*nreduce < 0)
        shmemi_fatal(routine, "nreduce %lld is negative", (long long)*nreduce);
    if (log < 0 || log > 30 || size < 1)
        shmemi_fatal(routine, "bad active set (PE_start %d, logPE_stride %d, PE_size %d)", start, log, size);
    n = (size_t)*nreduce;
    bytes = n * sizeof(real16);
    acc = malloc(bytes ? bytes : 1);
    tmp = malloc(bytes ? bytes : 1);
    if (!acc || !tmp)
        shmemi_fatal(routine, "out of memory for %zu bytes", 2 * bytes);

    shmemi_barrier(start, log, size, pSync); /* every member's source is ready */
    for (int k = 0; k < size; k++) {
        int pe = start + (k << log);
        const real16 *x = source;
        if (pe != me) {
            shmemi_get(SHMEM_CTX_DEFAULT, tmp, source, bytes, pe, routine);
            x = tmp;
        }
        if (k == 0)
            memcpy(acc, x, bytes);
        else
            fold(op, acc, x, n);
    }
    shmemi_barrier(start, log, size, pSync); /* no member reads a source any more */
    memcpy(dest, acc, bytes);
    free(acc);
    free(tmp);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* zero_length_calls_accept_null.c — a call that moves no data touches no
 * memory, so NULL (or any) pointers are valid there, with and without
 * SHMEM_DEBUG: strided RMA with nelems 0 or bsize 0, team alltoall(s) and
 * the 1.4 alltoall(s)32/64 with nelems 0, and the other zero-length forms.
 * The symmetric words around stay untouched. */
#include "check.h"

#include <stdint.h>

static long pSync[SHMEM_ALLTOALLS_SYNC_SIZE];
static int32_t guard32[4];
static int64_t guard64[4];

int main(void)
{
    long checked = 0;
    int me, npes, right, rc;
    uint64_t *sig;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    for (int i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < 4; i++) {
        guard32[i] = 7 + i;
        guard64[i] = 70 + i;
    }
    sig = (uint64_t *)shmem_calloc(1, sizeof *sig);
    if (shmem_ctx_create(0, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    shmem_barrier_all();

    /* Strided RMA: nothing to move. */
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_iput32(NULL, NULL, 2, 3, 0, right);
    shmem_iget64(NULL, NULL, 2, 3, 0, right);
    shmem_ctx_long_iput(ctx, NULL, NULL, 1, 1, 0, right);
    shmem_ctx_long_iget(ctx, NULL, NULL, 1, 1, 0, right);
    shmem_int_ibput(NULL, NULL, 1, 1, 4, 0, right);
    shmem_int_ibget(NULL, NULL, 1, 1, 0, 3, right);
    /* Contiguous RMA, signals. */
    shmem_int_put(NULL, NULL, 0, right);
    shmem_int_get(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_putmem_signal(NULL, NULL, 0, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_barrier_all();
    checked++;
    CHECK(*sig == 1, "putmem_signal with 0 bytes: signal %llu, want 1", (unsigned long long)*sig);

    /* Team collectives with nelems 0. */
    checked += 6;
    CHECK(shmem_int_alltoalls(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0) == 0, "shmem_int_alltoalls");
    CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 2, 3, 0) == 0, "shmem_alltoallsmem");
    CHECK(shmem_long_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "shmem_long_alltoall");
    CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "shmem_alltoallmem");
    CHECK(shmem_int_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "shmem_int_fcollect");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "shmem_int_broadcast");

    /* 1.4 active-set forms with nelems 0 (pSync reused after a barrier). */
    shmem_alltoalls32(NULL, NULL, 1, 1, 0, 0, 0, npes, pSync);
    shmem_barrier_all();
    shmem_alltoalls64(NULL, NULL, 2, 3, 0, 0, 0, npes, pSync);
    shmem_barrier_all();
    shmem_alltoall32(NULL, NULL, 0, 0, 0, npes, pSync);
    shmem_barrier_all();
    shmem_alltoall64(NULL, NULL, 0, 0, 0, npes, pSync);
    shmem_barrier_all();
    shmem_fcollect32(NULL, NULL, 0, 0, 0, npes, pSync);
    shmem_barrier_all();

    for (int i = 0; i < 4; i++, checked += 2) {
        CHECK(guard32[i] == 7 + i, "guard32[%d] is %d", i, (int)guard32[i]);
        CHECK(guard64[i] == 70 + i, "guard64[%d] is %lld", i, (long long)guard64[i]);
    }
    for (int i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; i++, checked++)
        CHECK(pSync[i] == SHMEM_SYNC_VALUE, "pSync[%d] not restored", i);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_free(sig);
    rc = check_finish();
    if (rc == 0 && me == 0)
        printf("checked %ld values\n", checked);
    shmem_finalize();
    return rc;
}

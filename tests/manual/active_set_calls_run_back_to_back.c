/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * active_set_calls_run_back_to_back: 1.4 active-set collectives called
 * many times in a row with two alternating pSync arrays and no other
 * synchronisation, as the spec allows (each pSync is reused only once
 * every PE has left the call that used it before). Small broadcasts,
 * fcollects and alltoalls push into peers' dest (node-local by stores, on
 * the network by puts), so a root may run calls ahead of the others: every call here gets its own dest
 * (broadcast) or alternates two (fcollect, alltoall, which complete with
 * a barrier), and every PE checks every value, then that both pSync
 * arrays are back to SHMEM_SYNC_VALUE. Small reductions push partial
 * results into the partners' pWrk, so they alternate two pWrk arrays with
 * the two pSync arrays (the spec's rule for both), and half of them
 * reduce in place (dest == source).
 */
#include "check.h"

#include <string.h>

enum { CALLS = 300, N = 3 };

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
static long psync[2][MAX2(MAX2(SHMEM_BCAST_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE), SHMEM_REDUCE_SYNC_SIZE)];
static long pwrk[2][MAX2(N / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)];
static long red_dest[N];
static long bc_dest[CALLS][N];
static long src[N];

static long value(int call, int pe, int i)
{
    return 1000000L * call + 1000L * pe + i + 1;
}

int main(void)
{
    int me, npes;
    long *all_src, *all_dest[2];

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof psync[0] / sizeof(long); i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    all_src = shmem_malloc(sizeof(long) * N * (size_t)npes);
    all_dest[0] = shmem_malloc(sizeof(long) * N * (size_t)npes);
    all_dest[1] = shmem_malloc(sizeof(long) * N * (size_t)npes);
    shmem_barrier_all();

    /* Broadcasts: the root (rotating) may run ahead; each call has its own dest. */
    for (int c = 0; c < CALLS; c++) {
        int root = c % npes;
        for (int i = 0; i < N; i++)
            src[i] = value(c, me, i);
        shmem_broadcast64(bc_dest[c], src, N, root, 0, 0, npes, psync[c % 2]);
    }
    shmem_barrier_all();
    for (int c = 0; c < CALLS; c++) {
        int root = c % npes;
        for (int i = 0; i < N; i++)
            CHECK(bc_dest[c][i] == (me == root ? 0 : value(c, root, i)), "broadcast call %d element %d: %ld", c,
                  i, bc_dest[c][i]);
    }

    /* fcollect then alltoall, alternating two dests, checked after each call. */
    for (int c = 0; c < CALLS; c++) {
        long *d = all_dest[c % 2];
        for (int i = 0; i < N; i++)
            src[i] = value(c, me, i);
        shmem_fcollect64(d, src, N, 0, 0, npes, psync[c % 2]);
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < N; i++)
                CHECK(d[pe * N + i] == value(c, pe, i), "fcollect call %d from PE %d element %d: %ld", c, pe, i,
                      d[pe * N + i]);
    }
    for (int c = 0; c < CALLS; c++) {
        long *d = all_dest[c % 2];
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < N; i++)
                all_src[pe * N + i] = value(c, me * 100 + pe, i);
        shmem_alltoall64(d, all_src, N, 0, 0, npes, psync[c % 2]);
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < N; i++)
                CHECK(d[pe * N + i] == value(c, pe * 100 + me, i), "alltoall call %d from PE %d element %d: %ld",
                      c, pe, i, d[pe * N + i]);
    }

    /* Sums (into red_dest) and in-place maxima (src), alternating pSync
     * and pWrk; each PE changes its source as soon as it returns. */
    for (int c = 0; c < CALLS; c++) {
        int in_place = c % 2;
        long *d = in_place ? src : red_dest;
        for (int i = 0; i < N; i++)
            src[i] = value(c, me, i) * (in_place && (me + c) % 3 == 0 ? -1 : 1);
        if (in_place)
            shmem_long_max_to_all(d, src, N, 0, 0, npes, pwrk[c % 2], psync[c % 2]);
        else
            shmem_long_sum_to_all(d, src, N, 0, 0, npes, pwrk[c % 2], psync[c % 2]);
        for (int i = 0; i < N; i++) {
            long want = 0;
            for (int pe = 0; pe < npes; pe++) {
                long v = value(c, pe, i) * (in_place && (pe + c) % 3 == 0 ? -1 : 1);
                want = in_place ? (pe == 0 || v > want ? v : want) : want + v;
            }
            CHECK(d[i] == want, "%s call %d element %d: %ld, want %ld", in_place ? "max_to_all" : "sum_to_all",
                  c, i, d[i], want);
        }
    }

    shmem_barrier_all();
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof psync[0] / sizeof(long); i++)
            CHECK(psync[k][i] == SHMEM_SYNC_VALUE, "pSync %d word %zu is %ld after the calls", k, i, psync[k][i]);
    shmem_free(all_src);
    shmem_free(all_dest[0]);
    shmem_free(all_dest[1]);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}

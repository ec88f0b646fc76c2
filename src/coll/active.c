/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/active.c — the deprecated (1.4) active-set routines: the PEs
 * PE_start + k * 2^logPE_stride, k < PE_size, synchronising through the
 * user's pSync (counting flags, back to SHMEM_SYNC_VALUE on return; see
 * coll/group.h). The algorithms are the teams' ones.
 *
 * Reuse of pSync: consecutive barriers on one active set may share it
 * (their flags are counted, so a fast PE's early signal waits its turn).
 * Other routines may reuse a pSync once all PEs have left the previous
 * call, which the user ensures by a barrier or by alternating two pSync
 * arrays. The latter works because every routine here returns only after
 * every PE of the set has entered it (a pulled broadcast ends with a
 * barrier for that reason), or, for the pushed broadcast, because its
 * only flags are counts that each receiver consumes in its own call, in
 * call order. A small reduction pushes sources or partial results into
 * the partners' pWrk (coll/reduce.c), so pWrk follows the spec's rule for
 * reuse exactly as pSync does: consecutive reductions alternate both.
 */
#include "coll/coll.h"
#include "shmemi.h"

#define ACTIVE(g, scratch, psync_longs)                                                              \
    struct shmemi_team scratch;                                                                      \
    struct shmemi_group g;                                                                           \
    shmemi_check_init(routine);                                                                      \
    shmemi_grp_active(&g, &scratch, PE_start, logPE_stride, PE_size, pSync, psync_longs, routine)

void shmemi_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    const char *routine = "shmem_sync";
    ACTIVE(g, set, SHMEM_BARRIER_SYNC_SIZE);
    shmemi_grp_barrier(&g);
    shmemi_grp_end(&g);
}

void shmemi_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    const char *routine = "shmem_barrier";
    ACTIVE(g, set, SHMEM_BARRIER_SYNC_SIZE);
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    shmemi_grp_barrier(&g);
    shmemi_grp_end(&g);
}

void shmemi_broadcast_as(void *dest, const void *src, size_t nbytes, int root, int PE_start, int logPE_stride,
                         int PE_size, long *pSync, const char *routine)
{
    ACTIVE(g, set, SHMEM_BCAST_SYNC_SIZE);
    if (root < 0 || root >= PE_size)
        shmemi_fatal(routine, "PE_root %d out of range [0, %d)", root, PE_size);
    /* dest is symmetric on the root too: a pushing root writes there on
     * its children. */
    if (!shmemi_coll_broadcast(&g, shmemi_buf_sym(routine, "dest", dest, nbytes),
                               shmemi_buf_sym(routine, "source", src, nbytes), nbytes, root, 0))
        shmemi_grp_barrier(&g);
    shmemi_grp_end(&g);
}

void shmemi_collect_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                       long *pSync, const char *routine)
{
    ACTIVE(g, set, SHMEM_COLLECT_SYNC_SIZE);
    struct shmemi_buf d = shmemi_buf_start(routine, "dest", dest, nbytes);
    shmemi_coll_collect(&g, d, shmemi_buf_sym(routine, "source", src, nbytes), nbytes, 0);
    shmemi_grp_end(&g);
}

void shmemi_fcollect_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                        long *pSync, const char *routine)
{
    ACTIVE(g, set, SHMEM_COLLECT_SYNC_SIZE);
    shmemi_coll_collect(&g, shmemi_buf_sym(routine, "dest", dest, nbytes * (size_t)PE_size),
                        shmemi_buf_sym(routine, "source", src, nbytes), nbytes, 1);
    shmemi_grp_end(&g);
}

void shmemi_alltoall_as(void *dest, const void *src, size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                        long *pSync, const char *routine)
{
    size_t total = nbytes * (size_t)PE_size;
    ACTIVE(g, set, SHMEM_ALLTOALL_SYNC_SIZE);
    shmemi_coll_alltoalls(&g, shmemi_buf_sym(routine, "dest", dest, total),
                          shmemi_buf_sym(routine, "source", src, total), 1, 1, nbytes ? nbytes : 1, nbytes ? 1 : 0);
    shmemi_grp_end(&g);
}

void shmemi_alltoalls_as(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems,
                         int PE_start, int logPE_stride, int PE_size, long *pSync, const char *routine)
{
    size_t total = nelems * (size_t)PE_size;
    ACTIVE(g, set, SHMEM_ALLTOALLS_SYNC_SIZE);
    if (dst < 1 || sst < 1)
        shmemi_fatal(routine, "strides must be >= 1 (dst %td, sst %td)", dst, sst);
    shmemi_coll_alltoalls(&g, shmemi_buf_sym(routine, "dest", dest, shmemi_strided_extent(total, dst, elem)),
                          shmemi_buf_sym(routine, "source", src, shmemi_strided_extent(total, sst, elem)), dst, sst,
                          elem, nelems);
    shmemi_grp_end(&g);
}

void shmemi_reduce_as(enum shmemi_reduce_op op, int dtype, void *dest, const void *src, size_t count, int PE_start,
                      int logPE_stride, int PE_size, void *pWrk, long *pSync, const char *routine)
{
    size_t elem = SHMEMI_DT_SIZE(dtype), bytes = count * elem, wrk_bytes = count ? shmemi_pwrk_elems(count) * elem : 0;
    ACTIVE(g, set, SHMEM_REDUCE_SYNC_SIZE);
    shmemi_combine_for(op, dtype, routine);
    shmemi_coll_reduce(&g, op, dtype, shmemi_buf_sym(routine, "dest", dest, bytes),
                       shmemi_buf_sym(routine, "source", src, bytes), count,
                       shmemi_buf_sym(routine, "pWrk", pWrk, wrk_bytes), wrk_bytes);
    shmemi_grp_end(&g);
}

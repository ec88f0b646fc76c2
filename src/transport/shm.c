/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/shm.c — the node-local path: peers' segments are mapped into
 * this process, so RMA is memcpy and AMOs are CPU atomics. Nothing is
 * left in flight, so fence and quiet are memory fences; they must be full
 * (seq_cst) fences because large copies use weakly ordered streaming
 * stores (base/copy.h).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/copy.h"
#include "transport/transport.h"

static char *target(int pe, int seg, size_t off, const char *routine)
{
    char *p = shmemi_tp_ptr(pe, seg, off);
    if (!p)
        shmemi_fatal(routine, "PE %d's %s segment is not mapped here (differing executables?)", pe,
                     seg == SHMEMI_SEG_DATA ? "global data" : "heap");
    return p;
}

/* Contexts and nbi change nothing here: every operation is done on return. */
static void shm_put(shmem_ctx_t ctx, int pe, int seg, size_t off, const void *src, size_t n, int nbi,
                    const char *routine)
{
    (void)ctx;
    (void)nbi;
    shmemi_copy(target(pe, seg, off, routine), src, n);
}

/* In a mixed job a node-local peer's AMOs go through libfabric and may
 * still be in flight: a PE reads back what it added only once they are
 * complete (docs/design.md, "One atomicity domain"). */
static void shm_get(shmem_ctx_t ctx, void *dst, int pe, int seg, size_t off, size_t n, int nbi,
                    const char *routine)
{
    (void)nbi;
    if (__builtin_expect(shmemi_fast_reads_held(), 0))
        shmemi_ofi_local_reads_settle(ctx, routine);
    shmemi_copy(dst, target(pe, seg, off, routine), n);
}

/* Every op, per spec/ops.toml: the generated shmemi_amo_cpu (shmemi_ops.h);
 * float types arrive as bit patterns, comm/ lets only fetch/set/swap through. */
static void shm_amo(shmem_ctx_t ctx, int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype,
                    const void *value, const void *cond, void *fetch, int nbi, const char *routine)
{
    char *p = target(pe, seg, off, routine);

    (void)ctx;
    (void)nbi;
    if (shmemi_amo_cpu(op, dtype, p, value, cond, fetch) != 0)
        shmemi_fatal(routine, "unknown atomic operation %d", (int)op);
}

static int shm_signal(int pe, int seg, size_t off, enum shmemi_amo_op op, uint64_t v, const char *routine)
{
    uint64_t *w = (uint64_t *)(void *)target(pe, seg, off, routine);

    if (op == SHMEMI_AMO_ADD)
        __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(w, v, __ATOMIC_SEQ_CST);
    return 1;
}

/* Also the CPU fence that memcpy puts to node-local peers need when
 * their AMOs go through libfabric (mixed jobs): select.c keeps this table
 * among those fenced whenever any peer's RMA uses it. */
static void shm_fence(shmem_ctx_t ctx)
{
    (void)ctx;
    atomic_thread_fence(memory_order_seq_cst);
}

const struct shmemi_tp_ops shmemi_tp_shm_ops = {
    .put = shm_put,
    .get = shm_get,
    .amo = shm_amo,
    .fence = shm_fence,
    .quiet = shm_fence,
    .signal = shm_signal,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/pcntr.c — Sandia OpenSHMEM's performance counters (shmemx_pcntr_*),
 * read from the context's network endpoint (transport/ofi_ctx.c). As in
 * that library, "pending" in shmemx_pcntr_t holds the issued counts; what
 * is still in flight is issued minus completed. Shoal counts no incoming
 * writes (shm, one of its providers, has no target-side counters), so the
 * target count is always 0.
 */
#include "shmemi.h"
#include "transport/transport.h"

/* The bindings have checked the output pointer (nonnull in the table). */
static struct shmemi_tp_counts counts_of(shmem_ctx_t ctx, const char *routine)
{
    struct shmemi_tp_counts c;

    shmemi_check_init(routine);
    shmemi_check_ctx(routine, ctx);
    shmemi_tp_counts(ctx, &c);
    return c;
}

void shmemi_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = counts_of(ctx, "shmemx_pcntr_get_issued_write").writes_issued;
}

void shmemi_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = counts_of(ctx, "shmemx_pcntr_get_issued_read").reads_issued;
}

void shmemi_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = counts_of(ctx, "shmemx_pcntr_get_completed_write").writes_done;
}

void shmemi_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    *cntr_value = counts_of(ctx, "shmemx_pcntr_get_completed_read").reads_done;
}

void shmemi_pcntr_get_completed_target(uint64_t *cntr_value)
{
    shmemi_check_init("shmemx_pcntr_get_completed_target");
    *cntr_value = 0;
}

void shmemi_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)
{
    struct shmemi_tp_counts c;

    c = counts_of(ctx, "shmemx_pcntr_get_all");
    *pcntr = (shmemx_pcntr_t){
        .pending_put = c.writes_issued,
        .pending_get = c.reads_issued,
        .completed_put = c.writes_done,
        .completed_get = c.reads_done,
        .target = 0,
    };
}

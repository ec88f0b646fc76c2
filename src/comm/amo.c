/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/amo.c — AMO kernels. The transport performs the operation in the
 * job's one atomicity domain (CPU atomics when shared memory serves every
 * peer, the provider's otherwise: transport/select.c, docs/design.md).
 * What the datatype allows is asserted where the bindings are compiled
 * (SHMEMI_AMO_DEFINED, shmemi.h).
 */
#include "comm/target.h"
#include "memory/addr.h"
#include "transport/transport.h"

void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, int dtype, void *dest, const void *value,
                const void *cond, void *fetch, int pe, const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t off;

    seg = shmemi_sym_ref(routine, "dest", dest, SHMEMI_DT_SIZE(dtype), &off);
    shmemi_tp_amo(ctx, wpe, seg, off, op, dtype, value, cond, fetch, 0, routine);
}

/* The fetched value may land as late as the next quiet; the transport
 * decides (landing now is always allowed). */
void shmemi_amo_nbi(shmem_ctx_t ctx, enum shmemi_amo_op op, int dtype, void *dest, const void *value,
                    const void *cond, void *fetch, int pe, const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t off;

    seg = shmemi_sym_ref(routine, "dest", dest, SHMEMI_DT_SIZE(dtype), &off);
    shmemi_tp_amo(ctx, wpe, seg, off, op, dtype, value, cond, fetch, 1, routine);
}

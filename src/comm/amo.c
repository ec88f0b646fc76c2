/*
 * comm/amo.c — AMO kernels. The transport performs the operation in the
 * job's one atomicity domain (CPU atomics when shared memory serves every
 * peer, the provider's otherwise: transport/select.c, docs/design.md);
 * this file checks what the datatype allows.
 */
#include "comm/target.h"
#include "memory/addr.h"
#include "transport/transport.h"

static void check_dtype(int dtype, enum shmemi_amo_op op, const char *routine)
{
    size_t size = SHMEMI_DT_SIZE(dtype);

    if (size != 4 && size != 8)
        shmemi_fatal(routine, "atomic operations need 4- or 8-byte objects, not %zu", size);
    /* Floating point: only the bit-preserving operations (extended AMO
     * types: fetch, set, swap). */
    if (SHMEMI_DT_CLASS(dtype) == SHMEMI_DT_FLOAT && op != SHMEMI_AMO_FETCH && op != SHMEMI_AMO_SET &&
        op != SHMEMI_AMO_SWAP)
        shmemi_fatal(routine, "atomic operation %d is not defined for floating-point types", (int)op);
}

void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, int dtype, void *dest, const void *value,
                const void *cond, void *fetch, int pe, const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t off;

    check_dtype(dtype, op, routine);
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

    check_dtype(dtype, op, routine);
    seg = shmemi_sym_ref(routine, "dest", dest, SHMEMI_DT_SIZE(dtype), &off);
    shmemi_tp_amo(ctx, wpe, seg, off, op, dtype, value, cond, fetch, 1, routine);
}

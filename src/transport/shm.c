/*
 * transport/shm.c — the node-local path: peers' segments are mapped into
 * this process, so RMA is memcpy and AMOs are CPU atomics. Nothing is
 * left in flight, so fence and quiet are memory fences; they must be full
 * (seq_cst) fences because memcpy may use weakly ordered streaming stores.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "memory/addr.h"
#include "transport/transport.h"

static char *target(int pe, int seg, size_t off, const char *routine)
{
    char *p = shmemi_peer_addr(seg, off, pe);
    if (!p)
        shmemi_fatal(routine, "PE %d's %s segment is not mapped here (differing executables?)", pe,
                     seg == SHMEMI_SEG_DATA ? "global data" : "heap");
    return p;
}

static void shm_put(int pe, int seg, size_t off, const void *src, size_t n, const char *routine)
{
    memcpy(target(pe, seg, off, routine), src, n);
}

static void shm_get(void *dst, int pe, int seg, size_t off, size_t n, const char *routine)
{
    memcpy(dst, target(pe, seg, off, routine), n);
}

/* One width-generic AMO body; float types arrive as their bit patterns,
 * and comm/ only lets fetch/set/swap/cswap through for them. */
#define AMO_BODY(T)                                                                             \
    do {                                                                                        \
        T *d = (T *)p, v = value ? *(const T *)value : 0, old;                                 \
        switch (op) {                                                                           \
        case SHMEMI_AMO_FETCH: old = __atomic_load_n(d, __ATOMIC_SEQ_CST); break;               \
        case SHMEMI_AMO_SET: __atomic_store_n(d, v, __ATOMIC_SEQ_CST); return;                  \
        case SHMEMI_AMO_SWAP: old = __atomic_exchange_n(d, v, __ATOMIC_SEQ_CST); break;         \
        case SHMEMI_AMO_CSWAP:                                                                  \
            old = *(const T *)cond;                                                             \
            __atomic_compare_exchange_n(d, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
            break;                                                                              \
        case SHMEMI_AMO_ADD: old = __atomic_fetch_add(d, v, __ATOMIC_SEQ_CST); break;           \
        case SHMEMI_AMO_AND: old = __atomic_fetch_and(d, v, __ATOMIC_SEQ_CST); break;           \
        case SHMEMI_AMO_OR: old = __atomic_fetch_or(d, v, __ATOMIC_SEQ_CST); break;             \
        case SHMEMI_AMO_XOR: old = __atomic_fetch_xor(d, v, __ATOMIC_SEQ_CST); break;           \
        default: shmemi_fatal(routine, "unknown atomic operation %d", (int)op);                 \
        }                                                                                       \
        if (fetch)                                                                              \
            *(T *)fetch = old;                                                                  \
    } while (0)

static void shm_amo(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                    const void *cond, void *fetch, const char *routine)
{
    char *p = target(pe, seg, off, routine);

    if (SHMEMI_DT_SIZE(dtype) == 8)
        AMO_BODY(uint64_t);
    else
        AMO_BODY(uint32_t);
}

static void *shm_ptr(int pe, int seg, size_t off)
{
    return shmemi_peer_addr(seg, off, pe);
}

static void shm_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

const struct shmemi_transport shmemi_transport_shm = {
    .name = "shm",
    .put = shm_put,
    .get = shm_get,
    .amo = shm_amo,
    .ptr = shm_ptr,
    .fence = shm_fence,
    .quiet = shm_fence,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_bounce.c — bounce buffers: a blocking put too large to
 * inject but at most SHMEM_OFI_BOUNCE_SIZE is copied into a pool owned by
 * the endpoint and posted from there, so the call returns without a round
 * trip and the caller's source is free at once.
 *
 * The pool is carved in issue order. Completions arrive in any order and
 * are only counted, so a buffer is known to be free only once the
 * endpoint's write counter has caught up with every write issued: when
 * the pool is full, the put waits for that (one quiet of the endpoint's
 * writes) and starts again from the front. Bounced writes are counted
 * like any other, so quiet and fence still wait on a count.
 *
 * Under FI_MR_LOCAL (required, or SHMEM_OFI_FORCE=mr_local) the pool is
 * registered once, when allocated, and also serves the local side of
 * other operations on unregistered buffers (ofi_local.c): small gets,
 * AMO operands and results. Those are blocking and hold the pool until
 * they have copied their result out; since reads then live in the pool
 * too, a wrap waits for both counters.
 */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi.h"

#define POOL_PUTS 32  /* bounced puts of the largest size the pool holds */
#define ALIGN 64      /* each buffer starts on its own cache line */

static void pool_alloc(struct shmemi_ofi_ep *e, const char *routine)
{
    struct shmemi_ofi_bounce *b = &e->bounce;
    size_t each = (shmemi_ofi.bounce_size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    /* At least a line each: under FI_MR_LOCAL AMO operands live here too. */
    size_t size = POOL_PUTS * (each > ALIGN ? each : ALIGN);

    if (posix_memalign((void **)&b->base, ALIGN, size))
        shmemi_fatal(routine, "out of memory for %zu bytes of bounce buffers (SHMEM_OFI_BOUNCE_SIZE=%zu)", size,
                     shmemi_ofi.bounce_size);
    b->size = size;
    b->head = 0;
    if (shmemi_ofi.mr_local)
        b->desc = shmemi_ofi_reg_owned(e->ep, b->base, size, &b->mr, routine);
}

/* A buffer of n bytes, waiting for the endpoint's writes if the pool is
 * full. The caller holds the pool. */
static char *take(struct shmemi_ofi_ep *e, size_t n, int pe, const char *routine)
{
    struct shmemi_ofi_bounce *b = &e->bounce;
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    char *buf;

    if (!b->base)
        pool_alloc(e, routine);
    if (b->head + need > b->size) {
        shmemi_ofi_cntr_wait(e, &e->w, pe, routine);
        shmemi_ofi_cntr_wait(e, &e->r, pe, routine);
        b->head = 0;
    }
    buf = b->base + b->head;
    b->head += need;
    return buf;
}

void shmemi_ofi_bounce_put(struct shmemi_ofi_ep *e, int pe, uint64_t raddr, uint64_t key, const void *src,
                           size_t n, const char *routine)
{
    int shared = !__atomic_load_n(&e->is_private, __ATOMIC_RELAXED);
    char *buf;

    /* Held across the post, so a full pool's wait covers every buffer
     * handed out before it. */
    if (shared)
        pthread_mutex_lock(&e->bounce.lock);
    buf = take(e, n, pe, routine);
    memcpy(buf, src, n);
    SHMEMI_OFI_POST(e, &e->w,
                    fi_write(e->ep, buf, n, e->bounce.desc, shmemi_ofi_addr(pe), raddr, key, op_ctx), "fi_write",
                    pe, routine);
    shmemi_ofi_written(e, pe);
    if (shared)
        pthread_mutex_unlock(&e->bounce.lock);
}

char *shmemi_ofi_bounce_grab(struct shmemi_ofi_ep *e, size_t n, void **desc, int pe, const char *routine)
{
    char *buf;

    if (!__atomic_load_n(&e->is_private, __ATOMIC_RELAXED))
        pthread_mutex_lock(&e->bounce.lock);
    buf = take(e, n, pe, routine);
    *desc = e->bounce.desc;
    return buf;
}

void shmemi_ofi_bounce_drop(struct shmemi_ofi_ep *e)
{
    if (!__atomic_load_n(&e->is_private, __ATOMIC_RELAXED))
        pthread_mutex_unlock(&e->bounce.lock);
}

void shmemi_ofi_bounce_release(struct shmemi_ofi_bounce *b)
{
    SHMEMI_OFI_CLOSE(b->mr);
    b->mr = NULL;
    b->desc = NULL;
    free(b->base);
    b->base = NULL;
    b->size = b->head = 0;
}

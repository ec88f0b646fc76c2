/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/rma.c — put/get kernels. The shm path completes every transfer at
 * once; the network path may leave nbi transfers in flight until the
 * context's quiet (transport/transport.h).
 */
#include <string.h>

#include "comm/target.h"
#include "memory/addr.h"
#include "transport/transport.h"

/* One contiguous transfer: a put's dest or a get's source is symmetric. */
static void xfer(shmem_ctx_t ctx, int is_put, void *dest, const void *src, size_t nbytes, int pe, int nbi,
                 const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t off;

    if (!nbytes)
        return;
    if (is_put) {
        seg = shmemi_sym_ref(routine, "dest", dest, nbytes, &off);
        shmemi_tp_put(ctx, wpe, seg, off, src, nbytes, nbi, routine);
    } else {
        seg = shmemi_sym_ref(routine, "source", src, nbytes, &off);
        shmemi_tp_get(ctx, dest, wpe, seg, off, nbytes, nbi, routine);
    }
}

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine)
{
    xfer(ctx, 1, dest, src, nbytes, pe, 0, routine);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine)
{
    xfer(ctx, 0, dest, src, nbytes, pe, 0, routine);
}

void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine)
{
    xfer(ctx, 1, dest, src, nbytes, pe, 1, routine);
}

void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *routine)
{
    xfer(ctx, 0, dest, src, nbytes, pe, 1, routine);
}

/* Byte extent [lo, hi) of nblocks blocks of `bytes`, `stride` bytes apart. */
static void strided_extent(ptrdiff_t stride, size_t nblocks, size_t bytes, ptrdiff_t *lo, ptrdiff_t *hi)
{
    ptrdiff_t last = stride * (ptrdiff_t)(nblocks - 1);
    *lo = last < 0 ? last : 0;
    *hi = (last > 0 ? last : 0) + (ptrdiff_t)bytes;
}

/* One strided transfer: `sym` is the symmetric side, `loc` the local one. */
static void strided(shmem_ctx_t ctx, int is_put, char *sym, char *loc, ptrdiff_t sym_st, ptrdiff_t loc_st,
                    size_t bsize, size_t nblocks, size_t elem, int pe, const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t bytes = bsize * elem, off;
    ptrdiff_t sstep = sym_st * (ptrdiff_t)elem, lstep = loc_st * (ptrdiff_t)elem, lo, hi;
    char *remote;

    if (!nblocks || !bytes)
        return;
    /* Check the whole extent once, then address blocks by offset. */
    strided_extent(sstep, nblocks, bytes, &lo, &hi);
    seg = shmemi_sym_ref(routine, is_put ? "dest" : "source", sym + lo, (size_t)(hi - lo), &off);
    off -= (size_t)lo;
    /* Load/store only where the peer's RMA is (a peer libfabric serves
     * may still be this PE, mapped here). */
    remote = shmemi_tp_rma_addr(wpe, seg, off);
    for (size_t k = 0; k < nblocks; k++) {
        ptrdiff_t so = sstep * (ptrdiff_t)k;
        char *l = loc + lstep * (ptrdiff_t)k;

        if (remote && is_put)
            memcpy(remote + so, l, bytes);
        else if (remote)
            memcpy(l, remote + so, bytes);
        else if (is_put)
            shmemi_tp_put(ctx, wpe, seg, off + (size_t)so, l, bytes, 1, routine);
        else
            shmemi_tp_get(ctx, l, wpe, seg, off + (size_t)so, bytes, 1, routine);
    }
    /* Blocks went out together; the call is blocking, so complete them. */
    if (!remote)
        shmemi_tp_rma_quiet(ctx, wpe);
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elem, int pe, const char *routine)
{
    strided(ctx, 1, dest, (char *)src, dst, sst, bsize, nblocks, elem, pe, routine);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elem, int pe, const char *routine)
{
    strided(ctx, 0, (char *)src, dest, sst, dst, bsize, nblocks, elem, pe, routine);
}

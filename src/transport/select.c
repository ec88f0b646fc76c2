/*
 * transport/select.c — the choice of path per peer, made once at init.
 *
 *   SHMEM_TRANSPORT=shm   every peer by shared memory (one node only);
 *   SHMEM_TRANSPORT=ofi   every peer, this PE included, by libfabric;
 *   SHMEM_TRANSPORT=auto  node-local peers by shared memory, others by
 *                         libfabric (not opened when all are local).
 *
 * "Node-local" follows SHMEM_VIRTUAL_NODES, applied to the bootstrap's
 * list before this runs. The atomicity domain follows (docs/design.md):
 * CPU atomics only when shared memory serves every peer; otherwise every
 * AMO, to local peers and to this PE too, goes through the provider, so
 * local peers get a mixed table: loads/stores for RMA, libfabric for AMOs.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "runtime/env.h"
#include "runtime/world.h"
#include "transport/ofi.h"
#include "transport/transport.h"

static const struct shmemi_transport *in_use[3];
static int n_in_use;
static int ofi_open;
static int *peer_local; /* [pe] in this PE's (virtual) node */

/* shm for RMA and shmem_ptr, ofi for AMOs and their ordering. */
static struct shmemi_transport shm_ofi_amo;

static void add_in_use(const struct shmemi_transport *t)
{
    for (int i = 0; i < n_in_use; i++)
        if (in_use[i] == t)
            return;
    in_use[n_in_use++] = t;
}

void shmemi_transport_prepare(const struct shmemi_boot_info *bi, const char *routine)
{
    int mode = shmemi_settings.transport, n = bi->size;

    peer_local = calloc((size_t)n, sizeof *peer_local);
    if (!peer_local)
        shmemi_fatal(routine, "out of memory");
    for (int i = 0; i < bi->n_local; i++)
        peer_local[bi->local_pes[i]] = 1;

    if (mode == SHMEMI_PATH_SHM && bi->n_local != n)
        shmemi_fatal(routine, "SHMEM_TRANSPORT=shm, but %d of the job's %d PEs are on other %snodes: "
                     "use SHMEM_TRANSPORT=auto or ofi", n - bi->n_local, n,
                     shmemi_settings.virtual_nodes > 1 ? "(virtual) " : "");
    ofi_open = mode == SHMEMI_PATH_OFI || (mode == SHMEMI_PATH_AUTO && bi->n_local != n);
    if (ofi_open)
        shmemi_ofi_open(routine);
}

void shmemi_transport_select(const char *routine)
{
    struct shmemi_world *w = &shmemi_world;
    int n = w->n_pes, all_ofi = shmemi_settings.transport == SHMEMI_PATH_OFI;

    w->tp = calloc((size_t)n, sizeof *w->tp);
    if (!w->tp)
        shmemi_fatal(routine, "out of memory");
    n_in_use = 0;
    w->amo_local = !ofi_open;
    if (ofi_open) {
        shmemi_ofi_connect(routine);
        shm_ofi_amo = shmemi_transport_shm;
        shm_ofi_amo.name = "shm+ofi-amo";
        shm_ofi_amo.amo = shmemi_transport_ofi.amo;
        shm_ofi_amo.ctx_amo = shmemi_transport_ofi.ctx_amo;
        shm_ofi_amo.fence = shmemi_transport_ofi.fence;
        shm_ofi_amo.quiet = shmemi_transport_ofi.quiet;
        shm_ofi_amo.ctx_fence = shmemi_transport_ofi.ctx_fence;
        shm_ofi_amo.ctx_quiet = shmemi_transport_ofi.ctx_quiet;
        /* The inline paths must not load/store to peers libfabric serves. */
        for (int s = 0; s < 2; s++) {
            w->fast_peer[s] = calloc((size_t)n, sizeof(char *));
            if (!w->fast_peer[s])
                shmemi_fatal(routine, "out of memory");
        }
    }
    for (int pe = 0; pe < n; pe++) {
        if (!ofi_open) {
            if (!w->peer_base[SHMEMI_SEG_HEAP][pe])
                shmemi_fatal(routine, "PE %d's heap is not mapped here", pe);
            w->tp[pe] = &shmemi_transport_shm;
        } else if (all_ofi || !peer_local[pe] || !w->peer_base[SHMEMI_SEG_HEAP][pe]) {
            w->tp[pe] = &shmemi_transport_ofi;
        } else {
            w->tp[pe] = &shm_ofi_amo;
            w->fast_peer[0][pe] = w->peer_base[SHMEMI_SEG_HEAP][pe];
            w->fast_peer[1][pe] = w->peer_base[SHMEMI_SEG_DATA][pe];
        }
        add_in_use(w->tp[pe]);
    }
}

void shmemi_transport_start(void)
{
    if (ofi_open)
        shmemi_ofi_start();
}

void shmemi_transport_release(void)
{
    struct shmemi_world *w = &shmemi_world;

    /* A PE leaving the final barrier may still be the target of a peer's
     * last operation (the unlock of a software AMO, a barrier signal):
     * nobody closes its endpoint before everybody is past that point. The
     * bootstrap fence needs no libfabric progress, so it cannot deadlock. */
    if (ofi_open) {
        shmemi_boot_exchange("shmem_finalize");
        shmemi_ofi_close();
    }
    ofi_open = 0;
    free(w->tp);
    w->tp = NULL;
    for (int s = 0; s < 2; s++) {
        free(w->fast_peer[s]);
        w->fast_peer[s] = NULL;
    }
    free(peer_local);
    peer_local = NULL;
    n_in_use = 0;
}

void shmemi_transport_fence_all(void)
{
    for (int i = 0; i < n_in_use; i++)
        in_use[i]->fence();
}

void shmemi_transport_quiet_all(void)
{
    for (int i = 0; i < n_in_use; i++)
        in_use[i]->quiet();
}

void shmemi_transport_fence_ctx(shmem_ctx_t ctx)
{
    for (int i = 0; i < n_in_use; i++)
        if (in_use[i]->ctx_fence)
            in_use[i]->ctx_fence(ctx);
        else
            in_use[i]->fence();
}

void shmemi_transport_ctx_retired(shmem_ctx_t ctx)
{
    if (ofi_open)
        shmemi_ofi_ctx_retired(ctx);
}

void shmemi_transport_quiet_ctx(shmem_ctx_t ctx)
{
    for (int i = 0; i < n_in_use; i++)
        if (in_use[i]->ctx_quiet)
            in_use[i]->ctx_quiet(ctx);
        else
            in_use[i]->quiet();
}

void shmemi_transport_progress(void)
{
    if (ofi_open)
        shmemi_ofi_progress();
}

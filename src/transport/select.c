/*
 * transport/select.c — the choice of path per peer, made once at init.
 * Node-local peers use shm; a network path (libfabric) will be chosen
 * here for the others. Until it exists, a peer off this node is fatal.
 */
#include <stdlib.h>

#include "runtime/world.h"
#include "transport/transport.h"

/* Transports in use, for fence/quiet; only shm so far. */
static const struct shmemi_transport *in_use[2];
static int n_in_use;

void shmemi_transport_select(const char *routine)
{
    int n = shmemi_world.n_pes;

    shmemi_world.tp = calloc((size_t)n, sizeof *shmemi_world.tp);
    if (!shmemi_world.tp)
        shmemi_fatal(routine, "out of memory");
    for (int pe = 0; pe < n; pe++) {
        if (!shmemi_world.peer_base[SHMEMI_SEG_HEAP][pe])
            shmemi_fatal(routine, "PE %d is not on this node, and the network path is not built yet: "
                         "run every PE on one node", pe);
        shmemi_world.tp[pe] = &shmemi_transport_shm;
    }
    in_use[0] = &shmemi_transport_shm;
    n_in_use = 1;
}

void shmemi_transport_release(void)
{
    free(shmemi_world.tp);
    shmemi_world.tp = NULL;
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

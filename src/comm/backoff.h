/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/backoff.h — how a PE waits. With more node-local PEs than cores, the
 * PE we wait for may need our core: yield at once. Otherwise spin briefly
 * with a pause (cheap, keeps the cache line hot), then yield now and then
 * (shmemi_wait_yields, base/world.h), and in a long wait nap now and then
 * (base/give_way.h).
 */
#ifndef SHMEMI_BACKOFF_H
#define SHMEMI_BACKOFF_H

#include "base/cpu_relax.h"
#include "base/give_way.h"
#include "base/waiting.h"
#include "base/world.h"
#include "transport/transport.h"

/* Call once per unsatisfied poll; *spins starts at 0, and the first
 * call enters `w` (base/waiting.h): call shmemi_wait_leave(w) once
 * satisfied if *spins is nonzero. A manual-progress network path is
 * driven from here, so every wait loop serves the traffic it may be
 * waiting for, and watches for lost peers (SHMEM_OFI_TIMEOUT; *spins == 1
 * marks a new wait). */
/* A wait that polls the network looks at the clock every 64th poll. */
#define SHMEMI_NET_TICK_MASK 63u

static inline void shmemi_backoff(struct shmemi_waiting *w, unsigned *spins)
{
    if (*spins == 0)
        shmemi_wait_enter(w);
    if (*spins != ~0u)
        ++*spins;
    if (shmemi_world.net_progress) {
        shmemi_transport_wait_step(*spins);
        if ((*spins & SHMEMI_NET_TICK_MASK) == 0)
            shmemi_wait_tick_between();
    }
    if (shmemi_wait_yields(*spins)) {
        shmemi_give_way(shmemi_wait_yield_count(*spins));
        return;
    }
    shmemi_cpu_relax();
}

#endif /* SHMEMI_BACKOFF_H */

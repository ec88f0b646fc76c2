/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/world.h — the job as this PE sees it (base layer): who we are,
 * how many we are, how to wait. Where segments are mapped is memory/map.h's,
 * how each peer is reached transport/peer.h's. Everything here is set at
 * init and read-only after, so hot paths read it without locks.
 */
#ifndef SHMEMI_WORLD_H
#define SHMEMI_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "shmemi.h"
#include "base/waiting.h"

/* Symmetric segment kinds. The control region is the internal head of
 * each heap segment (barrier flags and the like), never user-visible. */
enum shmemi_seg {
    SHMEMI_SEG_HEAP,
    SHMEMI_SEG_DATA,
    SHMEMI_SEG_CTRL,
    SHMEMI_SEG_COUNT
};

struct shmemi_world {
    int my_pe;             /* -1 until bootstrap */
    int n_pes;
    int init_count;        /* 1.6: init/finalize are reference counted */
    int thread_level;
    int singleton;         /* no launcher: one PE, no PMIx */
    int n_local;           /* node-local PEs, this one included */
    int n_local_all;       /* the same on the real node (SHMEM_VIRTUAL_NODES, SHMEM_TRANSPORT=ofi aside) */
    int oversubscribed;    /* more PEs on the real node than CPUs they may run on */
    int pes_per_cpu;       /* those PEs over those CPUs, rounded up; 1 if unknown */
    unsigned spin_limit;   /* pause iterations before a wait yields */

    /* A network path is in use: wait loops drive its progress
     * (set by transport/; how each peer is reached is transport/'s). */
    int net_progress;
};

extern struct shmemi_world shmemi_world;

/* SHMEM_INIT_TIMING: shmem_init's phases, timed for site admins and for
 * bench/startup_scale. shmemi_init_phase(name) ends the phase `name`
 * (the first call starts the clock); shmemi_init_phase_report prints
 * them (=1: PE 0 only; =all: every PE, one line each). Off: one getenv. */
void shmemi_init_phase(const char *name);
void shmemi_init_phase_report(void);
/* This PE prints SHMEM_INIT_TIMING's lines (for reports at finalize). */
int shmemi_init_timing_prints(void);

/* Whether the `spins`-th unsatisfied poll of a wait gives up the CPU.
 * Up to spin_limit, never. Past it, every poll when node-local PEs
 * outnumber cores (the PE we wait for may need this core), else every
 * SHMEMI_YIELD_EVERY-th: a yield with no one else to run is a system
 * call (0.3-0.5 us here) during which a network-path PE serves no peer.
 * The target of a round trip waits this way in barriers: on shm, where a
 * poll is tens of ns, fetch-add took 1.9 us with a yield every poll,
 * about 0.6 us every 64th, and raw libfabric's 0.5 us every 1024th.
 * Every poll, too, in a thread that found the node crowded by others
 * (shmemi_crowded, base/give_way.h). */
#define SHMEMI_YIELD_EVERY 1024
static inline int shmemi_wait_yields(unsigned spins)
{
    return spins > shmemi_world.spin_limit && (shmemi_world.oversubscribed || spins % SHMEMI_YIELD_EVERY == 0 ||
                                               spins == ~0u || shmemi_crowded);
}

/* How many times a wait has yielded at its `spins`-th poll, that poll's
 * yield included (for shmemi_give_way, base/give_way.h). A wait whose
 * count saturated (~0u) has waited for ages: it naps every time. */
static inline unsigned shmemi_wait_yield_count(unsigned spins)
{
    if (spins == ~0u)
        return 0;
    return shmemi_world.oversubscribed ? spins - shmemi_world.spin_limit : spins / SHMEMI_YIELD_EVERY;
}

#endif /* SHMEMI_WORLD_H */

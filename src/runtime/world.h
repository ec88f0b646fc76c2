/*
 * runtime/world.h — the job as this PE sees it: one named struct holding
 * who we are, where every peer's segments are mapped, and which transport
 * reaches each peer. Everything here is set at init and read-only after,
 * so hot paths read it without locks.
 */
#ifndef SHMEMI_WORLD_H
#define SHMEMI_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "shmemi.h"
#include "memory/segment.h"

/* Symmetric segment kinds. The control region is the internal head of
 * each heap segment (barrier flags and the like), never user-visible. */
enum shmemi_seg {
    SHMEMI_SEG_HEAP,
    SHMEMI_SEG_DATA,
    SHMEMI_SEG_CTRL,
    SHMEMI_SEG_COUNT
};

struct shmemi_transport;

struct shmemi_world {
    int my_pe;             /* -1 until bootstrap */
    int n_pes;
    int init_count;        /* 1.6: init/finalize are reference counted */
    int thread_level;
    int singleton;         /* no launcher: one PE, no PMIx */
    int n_local;           /* node-local PEs, this one included */
    int oversubscribed;    /* more node-local PEs than online cores */
    unsigned spin_limit;   /* pause iterations before a wait yields */

    struct shmemi_segment heap_seg;  /* own: control region + user heap */
    struct shmemi_segment data_seg;  /* own: remapped .data/.bss */

    /* Own segments, as (base, size); size 0 means absent. */
    uintptr_t seg_base[SHMEMI_SEG_COUNT];
    size_t seg_size[SHMEMI_SEG_COUNT];
    /* [seg][pe]: where peer pe's segment is mapped here, NULL if not. */
    char **peer_base[SHMEMI_SEG_COUNT];

    const struct shmemi_transport **tp; /* [pe] the path chosen per peer */
    /* The job's atomicity domain (docs/design.md): 1 when CPU atomics
     * serve every AMO, 0 when the provider's atomics serve them all. */
    int amo_local;
    /* A manual-progress network path is in use: wait loops drive it. */
    int net_progress;
    /* [pe] peer heap/data mapped here AND reached by load/store (NULL for
     * peers reached through libfabric): what the inline paths may use. */
    char **fast_peer[2];
};

extern struct shmemi_world shmemi_world;

/* Publish to / withdraw from the inline fast paths (shoal/fast.h). */
void shmemi_fast_fill(void);
void shmemi_fast_clear(void);

#endif /* SHMEMI_WORLD_H */

/*
 * runtime/world.c — the state tables: the private world and the exported
 * table the inline fast paths read.
 */
#include "runtime/env.h"
#include "runtime/world.h"

struct shmemi_world shmemi_world = {
    .my_pe = -1,
    .heap_seg = {.fd = -1},
    .data_seg = {.fd = -1},
};

/* Sizes stay 0 (inline paths off) until init fills the table. */
__attribute__((visibility("default"))) struct shmemi_fast_state shmemi_fast_v1;

void shmemi_fast_fill(void)
{
    struct shmemi_fast_state *f = &shmemi_fast_v1;
    const struct shmemi_world *w = &shmemi_world;
    /* Under SHMEM_DEBUG the checked out-of-line routines must run. */
    int on = !shmemi_settings.debug;

    f->heap_base = w->seg_base[SHMEMI_SEG_HEAP];
    f->heap_size = on ? w->seg_size[SHMEMI_SEG_HEAP] : 0;
    f->data_base = w->seg_base[SHMEMI_SEG_DATA];
    f->data_size = on ? w->seg_size[SHMEMI_SEG_DATA] : 0;
    f->heap_peer = w->fast_peer[0] ? w->fast_peer[0] : w->peer_base[SHMEMI_SEG_HEAP];
    f->data_peer = w->fast_peer[1] ? w->fast_peer[1] : w->peer_base[SHMEMI_SEG_DATA];
    f->amo_local = w->amo_local;
    f->order_local = on && w->amo_local; /* amo_local: libfabric is not open */
    f->debug = shmemi_settings.debug;
    f->n_pes = w->n_pes;
}

void shmemi_fast_clear(void)
{
    shmemi_fast_v1 = (struct shmemi_fast_state){0};
}

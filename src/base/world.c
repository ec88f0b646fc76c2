/*
 * base/world.c — the state tables: the private world and the exported
 * table the inline fast paths read (filled by transport/select.c).
 */
#include "base/world.h"

struct shmemi_world shmemi_world = {
    .my_pe = -1,
};

/* Sizes stay 0 (inline paths off) until init fills the table. */
__attribute__((visibility("default"))) struct shmemi_fast_state shmemi_fast_v1;

/*
 * transport/transport.h — the one interface between comm/ and the paths
 * that move bytes. A peer is reached through exactly one transport,
 * chosen at init (shmemi_world.tp[pe]); remote memory is named by
 * (segment, offset), which maps to a load/store address for node-local
 * peers and to a registered region + key for a network path.
 *
 * Operations on this interface are complete on return unless stated:
 * put means the source buffer may be reused; get/amo mean the result is
 * here. fence/quiet order/complete what a transport left in flight.
 */
#ifndef SHMEMI_TRANSPORT_H
#define SHMEMI_TRANSPORT_H

#include <stddef.h>

#include "shmemi.h"

struct shmemi_transport {
    const char *name;
    void (*put)(int pe, int seg, size_t off, const void *src, size_t n, const char *routine);
    void (*get)(void *dst, int pe, int seg, size_t off, size_t n, const char *routine);
    /* dtype: SHMEMI_DT of a 4- or 8-byte object (checked by comm/). */
    void (*amo)(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                const void *cond, void *fetch, const char *routine);
    /* Load/store address of (seg, off) on pe, or NULL if not mapped. */
    void *(*ptr)(int pe, int seg, size_t off);
    void (*fence)(void);
    void (*quiet)(void);
};

extern const struct shmemi_transport shmemi_transport_shm;

/* Choose a transport per peer; fatal if some peer cannot be reached. */
void shmemi_transport_select(const char *routine);
void shmemi_transport_release(void);
/* fence/quiet every transport in use. */
void shmemi_transport_fence_all(void);
void shmemi_transport_quiet_all(void);

#endif /* SHMEMI_TRANSPORT_H */

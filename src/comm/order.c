/*
 * comm/order.c — fence and quiet. Contexts share the transports, so
 * ordering one context orders them all: stronger than required, never
 * weaker.
 */
#include "runtime/api.h"
#include "transport/transport.h"

void shmemi_fence(shmem_ctx_t ctx)
{
    (void)ctx;
    shmemi_transport_fence_all();
}

void shmemi_quiet(shmem_ctx_t ctx)
{
    (void)ctx;
    shmemi_transport_quiet_all();
}

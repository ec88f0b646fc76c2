/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/order.c — fence and quiet, per context: the network path keeps
 * completion state per context; shm has none (its fence is a memory
 * fence, which orders every context: stronger than required).
 */
#include "shmemi.h"
#include "transport/transport.h"

void shmemi_fence(shmem_ctx_t ctx)
{
    shmemi_transport_fence_ctx(ctx);
}

void shmemi_quiet(shmem_ctx_t ctx)
{
    shmemi_transport_quiet_ctx(ctx);
}

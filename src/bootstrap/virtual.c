/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/virtual.c — SHMEM_VIRTUAL_NODES: make one machine look like
 * several nodes, so the mixed (shared memory + network) configuration
 * can be run and tested anywhere. PEs are split into K contiguous groups
 * (PE p is in group p*K/N); a PE's node-local peers are those the
 * launcher reports on its node AND in its group.
 */
#include "bootstrap/bootstrap.h"

void shmemi_boot_virtual_nodes(struct shmemi_boot_info *bi, long k)
{
    int n = 0;
    long mine;

    if (k <= 1)
        return;
    if (k > bi->size)
        k = bi->size;
    mine = (long)bi->rank * k / bi->size;
    for (int i = 0; i < bi->n_local; i++)
        if ((long)bi->local_pes[i] * k / bi->size == mine)
            bi->local_pes[n++] = bi->local_pes[i];
    bi->n_local = n;
}

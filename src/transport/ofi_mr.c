/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_mr.c — memory registration for the provider's mr_mode and
 * the exchange of addresses and keys through the bootstrap: each PE
 * publishes a card (endpoint address, region keys) and reads a peer's
 * on first contact with it (docs/design.md, "Start-up at scale").
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "memory/map.h"
#include "transport/ofi.h"

#define CARD_KEY "shoal.ofi"

/* What a PE publishes: its regions' keys and its endpoint address, only
 * the bytes fi_getname gave (16 on tcp), so the bootstrap stores about
 * 52 bytes per PE. Host names are the launcher's (PMIX_HOSTNAME, per
 * node), not ours. */
struct ofi_card {
    struct shmemi_ofi_remote reg[SHMEMI_OFI_NREG];
    uint32_t addrlen;
    uint8_t addr[SHMEMI_OFI_ADDR_MAX];
};
#define CARD_HEAD offsetof(struct ofi_card, addr)

static void register_region(int reg, void *base, size_t len, struct shmemi_ofi_remote *out,
                            const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    uint64_t mode = o->info->domain_attr->mr_mode;

    out->base = 0;
    out->key = 0;
    if (!len)
        return;
    /* The requested key is used only without FI_MR_PROV_KEY (scalable MRs). */
    /* Under FI_MR_LOCAL the segments are also the local side of puts,
     * gets and AMOs from and into symmetric memory (ofi_local.c). */
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (o->mr_local)
        access |= FI_READ | FI_WRITE | FI_SEND | FI_RECV;
    SHMEMI_OFI_CHECK(fi_mr_reg(o->domain, base, len, access, 0, (uint64_t)reg + 1, 0, &o->mr[reg], NULL),
                     "fi_mr_reg", routine);
    if (mode & FI_MR_ENDPOINT) {
        SHMEMI_OFI_CHECK(fi_mr_bind(o->mr[reg], &o->main.ep->fid, 0), "fi_mr_bind", routine);
        SHMEMI_OFI_CHECK(fi_mr_enable(o->mr[reg]), "fi_mr_enable", routine);
    }
    out->key = fi_mr_key(o->mr[reg]);
    if (o->mr_local)
        o->seg_desc[reg] = fi_mr_desc(o->mr[reg]);
    /* Without FI_MR_VIRT_ADDR the target address is an offset in the region. */
    out->base = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)base : 0;
}

/* Register the segments and publish this PE's card. */
void shmemi_ofi_publish(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct ofi_card card;
    size_t len = sizeof card.addr;

    memset(&card, 0, sizeof card);
    SHMEMI_OFI_CHECK(fi_getname(&o->main.ep->fid, card.addr, &len), "fi_getname", routine);
    card.addrlen = (uint32_t)len;
    register_region(0, shmemi_map.heap_seg.base, shmemi_map.heap_seg.size, &card.reg[0], routine);
    register_region(1, (void *)shmemi_map.seg_base[SHMEMI_SEG_DATA], shmemi_map.seg_size[SHMEMI_SEG_DATA], &card.reg[1],
                    routine);
    shmemi_boot_put(CARD_KEY, &card, CARD_HEAD + card.addrlen, routine);
}

/* The peer table: zeroed, filled one peer at a time on first contact. */
void shmemi_ofi_exchange(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    o->peer = calloc((size_t)shmemi_world.n_pes, sizeof *o->peer);
    if (!o->peer)
        shmemi_fatal(routine, "out of memory");
}

static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;
static int resolved;

/* First contact with pe: its card from the bootstrap (a local lookup,
 * the fence collected it), its address into the AV. Any thread may get
 * here; one fills the entry, the others wait for it under the lock. */
void shmemi_ofi_resolve(int pe)
{
    static const char routine[] = "shmem (first contact with a peer on the network path)";
    struct shmemi_ofi *o = &shmemi_ofi;
    struct shmemi_ofi_peer *p = &o->peer[pe];
    struct ofi_card card;
    size_t len;
    int rc;

    pthread_mutex_lock(&resolve_lock);
    if (!__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE)) {
        memset(&card, 0, sizeof card);
        len = shmemi_boot_get_var(pe, CARD_KEY, &card, sizeof card, routine);
        if (len < CARD_HEAD || card.addrlen > SHMEMI_OFI_ADDR_MAX || len != CARD_HEAD + card.addrlen)
            shmemi_fatal(routine, "PE %d's network card is malformed (%zu bytes)", pe, len);
        rc = fi_av_insert(o->av, card.addr, 1, &p->addr, 0, NULL);
        if (rc != 1)
            shmemi_ofi_fail(routine, "fi_av_insert", pe, rc < 0 ? rc : -FI_EINVAL);
        memcpy(p->reg, card.reg, sizeof p->reg);
        __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
        resolved++;
    }
    pthread_mutex_unlock(&resolve_lock);
}

int shmemi_ofi_resolved_count(void)
{
    int n;

    pthread_mutex_lock(&resolve_lock);
    n = resolved;
    pthread_mutex_unlock(&resolve_lock);
    return n;
}

void shmemi_ofi_peers_reset(void)
{
    pthread_mutex_lock(&resolve_lock);
    resolved = 0;
    pthread_mutex_unlock(&resolve_lock);
}

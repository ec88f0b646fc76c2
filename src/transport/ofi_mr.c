/*
 * transport/ofi_mr.c — memory registration for the provider's mr_mode and
 * the exchange of addresses and keys through the bootstrap: each PE
 * publishes a card (endpoint address, region keys, host name) and reads
 * every peer's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "memory/map.h"
#include "transport/ofi.h"

#define CARD_KEY "shoal.ofi"

/* What a PE publishes: its endpoint address and its regions' keys. */
struct ofi_card {
    uint32_t addrlen;
    uint8_t addr[SHMEMI_OFI_ADDR_MAX];
    struct shmemi_ofi_remote reg[SHMEMI_OFI_NREG];
    char host[64]; /* gethostname: errors name the peer's host */
};

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
    if (gethostname(card.host, sizeof card.host - 1))
        snprintf(card.host, sizeof card.host, "?");
    SHMEMI_OFI_CHECK(fi_getname(&o->main.ep->fid, card.addr, &len), "fi_getname", routine);
    card.addrlen = (uint32_t)len;
    register_region(0, shmemi_map.heap_seg.base, shmemi_map.heap_seg.size, &card.reg[0], routine);
    register_region(1, (void *)shmemi_map.seg_base[SHMEMI_SEG_DATA], shmemi_map.seg_size[SHMEMI_SEG_DATA], &card.reg[1],
                    routine);
    shmemi_boot_put(CARD_KEY, &card, sizeof card, routine);
}

/* Read every PE's card: its address into the AV, its keys and host. */
void shmemi_ofi_exchange(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    int n = shmemi_world.n_pes;
    struct ofi_card card;

    o->addr = calloc((size_t)n, sizeof *o->addr);
    o->remote = calloc((size_t)n * SHMEMI_OFI_NREG, sizeof *o->remote);
    o->host = calloc((size_t)n, sizeof *o->host);
    if (!o->addr || !o->remote || !o->host)
        shmemi_fatal(routine, "out of memory");
    for (int pe = 0; pe < n; pe++) {
        int rc;

        shmemi_boot_get(pe, CARD_KEY, &card, sizeof card, routine);
        rc = fi_av_insert(o->av, card.addr, 1, &o->addr[pe], 0, NULL);
        if (rc != 1)
            shmemi_ofi_fail(routine, "fi_av_insert", pe, rc < 0 ? rc : -FI_EINVAL);
        memcpy(&o->remote[(size_t)pe * SHMEMI_OFI_NREG], card.reg, sizeof card.reg);
        memcpy(o->host[pe], card.host, sizeof o->host[pe]);
        o->host[pe][sizeof o->host[pe] - 1] = '\0';
    }
}

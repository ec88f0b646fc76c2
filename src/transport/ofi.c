/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi.c — bringing the libfabric path up and down, in order:
 * provider (ofi_provider.c), fabric, domain and AV, the default context's
 * endpoint (ofi_ep.c), registration and the card each peer is read
 * from on first contact (ofi_mr.c), the progress thread (ofi_progress.c); lost peers are
 * ofi_liveness.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "transport/ofi.h"

struct shmemi_ofi shmemi_ofi;

/* Provider settings Shoal chooses unless the user did (before the first
 * libfabric call, which reads them). tcp;ofi_rxm keeps, per endpoint, two
 * pools of 1024 buffers of FI_OFI_RXM_BUFFER_SIZE bytes (16 KiB by
 * default): 87 MB of a PE's 89 MB. Those buffers carry rxm's emulated
 * atomics (operands of at most 16 bytes), RMA bookkeeping and Shoal's
 * gathered messages, which are sized to fit (ofi_gather.c), so 4 KiB is
 * ample and a PE holds 26 MB (docs/performance.md, "Start-up and memory
 * at scale"). */
static void provider_defaults(void)
{
    setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 0);
}

/* On shm a domain with virtual addresses whose endpoints promise no RMA
 * ordering lets the provider do a read or write that asks for no
 * delivery completion by cross-memory attach, from the initiating
 * process: one system call, no turn of the target's command queue (where
 * 1.17 serves every read through its bounce buffers). Shoal keeps the
 * order it needs itself (ofi_rma.c, "Direct"); the ordering the
 * endpoints keep for queued operations is unchanged, so the promise is
 * only left out of the attributes the domain is opened with. */
static void open_domain(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    uint64_t order = o->info->tx_attr->msg_order;

    if (o->direct) {
        o->info->domain_attr->mr_mode |= FI_MR_VIRT_ADDR;
        o->info->tx_attr->msg_order = 0;
    }
    SHMEMI_OFI_CHECK(fi_domain(o->fabric, o->info, &o->domain, NULL), "fi_domain", routine);
    o->info->tx_attr->msg_order = order;
}

void shmemi_ofi_open(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)shmemi_world.n_pes};

    provider_defaults();
    o->info = shmemi_ofi_choose_provider(routine);
    shmemi_init_phase("ofi_getinfo");
    o->inject_size = o->info->tx_attr->inject_size;
    o->bounce_size = shmemi_settings.ofi_bounce_size;
    o->manual_progress = o->info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
    o->serial = o->info->domain_attr->threading == FI_THREAD_DOMAIN;
    o->ordered_writes = shmemi_ofi_writes_ordered(o->info);
    /* Before the first endpoint: each keeps a bitmap of posted targets. */
    shmemi_ofi_plan(o->info);
    /* Without delivery completion the endpoint takes the provider's
     * default completion, not FI_TRANSMIT_COMPLETE as a default flag: on
     * tcp;ofi_rxm (libfabric 1.17) that default stalled threaded traffic
     * at 3 PEs with one write per PE never counted. Injected writes and
     * AMOs ask for transmit completion explicitly; quiet's flush makes
     * all of them delivered (ofi_posted.c). */
    if (o->transmit_complete)
        o->info->tx_attr->op_flags &= ~(uint64_t)FI_TRANSMIT_COMPLETE;
    SHMEMI_OFI_CHECK(fi_fabric(o->info->fabric_attr, &o->fabric, NULL), "fi_fabric", routine);
    open_domain(routine);
    SHMEMI_OFI_CHECK(fi_av_open(o->domain, &ava, &o->av, NULL), "fi_av_open", routine);
    shmemi_init_phase("ofi_domain");
    shmemi_ofi_ep_open(&o->main, routine);
    shmemi_init_phase("ofi_endpoint");
    if (o->mr_local)
        o->scratch_desc = shmemi_ofi_reg_owned(o->main.ep, &shmemi_ofi_scratch, sizeof shmemi_ofi_scratch,
                                               &o->scratch_mr, routine);
    shmemi_ofi_publish(routine);
    shmemi_ofi_amo_query();
    shmemi_gather_open(routine);
}

void shmemi_ofi_connect(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    shmemi_ofi_exchange(routine);
    shmemi_world.net_progress = 1; /* wait loops also serve incoming traffic */
    if (shmemi_world.my_pe == 0 && shmemi_settings.info) {
        const struct fi_info *fi = o->info;
        uint32_t v = fi_version();
        printf("Network path: libfabric %u.%u, provider %s (domain %s), chosen by %s\n"
               "  mr_mode 0x%x (%s addresses, %s keys), data progress %s, inject %zu B, bounce %zu B, fence %s,\n"
               "  progress thread %s, calls %s; puts up to %zu B %s;\n  atomics: %s;\n  gathering: %s\n",
               FI_MAJOR(v), FI_MINOR(v), fi->fabric_attr->prov_name, fi->domain_attr->name,
               shmemi_ofi_choice_reason(), (unsigned)fi->domain_attr->mr_mode,
               fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? "virtual" : "offset",
               fi->domain_attr->mr_mode & FI_MR_PROV_KEY ? "provider" : "requested",
               o->manual_progress ? "manual" : "auto", o->inject_size, o->bounce_size,
               o->ordered_writes ? "free (writes ordered)" : "by quiet",
               shmemi_settings.progress_thread < 0 ? (o->manual_progress ? "on (auto)" : "off (auto)")
               : shmemi_settings.progress_thread ? "on" : "off",
               o->serial ? "serialized by Shoal (FI_THREAD_DOMAIN)" : "thread-safe in libfabric (FI_THREAD_SAFE)",
               o->inject_size,
               o->transmit_complete ? "and non-fetching atomics transmit-complete, flushed by quiet"
               : o->posted          ? "and non-fetching atomics posted, flushed by quiet (reads ordered after writes)"
               : o->puts_posted     ? "posted, flushed by quiet (a read follows writes on a peer's connection)"
                                    : "and non-fetching atomics delivery-complete",
               shmemi_ofi_amo_summary(), shmemi_gather_summary());
        shmemi_ofi_print_plan(stdout, fi, "  ");
        fflush(stdout);
    }
}

void shmemi_ofi_start(void)
{
    shmemi_ofi_progress_thread_start();
}

void shmemi_ofi_close(void)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    shmemi_ofi_progress_thread_stop();
    shmemi_world.net_progress = 0;
    /* How lazy start-up paid off: peers whose card this PE ever read. */
    if (o->peer && shmemi_init_timing_prints())
        fprintf(stderr, "shoal: PE %d: met %d of %d PEs on the network path\n", shmemi_world.my_pe,
                shmemi_ofi_resolved_count(), shmemi_world.n_pes);
    shmemi_ofi_ctx_release();
    shmemi_ofi_ep_close(&o->main);
    shmemi_gather_close();
    for (int i = 0; i < SHMEMI_OFI_NREG; i++)
        SHMEMI_OFI_CLOSE(o->mr[i]);
    SHMEMI_OFI_CLOSE(o->scratch_mr);
    SHMEMI_OFI_CLOSE(o->av);
    SHMEMI_OFI_CLOSE(o->domain);
    SHMEMI_OFI_CLOSE(o->fabric);
    if (o->info)
        fi_freeinfo(o->info);
    free(o->peer);
    shmemi_ofi_peers_reset();
    memset(o, 0, sizeof *o);
    shmemi_ofi_liveness_reset();
    shmemi_ofi_forget_shm_names();
}

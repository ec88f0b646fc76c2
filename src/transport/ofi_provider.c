/*
 * transport/ofi_provider.c — which libfabric provider the network path
 * uses: what Shoal asks of one (hints), the choice (SHMEM_OFI_PROVIDER,
 * FI_PROVIDER, else the first usable one), what it promises about write
 * order, and the list shoal-info prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "transport/ofi.h"

static char choice_reason[160];

void shmemi_ofi_fail(const char *routine, const char *call, int pe, ssize_t rc)
{
    const char *prov = shmemi_ofi.info ? shmemi_ofi.info->fabric_attr->prov_name : "libfabric";

    if (pe >= 0)
        shmemi_fatal(routine, "%s to PE %d failed (provider %s): %s", call, pe, prov,
                     fi_strerror((int)-rc));
    shmemi_fatal(routine, "%s failed (provider %s): %s", call, prov, fi_strerror((int)-rc));
}

const char *shmemi_ofi_choice_reason(void)
{
    return choice_reason;
}

static int usable(const struct fi_info *fi)
{
    /* udp;ofi_rxd hangs on this libfabric: never take it by ourselves. */
    return !strstr(fi->fabric_attr->prov_name, "ofi_rxd");
}

/* What Shoal asks of a provider; NULL when out of memory. */
static struct fi_info *provider_hints(const char *want)
{
    struct fi_info *hints = fi_allocinfo();

    if (!hints)
        return NULL;
    /* FI_ATOMIC must be asked for: tcp;ofi_rxm lists it only then. */
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = 0; /* no FI_CONTEXT: operations carry no context */
    hints->ep_attr->type = FI_EP_RDM;
    /* Every mode we can serve; FI_MR_LOCAL is not among them. */
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    /* Shared contexts, THREAD_MULTIPLE and the progress thread call in
     * concurrently; PRIVATE contexts take no lock of ours. */
    hints->domain_attr->threading = FI_THREAD_SAFE;
    /* Quiet means delivered at the target, not just sent. */
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (want[0])
        hints->fabric_attr->prov_name = strdup(want);
    return hints;
}

/* The providers usable here and the one a job would choose (shoal-info). */
void shmemi_ofi_print_providers(FILE *out)
{
    const char *want = shmemi_settings.ofi_provider, *fip = getenv("FI_PROVIDER");
    struct fi_info *hints = provider_hints(want), *all = NULL;
    const char *chosen = NULL;
    char seen[512] = "";
    int rc;

    if (!hints)
        return;
    rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &all);
    fprintf(out, "libfabric %u.%u providers with RDM endpoints, FI_RMA and FI_ATOMIC:\n", FI_MAJOR_VERSION,
            FI_MINOR_VERSION);
    if (rc || !all)
        fprintf(out, "  none (fi_getinfo: %s)\n", rc ? fi_strerror(-rc) : "no match");
    for (struct fi_info *f = all; f; f = f->next) {
        const char *name = f->fabric_attr->prov_name;
        char key[96];
        snprintf(key, sizeof key, "|%s|", name);
        if (strstr(seen, key))
            continue;
        if (strlen(seen) + strlen(key) < sizeof seen)
            strcat(seen, key);
        if (!chosen && (usable(f) || want[0]))
            chosen = name;
        fprintf(out, "  %-14s %s\n", name,
                chosen == name ? "<- chosen" : usable(f) ? "usable" : "skipped (hangs on this libfabric)");
    }
    if (chosen)
        fprintf(out, "  chosen by %s\n", want[0] ? "SHMEM_OFI_PROVIDER" : fip ? "FI_PROVIDER (libfabric's filter)"
                                                               : "being the first usable one fi_getinfo offers");
    if (all)
        fi_freeinfo(all);
    fi_freeinfo(hints);
}

/* The chosen provider again, asked to order reads and writes after
 * writes (RAW, WAW, WAR): where it can, that is what fence and the flush
 * of posted operations rely on (ofi_posted.c). Asked only after the
 * choice, so the order never changes which provider is chosen; kept only
 * if the same provider answers. (shm then also leaves its "fast RMA",
 * copies by process_vm_writev in the caller, which cost 1.8 us per call on
 * this machine against 0.3 us for a queued write.) */
static struct fi_info *with_write_order(struct fi_info *pick)
{
    struct fi_info *hints = provider_hints(pick->fabric_attr->prov_name), *got = NULL;

    if (!hints)
        return pick;
    hints->tx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_WAR;
    if (fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &got) == 0 && got &&
        strcmp(got->fabric_attr->prov_name, pick->fabric_attr->prov_name) == 0 &&
        (got->tx_attr->msg_order & hints->tx_attr->msg_order) == hints->tx_attr->msg_order) {
        struct fi_info *ordered = fi_dupinfo(got);
        if (ordered) {
            fi_freeinfo(pick);
            pick = ordered;
        }
    }
    if (got)
        fi_freeinfo(got);
    fi_freeinfo(hints);
    return pick;
}

struct fi_info *shmemi_ofi_choose_provider(const char *routine)
{
    struct fi_info *hints, *all = NULL, *pick = NULL;
    const char *want = shmemi_settings.ofi_provider, *fip = getenv("FI_PROVIDER");
    int rc;

    hints = provider_hints(want);
    if (!hints)
        shmemi_fatal(routine, "out of memory");
    rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &all);
    if (rc || !all)
        shmemi_fatal(routine, "no libfabric provider offers RDM endpoints with FI_RMA|FI_ATOMIC%s%s%s%s "
                     "(fi_getinfo: %s)", want[0] ? " under SHMEM_OFI_PROVIDER=" : "", want,
                     fip ? " with FI_PROVIDER=" : "", fip ? fip : "", rc ? fi_strerror(-rc) : "none");
    for (struct fi_info *f = all; f && !pick; f = f->next)
        if (usable(f) || want[0])
            pick = f;
    if (!pick)
        shmemi_fatal(routine, "the only libfabric providers offered are udp;ofi_rxd, which hangs here: "
                     "set FI_PROVIDER or SHMEM_OFI_PROVIDER to tcp, shm or sockets");
    if (want[0])
        snprintf(choice_reason, sizeof choice_reason, "SHMEM_OFI_PROVIDER=%s", want);
    else if (fip)
        snprintf(choice_reason, sizeof choice_reason, "FI_PROVIDER=%s (libfabric's filter)", fip);
    else
        snprintf(choice_reason, sizeof choice_reason,
                 "first RDM provider with FI_RMA|FI_ATOMIC that fi_getinfo offers (udp;ofi_rxd skipped)");
    pick = fi_dupinfo(pick);
    fi_freeinfo(all);
    fi_freeinfo(hints);
    if (!pick)
        shmemi_fatal(routine, "out of memory");
    return with_write_order(pick);
}

/* Fence is free when the provider places RMA and atomic writes in issue
 * order with each other (not only within each class). */
int shmemi_ofi_writes_ordered(const struct fi_info *fi)
{
    uint64_t o = fi->tx_attr->msg_order;
    return (o & FI_ORDER_WAW) && (o & FI_ORDER_RAW) && (o & FI_ORDER_WAR) &&
           fi->ep_attr->max_order_waw_size == (size_t)-1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
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
/* Ask for transmit completion instead of delivery completion: forced, or
 * no provider offered delivery completion (shmemi_ofi_choose_provider). */
static int want_transmit_complete;

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
    /* udp;ofi_rxd (libfabric 1.17) dies of SIGSEGV inside the provider's
     * progress at the first barrier of 2 PEs (docs/providers.md): never
     * take it by ourselves. */
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
    /* A context per operation where the provider wants one (ofi_local.c). */
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    /* Every mode we can serve (FI_MR_LOCAL: ofi_local.c). */
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    /* Shared contexts, THREAD_MULTIPLE and the progress thread call in
     * concurrently; PRIVATE contexts take no lock of ours. */
    hints->domain_attr->threading = FI_THREAD_SAFE;
    /* Quiet means delivered at the target, not just sent: by the
     * provider's delivery completion, else by quiet's flush (ofi_posted.c). */
    hints->tx_attr->op_flags = want_transmit_complete ? FI_TRANSMIT_COMPLETE : FI_DELIVERY_COMPLETE;
    if (want[0])
        hints->fabric_attr->prov_name = strdup(want);
    return hints;
}

static struct fi_info *with_write_order(struct fi_info *pick);
static struct fi_info *with_flush_fence(struct fi_info *pick);
static struct fi_info *with_own_progress(struct fi_info *pick);
static struct fi_info *with_serial_calls(struct fi_info *pick);
static struct fi_info *with_remote_write_count(struct fi_info *pick);

/* The chosen provider, refined: each step asks it again for one more
 * thing and keeps the answer only if the same provider gives it. */
static struct fi_info *with_messages(struct fi_info *pick);

static struct fi_info *refined(struct fi_info *pick)
{
    return with_remote_write_count(
        with_serial_calls(with_own_progress(with_flush_fence(with_write_order(with_messages(pick))))));
}

/* The providers usable here and the one a job would choose (shoal-info). */
void shmemi_ofi_print_providers(FILE *out)
{
    const char *want = shmemi_settings.ofi_provider, *fip = getenv("FI_PROVIDER");
    struct fi_info *hints, *all = NULL, *chosen_info = NULL;
    const char *chosen = NULL;
    char seen[512] = "";
    int rc;

    want_transmit_complete = !!(shmemi_settings.ofi_force & SHMEMI_OFI_FORCE_TRANSMIT_COMPLETE);
    hints = provider_hints(want);
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
        if (!chosen && (usable(f) || want[0])) {
            chosen = name;
            chosen_info = f;
        }
        fprintf(out, "  %-14s %s\n", name,
                chosen == name ? "<- chosen" : usable(f) ? "usable" : "skipped (crashes at 2 PEs on libfabric 1.17)");
    }
    if (chosen)
        fprintf(out, "  chosen by %s\n", want[0] ? "SHMEM_OFI_PROVIDER" : fip ? "FI_PROVIDER (libfabric's filter)"
                                                               : "being the first usable one fi_getinfo offers");
    if (chosen_info) {
        /* What a job would do on it: the same refinements as at start-up. */
        struct fi_info *c = fi_dupinfo(chosen_info);
        if (c) {
            c = refined(c);
            shmemi_ofi_plan(c);
            shmemi_ofi_print_plan(out, c, "  ");
            memset(&shmemi_ofi, 0, sizeof shmemi_ofi);
            fi_freeinfo(c);
        }
    }
    if (all)
        fi_freeinfo(all);
    fi_freeinfo(hints);
}

/* The refinements below ask fi_getinfo again, for the provider already
 * chosen, with one more thing in the hints. The answer replaces the pick
 * only if the same provider gives it and `keeps` accepts it (it checks
 * that what was asked for, and what earlier refinements obtained, is
 * there); the hints are freed either way. */
static struct fi_info *ask_again(struct fi_info *pick, struct fi_info *hints,
                                 int (*keeps)(const struct fi_info *got, const struct fi_info *pick))
{
    struct fi_info *got = NULL;

    if (fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &got) == 0 && got &&
        strcmp(got->fabric_attr->prov_name, pick->fabric_attr->prov_name) == 0 && keeps(got, pick)) {
        struct fi_info *better = fi_dupinfo(got);
        if (better) {
            fi_freeinfo(pick);
            pick = better;
        }
    }
    if (got)
        fi_freeinfo(got);
    fi_freeinfo(hints);
    return pick;
}

/* Hints for the chosen provider that keep what the earlier refinements
 * obtained (the order, FI_FENCE); NULL when out of memory. */
static struct fi_info *hints_keeping(const struct fi_info *pick)
{
    struct fi_info *hints = provider_hints(pick->fabric_attr->prov_name);

    if (hints) {
        hints->tx_attr->msg_order = pick->tx_attr->msg_order;
        hints->caps |= pick->caps & (FI_FENCE | FI_MSG);
    }
    return hints;
}

#define SHMEMI_OFI_WRITE_ORDER (FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_WAR)

static int keeps_write_order(const struct fi_info *got, const struct fi_info *pick)
{
    (void)pick;
    return (got->tx_attr->msg_order & SHMEMI_OFI_WRITE_ORDER) == SHMEMI_OFI_WRITE_ORDER;
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
    struct fi_info *hints = provider_hints(pick->fabric_attr->prov_name);

    if (!hints)
        return pick;
    hints->tx_attr->msg_order = SHMEMI_OFI_WRITE_ORDER;
    hints->caps |= pick->caps & FI_MSG;
    return ask_again(pick, hints, keeps_write_order);
}

/* The chosen provider asked again, with what the earlier refinements
 * obtained and one more capability; kept where `keeps` says so. */
static struct fi_info *ask_again_with_cap(struct fi_info *pick, uint64_t cap,
                                          int (*keeps)(const struct fi_info *got, const struct fi_info *pick))
{
    struct fi_info *hints = hints_keeping(pick);

    if (!hints)
        return pick;
    hints->caps |= cap;
    return ask_again(pick, hints, keeps);
}

/* tcp;ofi_rxm, asked first for messages too (FI_MSG): gathered puts and
 * AMOs travel as messages of Shoal's own (ofi_gather.c). Not with
 * SHMEM_OFI_GATHER=off, and kept only if the same provider answers. */
static int rxm_over_tcp(const struct fi_info *fi);

static int keeps_messages(const struct fi_info *got, const struct fi_info *pick)
{
    return (got->caps & FI_MSG) && got->tx_attr->inject_size == pick->tx_attr->inject_size;
}

static struct fi_info *with_messages(struct fi_info *pick)
{
    struct fi_info *hints;

    if (shmemi_settings.ofi_gather == 0 || !rxm_over_tcp(pick) || (pick->caps & FI_MSG))
        return pick;
    hints = hints_keeping(pick);
    if (!hints)
        return pick;
    hints->caps |= FI_MSG;
    return ask_again(pick, hints, keeps_messages);
}

/* sockets, asked for manual data progress: Shoal's waits and its progress
 * thread drive it, as they drive tcp and shm. With the provider's own
 * progress thread (its default, FI_PROGRESS_AUTO) round trips stalled:
 * ~22 ms each while the thread spins (FI_SOCKETS_PE_WAITTIME, 10 ms by
 * default) on cores the PEs share, and, with the spin off, now and then
 * for tens of seconds, every PE waiting for a fetching AMO until traffic
 * from elsewhere woke a sleeping thread (docs/providers.md). Asked last,
 * keeping the order and fence obtained before; kept only if the same
 * provider answers. */
static int keeps_manual_progress(const struct fi_info *got, const struct fi_info *pick)
{
    (void)pick;
    return got->domain_attr->data_progress == FI_PROGRESS_MANUAL;
}

static struct fi_info *with_own_progress(struct fi_info *pick)
{
    struct fi_info *hints;

    if (strcmp(pick->fabric_attr->prov_name, "sockets") || pick->domain_attr->data_progress == FI_PROGRESS_MANUAL)
        return pick;
    hints = hints_keeping(pick);
    if (!hints)
        return pick;
    hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    hints->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    return ask_again(pick, hints, keeps_manual_progress);
}

/* Below SHMEM_THREAD_MULTIPLE, a provider layered on ofi_rxm (tcp, verbs)
 * again at FI_THREAD_DOMAIN: the lock wrappers of rxm's post and
 * completion paths become no-ops (on tcp an add made 7 mutex lock calls at
 * FI_THREAD_SAFE, 3 at DOMAIN; 1527 -> 1316 instructions), and Shoal keeps
 * its few threads out of each other's calls itself (ofi.h, "Serialized
 * calls"). Not elsewhere: shm (libfabric 1.17)
 * takes the same locks at every level, so Shoal's would only add its own.
 * Asked with everything the earlier refinements obtained (order, fence,
 * progress model; rxm grants the level only with the data progress
 * named); kept only if the same provider grants it with all of that.
 * SHMEM_OFI_FORCE=thread_safe keeps FI_THREAD_SAFE. */
static int keeps_serial_calls(const struct fi_info *got, const struct fi_info *pick)
{
    uint64_t order = pick->tx_attr->msg_order, fence = pick->caps & FI_FENCE;

    return got->domain_attr->threading == FI_THREAD_DOMAIN &&
           got->domain_attr->data_progress == pick->domain_attr->data_progress &&
           (got->tx_attr->msg_order & order) == order && (got->caps & fence) == fence &&
           got->tx_attr->inject_size == pick->tx_attr->inject_size;
}

static struct fi_info *with_serial_calls(struct fi_info *pick)
{
    struct fi_info *hints;

    if (shmemi_world.thread_level >= SHMEM_THREAD_MULTIPLE || !strstr(pick->fabric_attr->prov_name, "ofi_rxm") ||
        (shmemi_settings.ofi_force & SHMEMI_OFI_FORCE_THREAD_SAFE))
        return pick;
    hints = hints_keeping(pick);
    if (!hints)
        return pick;
    hints->domain_attr->data_progress = pick->domain_attr->data_progress;
    hints->domain_attr->control_progress = pick->domain_attr->control_progress;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    return ask_again(pick, hints, keeps_serial_calls);
}

/* shm, again with FI_RMA_EVENT: a counter of the peers' writes and
 * non-fetching AMOs applied at the default endpoint, by which a flag wait
 * tells a stream of them (two or more a poll) from round trips (one at a
 * time, and fetching AMOs are not counted) and spaces its polls further
 * while a stream lasts (ofi_progress.c, shmemi_ofi_wait_step). Kept only
 * if the same provider answers with everything obtained before. */
static int keeps_remote_write_count(const struct fi_info *got, const struct fi_info *pick)
{
    uint64_t order = pick->tx_attr->msg_order, fence = pick->caps & FI_FENCE;

    return (got->caps & FI_RMA_EVENT) && (got->tx_attr->msg_order & order) == order &&
           (got->caps & fence) == fence && got->domain_attr->threading == pick->domain_attr->threading &&
           got->tx_attr->inject_size == pick->tx_attr->inject_size;
}

static struct fi_info *with_remote_write_count(struct fi_info *pick)
{
    if (strcmp(pick->fabric_attr->prov_name, "shm") || (pick->caps & FI_RMA_EVENT))
        return pick;
    return ask_again_with_cap(pick, FI_RMA_EVENT, keeps_remote_write_count);
}

/* Under transmit completion, on a provider that does not order reads
 * after writes: the same provider again with FI_FENCE, so that quiet's
 * flush read can be fenced behind the writes (ofi_posted.c). Kept only
 * if the same provider answers. */
static int keeps_fence(const struct fi_info *got, const struct fi_info *pick)
{
    (void)pick;
    return (got->caps & FI_FENCE) != 0;
}

static struct fi_info *with_flush_fence(struct fi_info *pick)
{
    if (!want_transmit_complete || shmemi_ofi_reads_after_writes(pick) || (pick->caps & FI_FENCE))
        return pick;
    return ask_again_with_cap(pick, FI_FENCE, keeps_fence);
}

struct fi_info *shmemi_ofi_choose_provider(const char *routine)
{
    struct fi_info *hints, *all = NULL, *pick = NULL;
    const char *want = shmemi_settings.ofi_provider, *fip = getenv("FI_PROVIDER");
    int rc;

    want_transmit_complete = !!(shmemi_settings.ofi_force & SHMEMI_OFI_FORCE_TRANSMIT_COMPLETE);
    hints = provider_hints(want);
    if (!hints)
        shmemi_fatal(routine, "out of memory");
    rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &all);
    if ((rc || !all) && !want_transmit_complete) {
        /* None offers delivery completion: take transmit completion. */
        want_transmit_complete = 1;
        fi_freeinfo(hints);
        hints = provider_hints(want);
        if (!hints)
            shmemi_fatal(routine, "out of memory");
        rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &all);
    }
    if (rc || !all)
        shmemi_fatal(routine, "no libfabric provider offers RDM endpoints with FI_RMA|FI_ATOMIC%s%s%s%s "
                     "(fi_getinfo: %s)", want[0] ? " under SHMEM_OFI_PROVIDER=" : "", want,
                     fip ? " with FI_PROVIDER=" : "", fip ? fip : "", rc ? fi_strerror(-rc) : "none");
    for (struct fi_info *f = all; f && !pick; f = f->next)
        if (usable(f) || want[0])
            pick = f;
    if (!pick)
        shmemi_fatal(routine, "the only libfabric providers offered are udp;ofi_rxd, which crashes at 2 PEs on libfabric 1.17: "
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
    return refined(pick);
}

int shmemi_ofi_transmit_complete(void)
{
    return want_transmit_complete;
}

/* Fence is free when the provider places RMA and atomic writes in issue
 * order with each other (not only within each class). */
int shmemi_ofi_writes_ordered(const struct fi_info *fi)
{
    uint64_t o = fi->tx_attr->msg_order;
    return (o & FI_ORDER_WAW) && (o & FI_ORDER_RAW) && (o & FI_ORDER_WAR) &&
           fi->ep_attr->max_order_waw_size == (size_t)-1;
}

/* tcp;ofi_rxm keeps one connection per peer and endpoint, and carries RMA
 * and atomic messages on it in issue order; the peer's tcp reads the
 * stream in order, placing a write's data before it parses what follows.
 * So a read sent after writes to a PE is served after them, though the
 * provider claims no FI_ORDER_RAW (it cannot for every transport under
 * rxm). Not the AMOs: rxm applies those from its own receive queue, after
 * tcp has moved on. */
static int rxm_over_tcp(const struct fi_info *fi)
{
    return strcmp(fi->fabric_attr->prov_name, "tcp;ofi_rxm") == 0;
}

void shmemi_ofi_plan(const struct fi_info *fi)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    unsigned force = shmemi_settings.ofi_force;

    o->raw = shmemi_ofi_reads_after_writes(fi);
    o->posted = o->raw;
    o->transmit_complete = want_transmit_complete || !(fi->tx_attr->op_flags & FI_DELIVERY_COMPLETE);
    o->puts_posted = o->posted || (rxm_over_tcp(fi) && !o->transmit_complete);
    /* Not under transmit_complete: there every write asks for no delivery
     * completion by default, and shm would do bounced ones directly too. */
    o->direct = o->raw && !o->transmit_complete;
    o->dc = o->transmit_complete ? 0 : FI_DELIVERY_COMPLETE;
    o->flush_fence = o->transmit_complete && !o->raw && (fi->caps & FI_FENCE);
    o->mr_local = (fi->domain_attr->mr_mode & FI_MR_LOCAL) || (force & SHMEMI_OFI_FORCE_MR_LOCAL);
    o->need_context = (fi->mode & (FI_CONTEXT | FI_CONTEXT2)) || (force & SHMEMI_OFI_FORCE_CONTEXT);
    o->spaced_polls = strcmp(fi->fabric_attr->prov_name, "shm") == 0;
}

/* One line each for shoal-info and SHMEM_INFO: what the provider asks
 * (or SHMEM_OFI_FORCE) and what Shoal does for it. */
void shmemi_ofi_print_plan(FILE *out, const struct fi_info *fi, const char *indent)
{
    const struct shmemi_ofi *o = &shmemi_ofi;
    unsigned force = shmemi_settings.ofi_force;
    const char *why_tc = (force & SHMEMI_OFI_FORCE_TRANSMIT_COMPLETE) ? "forced by SHMEM_OFI_FORCE"
                                                                       : "no FI_DELIVERY_COMPLETE offered";

    if (!o->transmit_complete)
        fprintf(out, "%squiet: delivery complete (FI_DELIVERY_COMPLETE)%s\n", indent,
                o->posted        ? "; small puts and non-fetching AMOs posted, flushed by a read per PE"
                : o->puts_posted ? "; small puts posted, flushed by a read per PE (one connection a peer, in order)"
                                 : "");
    else
        fprintf(out, "%squiet: transmit complete + a flush read per PE written (%s), the read %s\n", indent, why_tc,
                o->raw           ? "ordered after the writes (FI_ORDER_RAW)"
                : o->flush_fence ? "fenced (FI_FENCE)"
                                 : "posted once the writes completed at transmit (no FI_ORDER_RAW, no FI_FENCE)");
    if (o->direct)
        fprintf(out, "%sgets %s and puts above %zu B: direct, by cross-memory attach from this process where shm can "
                "(the domain is opened without RMA ordering; writes still queued to the PE are completed first)%s\n",
                indent, shmemi_world.oversubscribed ? "of any size" : "above the inject size", shmemi_ofi.bounce_size,
                shmemi_world.oversubscribed || o->mr_local ? "" : "; smaller gets are atomic reads the target serves");
    if (!o->mr_local)
        fprintf(out, "%slocal buffers: unregistered (no FI_MR_LOCAL)\n", indent);
    else
        fprintf(out, "%slocal buffers: registered (%s): heap and data segment by their MRs, others through "
                "the registered bounce pool up to %zu B, registered per call above\n", indent,
                (fi->domain_attr->mr_mode & FI_MR_LOCAL) ? "FI_MR_LOCAL required" : "forced by SHMEM_OFI_FORCE",
                shmemi_settings.ofi_bounce_size);
    if (strcmp(fi->fabric_attr->prov_name, "sockets") == 0 && fi->domain_attr->data_progress == FI_PROGRESS_MANUAL)
        fprintf(out, "%sdata progress: manual, asked for: Shoal's waits and progress thread drive the provider "
                "(its own thread stalled round trips)\n", indent);
    if (fi->domain_attr->threading == FI_THREAD_DOMAIN)
        fprintf(out, "%sthreading: FI_THREAD_DOMAIN below SHMEM_THREAD_MULTIPLE, Shoal serializes its calls "
                "(rxm's locks are no-ops)\n", indent);
    else
        fprintf(out, "%sthreading: FI_THREAD_SAFE (%s)\n", indent,
                (force & SHMEMI_OFI_FORCE_THREAD_SAFE)              ? "forced by SHMEM_OFI_FORCE"
                : shmemi_world.thread_level >= SHMEM_THREAD_MULTIPLE ? "SHMEM_THREAD_MULTIPLE"
                : strstr(fi->fabric_attr->prov_name, "ofi_rxm")     ? "FI_THREAD_DOMAIN not granted"
                                                                    : "only rxm's providers are asked for FI_THREAD_DOMAIN");
    if (o->spaced_polls)
        fprintf(out, "%swaits: a flag wait polls every other turn, %s\n", indent,
                (fi->caps & FI_RMA_EVENT) ? "further apart while peers stream writes here (counted: FI_RMA_EVENT)"
                                          : "at a fixed gap (no FI_RMA_EVENT: peers' writes not counted)");
    if (!o->need_context)
        fprintf(out, "%soperation contexts: none (no FI_CONTEXT mode)\n", indent);
    else
        fprintf(out, "%soperation contexts: a struct fi_context2 per operation from a ring of the endpoint (%s)\n",
                indent,
                (fi->mode & (FI_CONTEXT | FI_CONTEXT2)) ? "FI_CONTEXT required" : "forced by SHMEM_OFI_FORCE");
}
/*
 * transport/ofi.c — bringing the libfabric path up and down: provider
 * choice, endpoints and counters, memory registration for the provider's
 * mr_mode, address/key exchange through the bootstrap, progress (from
 * wait loops and an optional thread).
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "runtime/cleanup.h"
#include "runtime/env.h"
#include "transport/ofi.h"

struct shmemi_ofi shmemi_ofi;

#define CARD_KEY "shoal.ofi"
#define ADDR_MAX 224

/* What a PE publishes: its endpoint address and its regions' keys. */
struct ofi_card {
    uint32_t addrlen;
    uint8_t addr[ADDR_MAX];
    struct shmemi_ofi_remote reg[SHMEMI_OFI_NREG];
    char host[64]; /* gethostname: errors name the peer's host */
};

static char choice_reason[160];

void shmemi_ofi_fail(const char *routine, const char *call, int pe, ssize_t rc)
{
    const char *prov = shmemi_ofi.info ? shmemi_ofi.info->fabric_attr->prov_name : "libfabric";

    if (pe >= 0)
        shmemi_fatal(routine, "%s to PE %d failed (provider %s): %s", call, pe, prov,
                     fi_strerror((int)-rc));
    shmemi_fatal(routine, "%s failed (provider %s): %s", call, prov, fi_strerror((int)-rc));
}

#define CHECK(call, what, routine)                                                              \
    do {                                                                                        \
        int rc_ = (int)(call);                                                                  \
        if (rc_)                                                                                \
            shmemi_ofi_fail(routine, what, -1, rc_);                                            \
    } while (0)

/* ---- provider choice ---- */

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

static struct fi_info *choose_provider(const char *routine)
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
    return pick;
}

/* Fence is free when the provider places RMA and atomic writes in issue
 * order with each other (not only within each class). */
static int writes_ordered(const struct fi_info *fi)
{
    uint64_t o = fi->tx_attr->msg_order;
    return (o & FI_ORDER_WAW) && (o & FI_ORDER_RAW) && (o & FI_ORDER_WAR) &&
           fi->ep_attr->max_order_waw_size == (size_t)-1;
}

/* ---- names left in /dev/shm ----
 * libfabric's shm provider backs each endpoint with /dev/shm/<name>,
 * where fi_getname says "fi_shm://<name>", and unlinks it only in
 * fi_close. A PE that ends through shmem_global_exit, a fatal error or
 * a signal never gets there: the cleanup registry unlinks them then. */
#define SHM_NAMES_MAX 72
static char shm_names[SHM_NAMES_MAX][64];

static void remember_shm_name(struct fid_ep *ep)
{
    static const char prefix[] = "fi_shm://";
    char addr[ADDR_MAX + 1];
    size_t len = ADDR_MAX;

    if (fi_getname(&ep->fid, addr, &len) || len >= sizeof addr)
        return;
    addr[len] = '\0';
    if (strncmp(addr, prefix, sizeof prefix - 1))
        return;
    for (int i = 0; i < SHM_NAMES_MAX; i++)
        if (!shm_names[i][0]) {
            snprintf(shm_names[i], sizeof shm_names[i], "/%.60s", addr + sizeof prefix - 1);
            shmemi_cleanup_add(shm_names[i]);
            return;
        }
}

/* ---- endpoints ---- */

void shmemi_ofi_ep_open(struct shmemi_ofi_ep *e, const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};

    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->bounce.lock, NULL);
    CHECK(fi_cq_open(o->domain, &cqa, &e->cq, NULL), "fi_cq_open", routine);
    CHECK(fi_cntr_open(o->domain, &ca, &e->wcntr, NULL), "fi_cntr_open", routine);
    CHECK(fi_cntr_open(o->domain, &ca, &e->rcntr, NULL), "fi_cntr_open", routine);
    CHECK(fi_endpoint(o->domain, o->info, &e->ep, NULL), "fi_endpoint", routine);
    CHECK(fi_ep_bind(e->ep, &o->av->fid, 0), "fi_ep_bind(av)", routine);
    CHECK(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION),
          "fi_ep_bind(cq)", routine);
    CHECK(fi_ep_bind(e->ep, &e->wcntr->fid, FI_WRITE), "fi_ep_bind(write counter)", routine);
    CHECK(fi_ep_bind(e->ep, &e->rcntr->fid, FI_READ), "fi_ep_bind(read counter)", routine);
    CHECK(fi_enable(e->ep), "fi_enable", routine);
    remember_shm_name(e->ep);
}

void shmemi_ofi_ep_close(struct shmemi_ofi_ep *e)
{
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->wcntr)
        fi_close(&e->wcntr->fid);
    if (e->rcntr)
        fi_close(&e->rcntr->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    shmemi_ofi_bounce_release(&e->bounce); /* the endpoint is closed: nothing reads it now */
    pthread_mutex_destroy(&e->bounce.lock);
    memset(e, 0, sizeof *e);
}

/* ---- progress and completion ---- */

static int probe_pe_of(const void *context);
static void probe_done(const void *context);
static void probe_failed(const void *context);

/* The peer is the probe's when the entry is a probe's, else the one
 * this thread last addressed (the entry itself does not say). */
static void cq_error(struct shmemi_ofi_ep *e, const char *routine)
{
    struct fi_cq_err_entry err = {0};
    char buf[128], peer[112] = "";
    int pe = shmemi_ofi_last_pe;

    if (fi_cq_readerr(e->cq, &err, 0) < 1)
        shmemi_fatal(routine, "a libfabric operation failed (provider %s), no detail available",
                     shmemi_ofi.info->fabric_attr->prov_name);
    if (probe_pe_of(err.op_context) >= 0) {
        /* A probe of a peer that is gone: the launcher is usually ending
         * the job already; if not, the timeout names the peer. */
        probe_failed(err.op_context);
        /* Count it as done and clear the error, so that the read
         * counter's waits neither fail nor hang on it. */
        fi_cntr_add(e->rcntr, 1);
        fi_cntr_seterr(e->rcntr, 0);
        return;
    }
    if (pe >= 0 && pe < shmemi_world.n_pes && shmemi_ofi.host)
        snprintf(peer, sizeof peer, " towards PE %d (host %s)", pe, shmemi_ofi_host(pe));
    shmemi_fatal(routine, "a libfabric operation%s failed (provider %s): %s (%s)", peer,
                 shmemi_ofi.info->fabric_attr->prov_name, fi_strerror(err.err),
                 fi_cq_strerror(e->cq, err.prov_errno, err.err_data, buf, sizeof buf));
}

/* Reading the queue is what drives a manual-progress provider. Only
 * errors and the liveness probes' reads arrive here (selective
 * completion, no receives posted). Returns the entries read. */
static ssize_t ep_poll(struct shmemi_ofi_ep *e)
{
    struct fi_cq_entry ent[4];
    ssize_t n = fi_cq_read(e->cq, ent, 4);

    if (n == -FI_EAVAIL) {
        cq_error(e, shmemi_ofi_last_routine ? shmemi_ofi_last_routine : "shmem (network progress)");
        return 1;
    }
    for (ssize_t i = 0; i < n; i++)
        probe_done(ent[i].op_context);
    return n > 0 ? n : 0;
}

/* Set by every library-driven poll, cleared by the progress thread: a
 * PE already progressing in a call needs no help, and the thread's
 * wake-ups and provider locks would only slow it (on tcp, a p + quiet
 * took 44 us with the thread polling against 26 us without it). */
static atomic_int library_polled;

static void poll_all(void)
{
    ep_poll(&shmemi_ofi.main);
    shmemi_ofi_ctx_progress();
}

void shmemi_ofi_progress(void)
{
    if (!shmemi_ofi.main.ep)
        return;
    /* Read first: a line already holding 1 stays shared between threads. */
    if (!atomic_load_explicit(&library_polled, memory_order_relaxed))
        atomic_store_explicit(&library_polled, 1, memory_order_relaxed);
    poll_all();
}

void shmemi_ofi_cntr_wait(struct shmemi_ofi_ep *e, struct fid_cntr *cntr, const uint64_t *issued, int pe,
                          const char *routine)
{
    unsigned spins = 0;
    struct shmemi_ofi_stall st = {0, 0};

    for (;;) {
        uint64_t done = fi_cntr_read(cntr); /* as shmemi_ofi_caught_up, keeping the value */

        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (done >= __atomic_load_n(issued, __ATOMIC_SEQ_CST))
            break;
        if (fi_cntr_readerr(cntr) > 0) {
            shmemi_ofi_last_pe = pe >= 0 ? pe : shmemi_ofi_last_pe;
            ep_poll(e); /* reports the queued error entry (unless a probe's) */
            if (fi_cntr_readerr(cntr) > 0)
                shmemi_ofi_fail(routine, pe >= 0 ? "a transfer" : "completing transfers", pe, -FI_EIO);
        }
        shmemi_ofi_progress();
        shmemi_ofi_stall_check(&st, done, pe, routine);
        if (++spins > shmemi_world.spin_limit)
            sched_yield();
    }
}

void shmemi_ofi_quiet_ep(struct shmemi_ofi_ep *e, const char *routine)
{
    shmemi_ofi_cntr_wait(e, e->wcntr, &e->w_issued, -1, routine);
    shmemi_ofi_cntr_wait(e, e->rcntr, &e->r_issued, -1, routine);
}

/* ---- lost peers (SHMEM_OFI_TIMEOUT) ----
 * A transfer towards a known peer that makes no progress for the
 * timeout is fatal. A PE that waits for a flag (a barrier) has nothing
 * of its own in flight: after waiting PROBE_AFTER_MS it reads 8 bytes
 * from each off-node peer (a round), again PROBE_GAP_MS after each round
 * completes; a read unanswered for the timeout names its peer. The
 * read needs the peer's progress, which its progress thread gives. */
#define PROBE_MAX 16
#define PROBE_AFTER_MS 1000
#define PROBE_GAP_MS 1000

_Thread_local const char *shmemi_ofi_last_routine;
_Thread_local int shmemi_ofi_last_pe = -1;

static struct {
    pthread_mutex_t lock;
    int active;          /* a round is in flight */
    int n, next;         /* slots used; first candidate of the next round */
    uint64_t sent_ms, done_ms;
    struct probe_slot {
        int pe;
        atomic_int done;
        uint64_t sink;
    } slot[PROBE_MAX];
} probe = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* a few ns; ms resolution is plenty */
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1;
}

static int probe_pe_of(const void *context)
{
    const struct probe_slot *s = context;

    if (s < probe.slot || s >= probe.slot + PROBE_MAX)
        return -1;
    return s->pe;
}

static void probe_done(const void *context)
{
    if (probe_pe_of(context) >= 0)
        atomic_store(&((struct probe_slot *)context)->done, 1);
}

static void probe_failed(const void *context)
{
    atomic_store(&((struct probe_slot *)context)->done, -1); /* still unanswered */
}

const char *shmemi_ofi_host(int pe)
{
    if (!shmemi_ofi.host || pe < 0 || pe >= shmemi_world.n_pes || !shmemi_ofi.host[pe][0])
        return "?";
    return shmemi_ofi.host[pe];
}

static SHMEMI_NORETURN void lost_peer(const char *routine, int pe, uint64_t ms)
{
    shmemi_fatal(routine, "no progress towards PE %d (host %s) for %.1f s on the network path (provider %s): "
                 "the peer or the link to it seems lost (SHMEM_OFI_TIMEOUT=%ld)", pe, shmemi_ofi_host(pe),
                 (double)ms / 1000, shmemi_ofi.info->fabric_attr->prov_name, shmemi_settings.ofi_timeout);
}

/* Peers the network path serves, not mapped here: node-local peers
 * answer by shared memory and need no probe. */
static int off_node(int pe)
{
    char **base = shmemi_world.peer_base[SHMEMI_SEG_HEAP];

    return pe != shmemi_world.my_pe && (!base || !base[pe]);
}

static void probe_post(struct probe_slot *s, int pe)
{
    struct shmemi_ofi_ep *e = &shmemi_ofi.main;
    struct iovec iov = {.iov_base = &s->sink, .iov_len = sizeof s->sink};
    struct fi_rma_iov riov = {.len = sizeof s->sink};
    struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = shmemi_ofi.addr[pe],
                             .rma_iov = &riov, .rma_iov_count = 1, .context = s};
    struct shmemi_ofi_stall st = {0, 0};
    ssize_t rc;

    riov.addr = shmemi_ofi_raddr(pe, SHMEMI_SEG_CTRL, 0, &riov.key);
    s->pe = pe;
    atomic_store(&s->done, 0);
    /* Counted like any read, so the read counter never runs ahead. */
    __atomic_fetch_add(&e->r_issued, 1, __ATOMIC_SEQ_CST);
    while ((rc = fi_readmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        poll_all();
        shmemi_ofi_stall_check(&st, 0, pe, "shmem (network liveness probe)");
    }
    if (rc)
        shmemi_ofi_fail("shmem (network liveness probe)", "fi_readmsg", pe, rc);
}

static void probe_start(uint64_t now)
{
    int n_pes = shmemi_world.n_pes, n = 0, any = 0;

    for (int pe = 0; pe < n_pes; pe++)
        any |= off_node(pe);
    for (int i = 0; i < n_pes && n < PROBE_MAX; i++) {
        int pe = (probe.next + i) % n_pes;
        if (pe == shmemi_world.my_pe || (any && !off_node(pe)))
            continue;
        probe.slot[n].pe = pe;
        n++;
    }
    probe.next = (probe.next + PROBE_MAX) % n_pes;
    probe.n = n;
    probe.sent_ms = now;
    probe.active = n > 0;
    for (int i = 0; i < n; i++)
        probe_post(&probe.slot[i], probe.slot[i].pe);
}

/* A wait without a known peer, waiting since `since`. */
static void probe_watch(uint64_t now, uint64_t since, const char *routine)
{
    uint64_t timeout = (uint64_t)shmemi_settings.ofi_timeout * 1000;
    int pending = -1;

    if (now - since < PROBE_AFTER_MS || pthread_mutex_trylock(&probe.lock))
        return;
    while (ep_poll(&shmemi_ofi.main)) /* completions already queued count */
        ;
    if (probe.active) {
        for (int i = 0; i < probe.n && pending < 0; i++)
            if (atomic_load(&probe.slot[i].done) != 1)
                pending = probe.slot[i].pe;
        if (pending < 0) {
            probe.active = 0;
            probe.done_ms = now;
        } else {
            /* A round sent before this wait began is judged from its start. */
            uint64_t from = probe.sent_ms > since ? probe.sent_ms : since;
            if (now - from >= timeout) {
                pthread_mutex_unlock(&probe.lock);
                lost_peer(routine, pending, now - probe.sent_ms);
            }
        }
    } else if (now - probe.done_ms >= PROBE_GAP_MS) {
        probe_start(now);
    }
    pthread_mutex_unlock(&probe.lock);
}

void shmemi_ofi_stall_check(struct shmemi_ofi_stall *st, uint64_t mark, int pe, const char *routine)
{
    uint64_t now;

    if (shmemi_settings.ofi_timeout <= 0 || !shmemi_ofi.main.ep)
        return;
    now = now_ms();
    if (!st->since_ms || mark != st->mark) {
        st->since_ms = now;
        st->mark = mark;
        return;
    }
    if (pe < 0)
        probe_watch(now, st->since_ms, routine);
    else if (now - st->since_ms >= (uint64_t)shmemi_settings.ofi_timeout * 1000)
        lost_peer(routine, pe, now - st->since_ms);
}

/* comm/backoff.h: every wait loop's poll while the network path is up. */
void shmemi_ofi_wait_watch(unsigned spins)
{
    static _Thread_local struct shmemi_ofi_stall st;

    if (spins == 1) /* a new wait */
        st.since_ms = 0;
    shmemi_ofi_stall_check(&st, 0, -1, shmemi_ofi_last_routine ? shmemi_ofi_last_routine : "shmem wait");
}

/* ---- progress thread ---- */

static pthread_t progress_tid;
static atomic_int progress_stop;
static int progress_running;

static void *progress_main(void *arg)
{
    /* Short naps while the PE computes: peers are served within ~0.1 ms,
     * and an idle thread costs its core almost nothing. While the PE
     * polls by itself, stand aside and nap longer. */
    const struct timespec serve = {0, 100000}, aside = {0, 1000000};
    (void)arg;
    while (!atomic_load_explicit(&progress_stop, memory_order_relaxed)) {
        if (atomic_exchange_explicit(&library_polled, 0, memory_order_relaxed)) {
            nanosleep(&aside, NULL);
            continue;
        }
        poll_all();
        nanosleep(&serve, NULL);
    }
    return NULL;
}

static void progress_thread_start(void)
{
    int want = shmemi_settings.progress_thread;

    if (want < 0)
        want = shmemi_ofi.manual_progress;
    if (!want)
        return;
    atomic_store(&progress_stop, 0);
    if (pthread_create(&progress_tid, NULL, progress_main, NULL) != 0) {
        shmemi_warn("shmem_init", "cannot start the progress thread; progress comes from library calls only");
        return;
    }
    progress_running = 1;
}

static void progress_thread_stop(void)
{
    if (!progress_running)
        return;
    atomic_store(&progress_stop, 1);
    pthread_join(progress_tid, NULL);
    progress_running = 0;
}

/* ---- bring-up ---- */

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
    CHECK(fi_mr_reg(o->domain, base, len, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, (uint64_t)reg + 1, 0,
                    &o->mr[reg], NULL),
          "fi_mr_reg", routine);
    if (mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(o->mr[reg], &o->main.ep->fid, 0), "fi_mr_bind", routine);
        CHECK(fi_mr_enable(o->mr[reg]), "fi_mr_enable", routine);
    }
    out->key = fi_mr_key(o->mr[reg]);
    /* Without FI_MR_VIRT_ADDR the target address is an offset in the region. */
    out->base = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)base : 0;
}

void shmemi_ofi_open(const char *routine)
{
    struct shmemi_ofi *o = &shmemi_ofi;
    struct shmemi_world *w = &shmemi_world;
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)w->n_pes};
    struct ofi_card card;
    size_t len = sizeof card.addr;

    o->info = choose_provider(routine);
    o->inject_size = o->info->tx_attr->inject_size;
    o->bounce_size = shmemi_settings.ofi_bounce_size;
    o->manual_progress = o->info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
    o->ordered_writes = writes_ordered(o->info);
    CHECK(fi_fabric(o->info->fabric_attr, &o->fabric, NULL), "fi_fabric", routine);
    CHECK(fi_domain(o->fabric, o->info, &o->domain, NULL), "fi_domain", routine);
    CHECK(fi_av_open(o->domain, &ava, &o->av, NULL), "fi_av_open", routine);
    shmemi_ofi_ep_open(&o->main, routine);

    memset(&card, 0, sizeof card);
    if (gethostname(card.host, sizeof card.host - 1))
        snprintf(card.host, sizeof card.host, "?");
    CHECK(fi_getname(&o->main.ep->fid, card.addr, &len), "fi_getname", routine);
    card.addrlen = (uint32_t)len;
    register_region(0, w->heap_seg.base, w->heap_seg.size, &card.reg[0], routine);
    register_region(1, (void *)w->seg_base[SHMEMI_SEG_DATA], w->seg_size[SHMEMI_SEG_DATA], &card.reg[1],
                    routine);
    shmemi_boot_put(CARD_KEY, &card, sizeof card, routine);
    shmemi_ofi_amo_query();
}

void shmemi_ofi_connect(const char *routine)
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
    shmemi_world.net_progress = 1; /* wait loops also serve incoming traffic */
    if (shmemi_world.my_pe == 0 && shmemi_settings.info) {
        const struct fi_info *fi = o->info;
        uint32_t v = fi_version();
        printf("Network path: libfabric %u.%u, provider %s (domain %s), chosen by %s\n"
               "  mr_mode 0x%x (%s addresses, %s keys), data progress %s, inject %zu B, bounce %zu B, fence %s,\n"
               "  progress thread %s; atomics: %s\n",
               FI_MAJOR(v), FI_MINOR(v), fi->fabric_attr->prov_name, fi->domain_attr->name,
               choice_reason, (unsigned)fi->domain_attr->mr_mode,
               fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? "virtual" : "offset",
               fi->domain_attr->mr_mode & FI_MR_PROV_KEY ? "provider" : "requested",
               o->manual_progress ? "manual" : "auto", o->inject_size, o->bounce_size,
               o->ordered_writes ? "free (writes ordered)" : "by quiet",
               shmemi_settings.progress_thread < 0 ? (o->manual_progress ? "on (auto)" : "off (auto)")
               : shmemi_settings.progress_thread ? "on" : "off",
               shmemi_ofi_amo_summary());
        fflush(stdout);
    }
}

void shmemi_ofi_start(void)
{
    progress_thread_start();
}

void shmemi_ofi_close(void)
{
    struct shmemi_ofi *o = &shmemi_ofi;

    progress_thread_stop();
    shmemi_world.net_progress = 0;
    shmemi_ofi_ctx_release();
    shmemi_ofi_ep_close(&o->main);
    for (int i = 0; i < SHMEMI_OFI_NREG; i++)
        if (o->mr[i])
            fi_close(&o->mr[i]->fid);
    if (o->av)
        fi_close(&o->av->fid);
    if (o->domain)
        fi_close(&o->domain->fid);
    if (o->fabric)
        fi_close(&o->fabric->fid);
    if (o->info)
        fi_freeinfo(o->info);
    free(o->addr);
    free(o->remote);
    free(o->host);
    memset(o, 0, sizeof *o);
    pthread_mutex_lock(&probe.lock); /* the next job's rounds start afresh */
    probe.active = probe.n = probe.next = 0;
    probe.done_ms = 0;
    pthread_mutex_unlock(&probe.lock);
    for (int i = 0; i < SHM_NAMES_MAX; i++) /* fi_close unlinked them */
        if (shm_names[i][0])
            shmemi_cleanup_remove(shm_names[i]);
    memset(shm_names, 0, sizeof shm_names);
}

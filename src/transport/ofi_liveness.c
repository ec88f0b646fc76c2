/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_liveness.c — lost peers on the network path
 * (SHMEM_OFI_TIMEOUT, docs/design.md "Lost peers"): stalled transfers and
 * the probes a waiting PE sends to its off-node peers.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "memory/addr.h"
#include "base/env.h"
#include "transport/ofi.h"

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

_Thread_local SHMEMI_OFI_TLS const char *shmemi_ofi_last_routine;
_Thread_local SHMEMI_OFI_TLS int shmemi_ofi_last_pe = -1;

static struct {
    pthread_mutex_t lock;
    int active;          /* a round is in flight */
    int n, next;         /* slots used; first candidate of the next round */
    uint64_t sent_ms, done_ms;
    struct probe_slot {
        struct fi_context2 fi_ctx; /* first: the provider's, under FI_CONTEXT */
        /* Set before the post, read by whichever thread reaps the
         * completion: ordered by the provider, whose memory ThreadSanitizer
         * does not see, so atomic. */
        atomic_int pe;
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

int shmemi_ofi_probe_pe_of(const void *context)
{
    const struct probe_slot *s = context;

    if (s < probe.slot || s >= probe.slot + PROBE_MAX)
        return -1;
    return s->pe;
}

void shmemi_ofi_probe_done(const void *context)
{
    if (shmemi_ofi_probe_pe_of(context) >= 0)
        atomic_store(&((struct probe_slot *)context)->done, 1);
}

void shmemi_ofi_probe_failed(const void *context)
{
    atomic_store(&((struct probe_slot *)context)->done, -1); /* still unanswered */
}

/* Only errors name a peer's host: asked of the bootstrap then, not kept. */
const char *shmemi_ofi_host(int pe)
{
    static _Thread_local char host[64];

    if (pe < 0 || pe >= shmemi_world.n_pes)
        return "?";
    shmemi_boot_hostname(pe, host, sizeof host);
    return host;
}

static SHMEMI_NORETURN void lost_peer(const char *routine, int pe, uint64_t ms)
{
    shmemi_fatal(routine, "no progress towards PE %d (host %s) for %.1f s on the network path (provider %s): "
                 "the peer or the link to it seems lost (SHMEM_OFI_TIMEOUT=%ld)", pe, shmemi_ofi_host(pe),
                 (double)ms / 1000, shmemi_ofi.info->fabric_attr->prov_name, shmemi_settings.ofi_timeout);
}

/* This PE has read pe's card (the peer table exists once connected). */
static int met(int pe)
{
    return shmemi_ofi.peer && __atomic_load_n(&shmemi_ofi.peer[pe].ready, __ATOMIC_ACQUIRE);
}

/* Peers the network path serves, not mapped here: node-local peers
 * answer by shared memory and need no probe. Only peers this PE has been
 * in contact with are probed: a probe would otherwise be the first
 * contact, and a round over every peer of a large job its own O(N). A
 * peer lost before anyone contacted it is found by the first who does. */
static int off_node(int pe)
{
    return pe != shmemi_world.my_pe && !shmemi_peer_addr(SHMEMI_SEG_HEAP, 0, pe) && met(pe);
}

static void probe_post(struct probe_slot *s, int pe)
{
    struct shmemi_ofi_ep *e = &shmemi_ofi.main;
    /* The answer is never looked at: the registered scratch word will do. */
    struct iovec iov = {.iov_base = &shmemi_ofi_scratch.discard[2], .iov_len = sizeof s->sink};
    void *desc = shmemi_ofi.scratch_desc;
    struct fi_rma_iov riov = {.len = sizeof s->sink};
    struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = shmemi_ofi_addr(pe),
                             .rma_iov = &riov, .rma_iov_count = 1, .context = s, .desc = &desc};
    struct shmemi_ofi_stall st = {0, 0, NULL};
    ssize_t rc;

    riov.addr = shmemi_ofi_raddr(pe, SHMEMI_SEG_CTRL, 0, &riov.key);
    s->pe = pe;
    atomic_store(&s->done, 0);
    /* Counted like any read, so the read counter never runs ahead. */
    __atomic_fetch_add(&e->r.issued, 1, __ATOMIC_SEQ_CST);
    while ((rc = fi_readmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        shmemi_ofi_poll_all();
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
        if (pe == shmemi_world.my_pe || (any && !off_node(pe)) || !met(pe))
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
    while (shmemi_ofi_ep_poll(&shmemi_ofi.main)) /* completions already queued count */
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

/* A transfer on a context's own endpoint made no progress towards pe for
 * the timeout: read 8 bytes of pe on the default endpoint, whose counter
 * wait is judged as any other (an unanswered read there is the lost
 * peer, fatal). Answered, the peer and the link are there and it is this
 * endpoint's connection that is slow to set up: a lost connection
 * request costs TCP 1, 2, 4, 8, 16 s before it is sent again, 31 s for
 * five, just past the default timeout (seen in CI, the host's SYN
 * retransmissions rising meanwhile). Said once. */
static void vouch_on_default_endpoint(int pe, uint64_t ms, const char *routine)
{
    static atomic_int said;
    struct shmemi_ofi_ep *e = &shmemi_ofi.main;
    uint64_t key, raddr = shmemi_ofi_raddr(pe, SHMEMI_SEG_CTRL, 0, &key);

    SHMEMI_OFI_POST(e, &e->r, fi_read(e->ep, &shmemi_ofi_scratch.discard[3], sizeof(uint64_t),
                                      shmemi_ofi.scratch_desc, shmemi_ofi_addr(pe), raddr, key, op_ctx),
                    "fi_read", pe, routine);
    shmemi_ofi_cntr_wait(e, &e->r, pe, routine);
    if (!atomic_exchange(&said, 1))
        shmemi_warn(routine, "a context's connection to PE %d (host %s) has made no progress for %.1f s, but the "
                    "peer answers on the default context's: waiting on", pe, shmemi_ofi_host(pe), (double)ms / 1000);
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
    else if (now - st->since_ms >= (uint64_t)shmemi_settings.ofi_timeout * 1000) {
        if (!st->ep || st->ep == &shmemi_ofi.main)
            lost_peer(routine, pe, now - st->since_ms);
        vouch_on_default_endpoint(pe, now - st->since_ms, routine);
        st->since_ms = now_ms(); /* a new timeout for this endpoint */
    }
}

/* A wait loop's poll (shmemi_ofi_wait_step): a new wait restarts the
 * clock, which is read once per SHMEMI_OFI_POLL_EVERY polls. */
void shmemi_ofi_wait_watch(unsigned spins)
{
    static _Thread_local SHMEMI_OFI_TLS struct shmemi_ofi_stall st;

    if (spins == 1) /* a new wait */
        st.since_ms = 0;
    else if (spins % SHMEMI_OFI_POLL_EVERY)
        return;
    shmemi_ofi_stall_check(&st, 0, -1, shmemi_ofi_last_routine ? shmemi_ofi_last_routine : "shmem wait");
}

/* The job is over: the next one's rounds start afresh. */
void shmemi_ofi_liveness_reset(void)
{
    pthread_mutex_lock(&probe.lock);
    probe.active = probe.n = probe.next = 0;
    probe.done_ms = 0;
    pthread_mutex_unlock(&probe.lock);
}

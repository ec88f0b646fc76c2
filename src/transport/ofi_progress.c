/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_progress.c — progress and completion on the network path:
 * polling the endpoints' error queues (which drives a manual-progress
 * provider), waiting for a completion counter, quiet of an endpoint, and
 * the optional progress thread.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/cpu_relax.h"
#include "base/env.h"
#include "base/waiting.h"
#include "transport/ofi.h"

/* ---- progress and completion ---- */

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
    if (shmemi_gather_pe_of(err.op_context) >= 0)
        pe = shmemi_gather_pe_of(err.op_context);
    if (shmemi_ofi_probe_pe_of(err.op_context) >= 0) {
        /* A probe of a peer that is gone: the launcher is usually ending
         * the job already; if not, the timeout names the peer. */
        shmemi_ofi_probe_failed(err.op_context);
        /* Count it as done and clear the error, so that the read
         * counter's waits neither fail nor hang on it. */
        fi_cntr_add(e->r.cntr, 1);
        fi_cntr_seterr(e->r.cntr, 0);
        return;
    }
    if (pe >= 0 && pe < shmemi_world.n_pes)
        snprintf(peer, sizeof peer, " towards PE %d (host %s)", pe, shmemi_ofi_host(pe));
    shmemi_fatal(routine, "a libfabric operation%s failed (provider %s): %s (%s)", peer,
                 shmemi_ofi.info->fabric_attr->prov_name, fi_strerror(err.err),
                 fi_cq_strerror(e->cq, err.prov_errno, err.err_data, buf, sizeof buf));
}

/* Reading the queue is what drives a manual-progress provider. Only
 * errors, the liveness probes' reads and, on the default endpoint, the
 * sends and receives of gathered messages (ofi_gather.c) arrive here
 * (selective completion). Returns the entries read. */
ssize_t shmemi_ofi_ep_poll(struct shmemi_ofi_ep *e)
{
    struct fi_cq_entry ent[4];
    /* Gathered messages are applied in the order they arrive: where
     * threads may poll at once, one reads and applies at a time (the
     * others have nothing to do meanwhile). */
    int ordered = e == &shmemi_ofi.main && shmemi_gather.receiving && !shmemi_ofi.serial;
    ssize_t n;

    if (ordered && pthread_mutex_trylock(&shmemi_gather.rx_lock))
        return 0;
    n = fi_cq_read(e->cq, ent, 4);
    if (n == -FI_EAVAIL) {
        if (ordered)
            pthread_mutex_unlock(&shmemi_gather.rx_lock);
        cq_error(e, shmemi_ofi_last_routine ? shmemi_ofi_last_routine : "shmem (network progress)");
        return 1;
    }
    for (ssize_t i = 0; i < n; i++)
        if (!shmemi_gather_completed(ent[i].op_context))
            shmemi_ofi_probe_done(ent[i].op_context);
    /* Acknowledgements and receives a busy provider refused before. */
    if (e == &shmemi_ofi.main && (shmemi_gather.acks_owed || shmemi_gather.recvs_unposted))
        shmemi_gather_retry();
    if (ordered)
        pthread_mutex_unlock(&shmemi_gather.rx_lock);
    return n > 0 ? n : 0;
}

/* Set by every library-driven poll and post, cleared by the progress
 * thread: a PE already calling into the provider needs no help, and the
 * thread's wake-ups and provider locks would only slow it (on tcp, a
 * p + quiet took 44 us with the thread polling against 26 us without
 * it). A PE that only posts (pipelined AMOs, injected puts) counts too. */
int shmemi_ofi_polled;

/* Serialized calls (ofi.h): the lock, and this thread's nesting. */
int shmemi_ofi_serial_lock;
_Thread_local SHMEMI_OFI_TLS unsigned shmemi_ofi_serial_depth;

/* Held by the progress thread for one poll, or by another application
 * thread (a program that raised its thread level to MULTIPLE after the
 * domain was opened): spin briefly, then give the core away, as a PE
 * waiting for a peer does. */
void shmemi_ofi_serial_wait(void)
{
    unsigned spins = 0;

    do {
        while (__atomic_load_n(&shmemi_ofi_serial_lock, __ATOMIC_RELAXED)) {
            if (++spins % 64 == 0)
                shmemi_give_way(spins / 64);
            else
                shmemi_cpu_relax();
        }
    } while (__atomic_exchange_n(&shmemi_ofi_serial_lock, 1, __ATOMIC_ACQUIRE));
}

void shmemi_ofi_poll_all(void)
{
    shmemi_ofi_ep_poll(&shmemi_ofi.main);
    shmemi_ofi_ctx_progress();
}

void shmemi_ofi_progress(void)
{
    if (!shmemi_ofi.main.ep)
        return;
    shmemi_ofi_enter();
    shmemi_ofi_mark_polled();
    shmemi_ofi_poll_all();
    shmemi_ofi_leave();
}

/* Pauses between two polls of a flag wait where polls are spaced
 * (libfabric's shm: see shmemi_ofi_wait_step): about 0.7 us on the 2-vCPU
 * Xeon the figures come from (45 ns a pause); doubled for each poll in a
 * row that found a stream of the peers' writes, up to 2^4 times. */
#define SHMEMI_OFI_POLL_GAP 16
#define SHMEMI_OFI_POLL_GAP_DOUBLINGS 4

/* This thread's polls in a row that each applied two or more of the
 * peers' writes or non-fetching AMOs, and the remote-write count it
 * last read. */
static _Thread_local SHMEMI_OFI_TLS unsigned streamed_polls;
static _Thread_local SHMEMI_OFI_TLS uint64_t remote_writes_read;

static inline void pause_between_polls(void)
{
    unsigned d = streamed_polls < SHMEMI_OFI_POLL_GAP_DOUBLINGS ? streamed_polls : SHMEMI_OFI_POLL_GAP_DOUBLINGS;

    for (unsigned i = 0; i < (unsigned)SHMEMI_OFI_POLL_GAP << d; i++)
        shmemi_cpu_relax();
}

/* A spaced poll. Reading the remote-write counter progresses the default
 * endpoint as a poll of its queue does (its queue holds only errors and
 * this PE's own context completions, read on every POLL_EVERY-th turn),
 * and tells how many of the peers' writes it applied. */
static void spaced_poll(void)
{
    struct fid_cntr *rw = shmemi_ofi.remote_writes;
    uint64_t n;

    if (!rw) {
        shmemi_ofi_ep_poll(&shmemi_ofi.main);
        return;
    }
    n = fi_cntr_read(rw);
    streamed_polls = n - remote_writes_read >= 2 ? streamed_polls + 1 : 0;
    remote_writes_read = n;
}

void shmemi_ofi_wait_step(unsigned spins)
{
    if (!shmemi_ofi.main.ep)
        return;
    /* On shm a poll starts with a compare-and-swap on this PE's region
     * signal word, beside the lock that every initiator takes, and the
     * signal it sets, to queue an operation here: polled on every turn
     * of a wait loop, that line leaves the initiators' cores on every
     * poll, and a peer streaming adds to a PE in a barrier waited for it
     * (adds back to back 0.96 us; 0.69 us with this gap, quiet machine,
     * fetch-add and get 8 B a little faster too). So a flag wait
     * polls every other turn and pauses in between; the first turn of a
     * wait polls at once. While peers stream writes here the gap grows,
     * so that they queue batches between polls: a round trip (a fetching
     * AMO, or one write answered by a flag) is never a stream, and keeps
     * the short gap. */
    if (shmemi_ofi.spaced_polls && spins != ~0u) {
        if (spins == 1)
            streamed_polls = 0;
        else if (spins % 2) {
            pause_between_polls();
            return;
        }
    }
    /* Peers' operations arrive at the default endpoint; the others hold
     * only this PE's own operations, and their waits poll them. What
     * this PE gathered leaves first: the peer it waits for may be waiting
     * for it (a put, then a wait for the answer). */
    shmemi_ofi_enter();
    if (__builtin_expect(shmemi_gather.gathering != 0, 0))
        shmemi_gather_send_all(shmemi_ofi_last_routine ? shmemi_ofi_last_routine : "shmem_wait_until");
    if (spins != 1 && spins % SHMEMI_OFI_POLL_EVERY) {
        if (shmemi_ofi.spaced_polls)
            spaced_poll();
        else
            shmemi_ofi_ep_poll(&shmemi_ofi.main);
    } else {
        shmemi_ofi_progress();
        shmemi_ofi_wait_watch(spins);
    }
    shmemi_ofi_leave();
}

/* An unsatisfied shmem_test (or test_all/any/some) is a poll of the
 * program's own wait loop, and the progress thread may get no core while
 * that loop spins (seen under srun on a loaded machine: a new context's
 * connection to such a target was never accepted; docs/providers.md). So
 * it polls as one spin of a wait loop does, without the lost-peer watch
 * of a wait. */
void shmemi_ofi_test_step(void)
{
    static _Thread_local SHMEMI_OFI_TLS unsigned tests;

    if (!shmemi_ofi.main.ep)
        return;
    shmemi_ofi_enter();
    if (__builtin_expect(shmemi_gather.gathering != 0, 0))
        shmemi_gather_send_all("shmem_test");
    if (++tests % SHMEMI_OFI_POLL_EVERY) {
        shmemi_ofi_mark_polled();
        shmemi_ofi_ep_poll(&shmemi_ofi.main);
    } else {
        shmemi_ofi_progress();
    }
    shmemi_ofi_leave();
}

struct cntr_wait {
    const struct shmemi_ofi_ep *e;
    const struct shmemi_ofi_count *c;
    int pe, last_pe;
};

/* "for 3 operations on the network path to complete, to PE 2 (host b)",
 * with the PEs written since the last flush where they are tracked. */
static void describe_cntr_wait(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct cntr_wait *w = rec->what;
    uint64_t issued = __atomic_load_n(&w->c->issued, __ATOMIC_RELAXED);
    uint64_t seen = __atomic_load_n(&w->c->seen, __ATOMIC_RELAXED);
    int pe = w->pe >= 0 ? w->pe : w->last_pe;
    size_t n = (size_t)snprintf(buf, len, "for %llu operation%s on the network path to complete",
                                (unsigned long long)(issued - seen), issued - seen == 1 ? "" : "s");

    if (n < len && pe >= 0)
        n += (size_t)snprintf(buf + n, len - n, ", %s PE %d (host %s)", w->pe >= 0 ? "to" : "the last to", pe,
                              shmemi_ofi_host(pe));
    if (n >= len || !w->e->posted.dirty)
        return;
    /* Puts and AMOs posted since the last flush, peer by peer. */
    for (int q = 0, shown = 0; q < shmemi_world.n_pes && n < len; q++)
        if (__atomic_load_n(&w->e->posted.dirty[q >> 6], __ATOMIC_RELAXED) >> (q & 63) & 1)
            n += (size_t)snprintf(buf + n, len - n, shown++ ? ", %d" : "; written since the last flush: PE %d",
                                  q);
}

/* After an unsatisfied poll of a round trip's wait on shm, a pause as
 * long as that poll took (shmemi_ofi_round_trip_wait). */
static void pause_for(uint64_t ns)
{
    uint64_t until = shmemi_now_ns() + ns;

    while (shmemi_now_ns() < until)
        shmemi_cpu_relax();
}

/* Counter waits between two polls of the default endpoint's queue. */
#define SHMEMI_OFI_WAITS_PER_POLL 8
static _Thread_local SHMEMI_OFI_TLS unsigned waits_done;

/* `spaced`: polls are paced (shmemi_ofi_round_trip_wait). */
static void cntr_wait(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, uint64_t slack, int spaced, int pe,
                      const char *routine)
{
    unsigned spins = 0;
    struct shmemi_ofi_stall st = {0, 0, e};
    struct cntr_wait w = {e, c, pe, shmemi_ofi_last_pe};
    struct shmemi_waiting rec = {.routine = routine, .describe = describe_cntr_wait, .what = &w};

    for (;;) {
        /* Reading the counter drives the progress of the endpoint it
         * counts for: the tight part of the loop is that alone. */
        uint64_t done, polled_at = 0;

        if (__atomic_load_n(&c->seen, __ATOMIC_ACQUIRE) + slack >= __atomic_load_n(&c->issued, __ATOMIC_SEQ_CST))
            break;
        if (spaced)
            polled_at = shmemi_now_ns();
        done = fi_cntr_read(c->cntr); /* as shmemi_ofi_caught_up, keeping the value */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        shmemi_ofi_saw(c, done);
        if (done + slack >= __atomic_load_n(&c->issued, __ATOMIC_SEQ_CST))
            break;
        ++spins;
        if (spaced)
            pause_for(shmemi_now_ns() - polled_at);
        /* Peers' operations arrive at the default endpoint: serve them on
         * every poll while waiting on another, and every 4th while waiting
         * on it where peers' gathered messages arrive as completions there
         * (a peer's fetch from here may be waiting for them to be applied;
         * reading the counter already drives the provider). Errors, the
         * other endpoints and the liveness clock every POLL_EVERY-th poll. */
        if (e != &shmemi_ofi.main || (shmemi_gather.receiving && spins % 4 == 0))
            shmemi_ofi_ep_poll(&shmemi_ofi.main);
        if (spins % SHMEMI_OFI_POLL_EVERY == 0) {
            if (fi_cntr_readerr(c->cntr) > 0) {
                shmemi_ofi_last_pe = pe >= 0 ? pe : shmemi_ofi_last_pe;
                shmemi_ofi_ep_poll(e); /* reports the queued error entry (unless a probe's) */
                if (fi_cntr_readerr(c->cntr) > 0)
                    shmemi_ofi_fail(routine, pe >= 0 ? "a transfer" : "completing transfers", pe, -FI_EIO);
            }
            shmemi_ofi_progress();
            shmemi_ofi_stall_check(&st, done, pe, routine);
        }
        if (spins == 1)
            shmemi_wait_enter(&rec);
        if (shmemi_wait_yields(spins))
            shmemi_ofi_yield(spins);
    }
    if (spins)
        shmemi_wait_leave(&rec);
    /* A PE that only makes round trips, each done within a spin or two
     * (a lock's fetches in a loop), still applies its peers' gathered
     * messages, which arrive as completions of the default endpoint. */
    if (shmemi_gather.receiving && ++waits_done % SHMEMI_OFI_WAITS_PER_POLL == 0)
        shmemi_ofi_ep_poll(&shmemi_ofi.main);
}

void shmemi_ofi_cntr_wait_slack(struct shmemi_ofi_ep *e, struct shmemi_ofi_count *c, uint64_t slack, int pe,
                                const char *routine)
{
    cntr_wait(e, c, slack, 0, pe, routine);
}

/* The wait of a get or fetching AMO answered from the target's queue. On
 * shm a poll holds locks of this PE's region that a peer takes to queue
 * its operations here: two PEs each waiting on a round trip to the other,
 * polling back to back, kept each other's requests and answers out
 * (random 8-byte gets, every PE issuing, 2 PEs: 0.09-0.19 Mop/s a PE
 * where this host moves cache lines slowly, 0.28-0.34 paced). A pause as
 * long as the poll took leaves the region to the peer half the time, and
 * is short where polls are (docs/design.md, "Spaced polls on shm"). */
void shmemi_ofi_round_trip_wait(struct shmemi_ofi_ep *e, int pe, const char *routine)
{
    /* To itself a PE serves its own request: no peer to leave room for. */
    cntr_wait(e, &e->r, 0, shmemi_ofi.spaced_polls && pe != shmemi_world.my_pe, pe, routine);
}

void shmemi_ofi_quiet_ep(struct shmemi_ofi_ep *e, const char *routine)
{
    /* Gathered messages leave first and their acknowledgements are waited
     * for last: their round trip overlaps the writes' (a bucket put and
     * its count, quieted, cost one round trip, not two). */
    if (e == &shmemi_ofi.main && shmemi_gather.gathering)
        shmemi_gather_quiet_begin(routine);
    shmemi_ofi_quiet_writes(e, routine);
    if (e == &shmemi_ofi.main)
        shmemi_gather_quiet(routine);
}

void shmemi_ofi_quiet_writes(struct shmemi_ofi_ep *e, const char *routine)
{
    shmemi_ofi_posted_flush(e, routine);
    shmemi_ofi_cntr_wait(e, &e->w, -1, routine);
    shmemi_ofi_cntr_wait(e, &e->r, -1, routine);
}

/* ---- progress thread ---- */

/* PEs sharing a CPU beyond which the progress thread's nap while its PE
 * polls grows no longer (progress_main). */
#define SHMEMI_OFI_ASIDE_SHARERS_MAX 4

static pthread_t progress_tid;
static atomic_int progress_stop;
static int progress_running;

static void *progress_main(void *arg)
{
    /* Short naps while the PE computes (SHMEM_PROGRESS_INTERVAL, 0.1 ms):
     * peers are served within that, and an idle thread costs its core
     * little. While the PE polls by itself, stand aside and nap 1 ms (or
     * the interval, if longer), and 1 ms more for each further PE sharing
     * a CPU, up to SHMEMI_OFI_ASIDE_SHARERS_MAX: there every wake-up
     * preempts a PE, perhaps one holding a lock its peers then spin on,
     * while the PE, running a share of the time, takes over no sooner. */
    long serve_us = shmemi_settings.progress_interval_us, aside_us = serve_us > 1000 ? serve_us : 1000;
    int sharers = shmemi_world.pes_per_cpu < SHMEMI_OFI_ASIDE_SHARERS_MAX ? shmemi_world.pes_per_cpu
                                                                         : SHMEMI_OFI_ASIDE_SHARERS_MAX;
    long polling_us = aside_us + 1000L * (sharers > 1 ? sharers - 1 : 0);
    const struct timespec serve = {serve_us / 1000000, serve_us % 1000000 * 1000},
                          aside = {aside_us / 1000000, aside_us % 1000000 * 1000},
                          polling = {polling_us / 1000000, polling_us % 1000000 * 1000};
    unsigned turn = 0, looks = 0;
    int crowded = 0;
    (void)arg;
    while (!atomic_load_explicit(&progress_stop, memory_order_relaxed)) {
        /* Where every CPU has a runnable task besides this thread (its
         * look counts itself: more runnable tasks than CPUs), serve as
         * seldom as while standing aside: each wake-up preempts a task,
         * a computing PE too (docs/design.md, "Progress thread"). */
        if (turn++ % 8 == 0)
            crowded = shmemi_crowd_vote(&looks, shmemi_node_crowded(NULL, 0));
        if (__atomic_exchange_n(&shmemi_ofi_polled, 0, __ATOMIC_RELAXED)) {
            /* A PE that calls without reaching a completion point (it
             * polls a peer's word with fetching AMOs) still sends what it
             * gathered, once it gathers no more. (Its counter waits read
             * its queue now and then: cntr_wait.) */
            if (shmemi_gather.receiving && shmemi_ofi_try_enter()) {
                shmemi_gather_idle(); /* reads the buffers under the lock */
                shmemi_ofi_leave();
            }
            nanosleep(&polling, NULL);
            continue;
        }
        /* Not while the PE is in libfabric under FI_THREAD_DOMAIN: it
         * polls by itself then. */
        if (shmemi_ofi_try_enter()) {
            /* What a PE that stopped calling gathered leaves. */
            shmemi_gather_idle();
            shmemi_ofi_poll_all();
            shmemi_ofi_leave();
        }
        nanosleep(crowded ? &aside : &serve, NULL);
    }
    return NULL;
}

void shmemi_ofi_progress_thread_start(void)
{
    int want = shmemi_settings.progress_thread;

    if (want < 0)
        want = shmemi_ofi.manual_progress;
    if (!want)
        return;
    atomic_store(&progress_stop, 0);
    if (pthread_create(&progress_tid, NULL, progress_main, NULL) != 0) {
        shmemi_warn("shmem_init", "cannot start the progress thread; progress comes from library calls only");
        shmemi_gather.on = 0; /* nothing would send what a PE gathered and left */
        return;
    }
    progress_running = 1;
}

void shmemi_ofi_progress_thread_stop(void)
{
    if (!progress_running)
        return;
    atomic_store(&progress_stop, 1);
    pthread_join(progress_tid, NULL);
    progress_running = 0;
}

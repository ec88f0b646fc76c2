/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_gather.c — puts and non-fetching AMOs of the default
 * context gathered per target PE, sent as messages of Shoal's own, and
 * applied by the target in one pass (docs/design.md, "Gathering").
 *
 * On tcp every operation is a message, a system call on each side; a
 * program that adds to random PEs one element at a time paid that per
 * element. The memory model lets a put or non-fetching AMO wait until the
 * next quiet, fence, barrier, or an operation whose order needs it, so:
 *
 * What is held: per target PE, one send buffer of records (a put's place
 * and bytes, an AMO's place, operation, type and operand) of up to rxm's
 * eager limit, from a pool of SHMEMI_GATHER_SENDS; a PE that needs one
 * when none is free sends the fullest.
 *
 * When it leaves: when full; at quiet (fence and barriers quiet here);
 * before a get or fetching AMO to that PE (shmemi_gather_settle, which
 * also waits until the target says it applied everything sent there);
 * when the PE waits on its own memory or tests it (a put, then a wait for
 * the answer, must end); and from the progress thread once the PE has
 * gathered nothing for one of its turns (a PE that stopped calling).
 *
 * How the target applies it: a posted receive (SHMEMI_GATHER_RECVS of
 * them) completes on the default endpoint's queue, which every wait and
 * the progress thread poll; the records are applied in order, puts by
 * memcpy and AMOs by CPU atomics (shmemi_amo_cpu), then the target
 * acknowledges, with the count of that source's messages it has applied.
 * Quiet waits for those counts: a sent message is not yet applied, since
 * the provider places it in the buffer and the target applies it at its
 * next poll, and an acknowledgement is the only proof.
 *
 * One atomicity domain: only where the provider applies its own atomics
 * with CPU atomics at the target too (tcp;ofi_rxm: libfabric's software
 * atomics), so gathered AMOs and the provider's (fetching ones, other
 * contexts') are atomic with each other; and only for datatypes the
 * provider serves (others take the locked path for every operation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/waiting.h"
#include "memory/map.h"
#include "transport/ofi.h"

struct shmemi_gather shmemi_gather = {.rx_lock = PTHREAD_MUTEX_INITIALIZER};

enum { BUF_FREE, BUF_GATHERING, BUF_SENDING, BUF_POSTED, BUF_UNPOSTED };
enum { MSG_OPS = 1, MSG_ACK = 2 };
/* A message whose sender will wait for it (quiet, a get or fetching AMO
 * to the PE, room ahead): the target acknowledges it, with the count of
 * every message of that source it has applied. Others are acknowledged by
 * the next one asked: an acknowledgement is a send on the target's path
 * (in a put and wait round trip, the critical one). */
#define MSG_ACK_WANTED 0x100

/* A message: two header words (source PE and kind; bytes and sequence),
 * then records. A record is a head word and its payload: a put's bytes
 * rounded up to words, an AMO's operand in one word (at its start). */
#define HDR_WORDS 2
#define REC_OFF_BITS 44
#define REC_OFF_MASK ((UINT64_C(1) << REC_OFF_BITS) - 1)
#define REC_PUT 15 /* the op field of a put (enum shmemi_amo_op stays below) */
/* An add of a small constant, in its head word alone: arg is the size
 * (bit 13: 8 bytes, else 4) and a 13-bit signed operand. A histogram's
 * adds of 1 take half the bytes, so half the messages. */
#define REC_ADD_SMALL 14
#define REC_SMALL_MIN (-4096)
#define REC_SMALL_MAX 4095

static inline uint64_t rec_head(size_t off, int seg, unsigned op, unsigned arg)
{
    return (uint64_t)off | (uint64_t)seg << 44 | (uint64_t)op << 46 | (uint64_t)arg << 50;
}

static struct shmemi_gather_buf *buf_at(uint8_t idx)
{
    return &shmemi_gather.send[idx - 1];
}

/* ---- acknowledgements and receives ---- */

static int send_ack(int src)
{
    struct shmemi_gather *g = &shmemi_gather;
    uint64_t ack[HDR_WORDS] = {(uint64_t)(uint32_t)shmemi_world.my_pe | (uint64_t)MSG_ACK << 32,
                               (uint64_t)(HDR_WORDS * 8) | (uint64_t)__atomic_load_n(&g->applied[src],
                                                                                      __ATOMIC_RELAXED) << 32};
    ssize_t rc = fi_inject(shmemi_ofi.main.ep, ack, sizeof ack, shmemi_ofi_addr(src));

    if (rc == -FI_EAGAIN)
        return 0;
    if (rc)
        shmemi_ofi_fail("shmem (applying gathered operations)", "fi_inject", src, rc);
    return 1;
}

static void owe_ack(int src)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (!g->ack_owed[src]) {
        g->ack_owed[src] = 1;
        g->acks_owed++;
    }
}

static int post_recv(struct shmemi_gather_buf *b)
{
    struct iovec iov = {.iov_base = b->data, .iov_len = sizeof b->data};
    struct fi_msg msg = {.msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &b->fi_ctx};
    ssize_t rc = fi_recvmsg(shmemi_ofi.main.ep, &msg, FI_COMPLETION);

    if (rc == -FI_EAGAIN) {
        if (b->state != BUF_UNPOSTED)
            shmemi_gather.recvs_unposted++;
        b->state = BUF_UNPOSTED;
        return 0;
    }
    if (rc)
        shmemi_ofi_fail("shmem (network progress)", "fi_recvmsg", -1, rc);
    if (b->state == BUF_UNPOSTED)
        shmemi_gather.recvs_unposted--;
    b->state = BUF_POSTED;
    return 1;
}

void shmemi_gather_retry(void)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (g->recvs_unposted)
        for (int i = 0; i < SHMEMI_GATHER_RECVS; i++)
            if (g->recv[i].state == BUF_UNPOSTED && !post_recv(&g->recv[i]))
                break;
    if (g->acks_owed)
        for (int pe = 0; pe < shmemi_world.n_pes && g->acks_owed; pe++)
            if (g->ack_owed[pe]) {
                if (!send_ack(pe))
                    break;
                g->ack_owed[pe] = 0;
                g->acks_owed--;
            }
}

static SHMEMI_NORETURN void bad_record(int src, size_t off, int seg, size_t n)
{
    shmemi_fatal("shmem (applying gathered operations)",
                 "a message from PE %d names %zu bytes at offset %zu of segment %d, outside this PE's (%zu bytes)",
                 src, n, off, seg, seg < SHMEMI_SEG_COUNT ? shmemi_map.seg_size[seg] : 0);
}

/* The target's writes on behalf of a peer are remote writes, as the
 * provider's copies and atomics on incoming data are: the program orders
 * them with OpenSHMEM's calls (the peer's fence or quiet, its own wait or
 * barrier), which ThreadSanitizer cannot see, so they are left out of its
 * view as libfabric's are (.ci/tsan.supp): a copy it does not intercept,
 * and its ignore annotations around the AMOs. */
#ifdef __SANITIZE_THREAD__
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define REMOTE_WRITE __attribute__((no_sanitize_thread, noinline))
#define REMOTE_WRITES_BEGIN() \
    (AnnotateIgnoreReadsBegin(__FILE__, __LINE__), AnnotateIgnoreWritesBegin(__FILE__, __LINE__))
#define REMOTE_WRITES_END() \
    (AnnotateIgnoreWritesEnd(__FILE__, __LINE__), AnnotateIgnoreReadsEnd(__FILE__, __LINE__))
/* x86 only: its stores are ordered already, and TSan has no fences. */
#define ORDER_STORES() ((void)0)
static REMOTE_WRITE void remote_copy(void *dst, const void *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((volatile char *)dst)[i] = ((const char *)src)[i];
}
#else
#define REMOTE_WRITE
#define REMOTE_WRITES_BEGIN() ((void)0)
#define REMOTE_WRITES_END() ((void)0)
/* A put is seen after everything applied before it (a flag after its
 * data, fence's order): free on x86, a barrier where stores may pass. */
#define ORDER_STORES() __atomic_thread_fence(__ATOMIC_RELEASE)
#define remote_copy memcpy
#endif

/* Apply one message's records in order: puts by memcpy, AMOs by the same
 * CPU atomics a node-local AMO uses. */
static REMOTE_WRITE void apply(const uint64_t *msg, int src, size_t bytes)
{
    const uint64_t *w = msg + HDR_WORDS, *end = msg + bytes / sizeof(uint64_t);

    REMOTE_WRITES_BEGIN();
    while (w < end) {
        uint64_t h = *w++;
        size_t off = h & REC_OFF_MASK;
        int seg = (int)(h >> 44 & 3);
        unsigned op = (unsigned)(h >> 46 & 15), arg = (unsigned)(h >> 50);
        size_t n = op == REC_PUT ? arg : op == REC_ADD_SMALL ? (arg >> 13 ? 8 : 4) : SHMEMI_DT_SIZE(arg);
        char *p;

        if (seg >= SHMEMI_SEG_COUNT || off > shmemi_map.seg_size[seg] || n > shmemi_map.seg_size[seg] - off)
            bad_record(src, off, seg, n);
        p = (char *)shmemi_map.seg_base[seg] + off;
        if (op == REC_PUT) {
            ORDER_STORES();
            remote_copy(p, w, n);
            w += (n + 7) / 8;
        } else if (op == REC_ADD_SMALL) {
            int64_t v = (int64_t)(arg & 0x1fff) - (arg & 0x1000 ? 0x2000 : 0);

            if (n == 8)
                __atomic_fetch_add((uint64_t *)(void *)p, (uint64_t)v, __ATOMIC_SEQ_CST);
            else
                __atomic_fetch_add((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_SEQ_CST);
        } else {
            shmemi_amo_cpu((enum shmemi_amo_op)op, (int)arg, p, w, NULL, NULL);
            w++;
        }
    }
    REMOTE_WRITES_END();
}

/* Messages that came before one sent ahead of them, copied. */
struct held {
    struct held *next;
    int src, kind;
    uint32_t seq;
    size_t bytes;
    uint64_t data[];
};
static struct held *held_list;

static void hold(int src, int kind, uint32_t seq, const struct shmemi_gather_buf *b, size_t bytes)
{
    struct held *h = malloc(sizeof *h + bytes);

    if (!h)
        shmemi_fatal("shmem (applying gathered operations)", "out of memory (%zu bytes)", bytes);
    h->src = src;
    h->kind = kind;
    h->seq = seq;
    h->bytes = bytes;
    memcpy(h->data, b->data, bytes);
    h->next = held_list;
    held_list = h;
}

/* Returns whether one of them asked for an acknowledgement. */
static int apply_held(int src)
{
    struct shmemi_gather *g = &shmemi_gather;
    int asked = 0;

    for (struct held **p = &held_list; *p;) {
        struct held *h = *p;

        if (h->src != src || h->seq != g->applied[src] + 1) {
            p = &h->next;
            continue;
        }
        apply(h->data, src, h->bytes);
        __atomic_store_n(&g->applied[src], h->seq, __ATOMIC_RELEASE);
        asked |= h->kind & MSG_ACK_WANTED;
        *p = h->next;
        free(h);
        p = &held_list; /* the next one may be earlier in the list */
    }
    return asked;
}

static void received(struct shmemi_gather_buf *b)
{
    struct shmemi_gather *g = &shmemi_gather;
    int src = (int)(uint32_t)b->data[0], kind = (int)(b->data[0] >> 32);
    size_t bytes = (size_t)(uint32_t)b->data[1];
    uint32_t seq = (uint32_t)(b->data[1] >> 32);

    if (src < 0 || src >= shmemi_world.n_pes || bytes > sizeof b->data || bytes < HDR_WORDS * 8)
        shmemi_fatal("shmem (applying gathered operations)", "a malformed message (source %d, %zu bytes)", src,
                     bytes);
    if ((kind & 0xff) == MSG_ACK) {
        uint32_t had = __atomic_load_n(&g->acked[src], __ATOMIC_RELAXED);

        if ((int32_t)(seq - had) > 0) {
            __atomic_store_n(&g->acked[src], seq, __ATOMIC_RELEASE);
            __atomic_fetch_sub(&g->unacked, seq - had, __ATOMIC_RELEASE);
        }
    } else {
        /* Applied in the order sent. A provider need not complete
         * receives in that order (rxm did not for a message above its
         * eager limit, sent in segments), so one that comes early is
         * held, copied, until those before it are applied. A PE has at
         * most SHMEMI_GATHER_AHEAD unapplied messages out to a PE: held
         * copies stay few. (ep_poll reads and dispatches under rx_lock
         * where calls are not serialized.) */
        if (seq != g->applied[src] + 1)
            hold(src, kind, seq, b, bytes);
        else {
            int asked = kind & MSG_ACK_WANTED;

            apply(b->data, src, bytes);
            __atomic_store_n(&g->applied[src], seq, __ATOMIC_RELEASE);
            asked |= apply_held(src);
            if (asked && !send_ack(src))
                owe_ack(src);
        }
    }
    post_recv(b);
}

int shmemi_gather_completed(void *context)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct shmemi_gather_buf *b = context;

    if (g->recv && b >= g->recv && b < g->recv + SHMEMI_GATHER_RECVS) {
        received(b);
        return 1;
    }
    if (g->send && b >= g->send && b < g->send + SHMEMI_GATHER_SENDS) {
        __atomic_store_n(&b->state, BUF_FREE, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}

int shmemi_gather_pe_of(const void *context)
{
    const struct shmemi_gather *g = &shmemi_gather;
    const struct shmemi_gather_buf *b = context;

    if (g->send && b >= g->send && b < g->send + SHMEMI_GATHER_SENDS)
        return b->pe;
    return -1;
}

/* ---- waiting for the targets ---- */

struct gather_wait {
    int pe; /* -1: every PE */
};

/* "for gathered operations to be applied: 2 messages to PE 3 (host b)",
 * and what is still gathered here. */
static void describe(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct shmemi_gather *g = &shmemi_gather;
    const struct gather_wait *w = rec->what;
    size_t n = (size_t)snprintf(buf, len, "for gathered puts and AMOs to be applied:");
    int shown = 0;

    for (int q = 0; q < shmemi_world.n_pes && n < len && shown < 8; q++) {
        uint32_t out = g->sent[q] - __atomic_load_n(&g->acked[q], __ATOMIC_RELAXED);

        if ((w->pe >= 0 && q != w->pe) || !out)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s %u message%s to PE %d (host %s)", shown++ ? "," : "", out,
                              out == 1 ? "" : "s", q, shmemi_ofi_host(q));
    }
    if (n < len && g->gathering)
        snprintf(buf + n, len - n, "; %u buffer%s still gathering here", g->gathering, g->gathering == 1 ? "" : "s");
}

static int first_unacked(void)
{
    const struct shmemi_gather *g = &shmemi_gather;

    for (int q = 0; q < shmemi_world.n_pes; q++)
        if (g->sent[q] != __atomic_load_n(&g->acked[q], __ATOMIC_RELAXED))
            return q;
    return -1;
}

/* Poll until `done(arg)`: the default endpoint's queue on every turn
 * (the acknowledgements, the peers' messages), the rest now and then,
 * with the lost-peer watch and the hang report. */
static void wait_for(int (*done)(int), int pe, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct gather_wait w = {pe};
    struct shmemi_waiting rec = {.routine = routine, .describe = describe, .what = &w};
    struct shmemi_ofi_stall st = {0, 0, NULL};
    unsigned spins = 0;

    g->waiting++;
    while (!done(pe)) {
        shmemi_ofi_mark_polled();
        shmemi_ofi_ep_poll(&shmemi_ofi.main);
        if (done(pe))
            break;
        if (++spins % SHMEMI_OFI_POLL_EVERY == 0) {
            int who = pe >= 0 ? pe : first_unacked();

            shmemi_ofi_progress();
            shmemi_ofi_stall_check(&st, __atomic_load_n(&g->unacked, __ATOMIC_RELAXED) ^
                                            (who >= 0 ? (uint64_t)g->acked[who] << 32 : 0),
                                   who, routine);
        }
        if (spins == 1)
            shmemi_wait_enter(&rec);
        if (shmemi_wait_yields(spins))
            shmemi_ofi_yield(spins);
    }
    if (spins)
        shmemi_wait_leave(&rec);
    g->waiting--;
}

static int pe_applied(int pe)
{
    return shmemi_gather.sent[pe] == __atomic_load_n(&shmemi_gather.acked[pe], __ATOMIC_ACQUIRE);
}

static int room_ahead(int pe)
{
    return shmemi_gather.sent[pe] - __atomic_load_n(&shmemi_gather.acked[pe], __ATOMIC_ACQUIRE) <
           SHMEMI_GATHER_AHEAD;
}

static int all_applied(int pe)
{
    (void)pe;
    return __atomic_load_n(&shmemi_gather.unacked, __ATOMIC_ACQUIRE) == 0;
}

static int some_free(int pe)
{
    (void)pe;
    for (int i = 0; i < SHMEMI_GATHER_SENDS; i++)
        if (__atomic_load_n(&shmemi_gather.send[i].state, __ATOMIC_ACQUIRE) == BUF_FREE)
            return 1;
    return 0;
}

/* ---- sending ---- */

/* A buffer holding one record for a PE with nothing unapplied there
 * leaves as the provider's own write or AMO, as it would have without
 * gathering (a put posted or delivery-complete, an AMO windowed): a lone
 * put or AMO + quiet, or a put and then a wait for the answer, cost what
 * they did before (the target's provider answers, not its next poll and
 * a message back). Nothing of that PE is
 * in flight through messages, so order holds; the provider's AMOs are the
 * same CPU atomics. Returns 0 (and leaves b) when b holds more. */
static int send_lone(struct shmemi_gather_buf *b, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    int pe = b->pe;
    uint64_t h = b->data[HDR_WORDS], value[1];
    size_t off = h & REC_OFF_MASK, rec;
    int seg = (int)(h >> 44 & 3), dtype;
    unsigned op = (unsigned)(h >> 46 & 15), arg = (unsigned)(h >> 50);

    if (b->used <= HDR_WORDS * sizeof(uint64_t) || !pe_applied(pe))
        return 0;
    rec = op == REC_PUT ? sizeof(uint64_t) + (arg + 7) / 8 * 8 : op == REC_ADD_SMALL ? sizeof(uint64_t)
                                                                                    : 2 * sizeof(uint64_t);
    if (HDR_WORDS * sizeof(uint64_t) + rec != b->used || (op == REC_PUT && arg > shmemi_ofi.inject_size))
        return 0;
    if (g->buf_of[pe] == (uint8_t)(b - g->send + 1)) {
        g->buf_of[pe] = 0;
        g->gathering--;
    }
    b->state = BUF_FREE;
    if (op == REC_PUT) {
        shmemi_ofi_put_lone(pe, seg, off, &b->data[HDR_WORDS + 1], arg, routine);
        return 1;
    }
    if (op == REC_ADD_SMALL) {
        int64_t v = (int64_t)(arg & 0x1fff) - (arg & 0x1000 ? 0x2000 : 0);

        dtype = SHMEMI_DT(SHMEMI_DT_SINT, arg >> 13 ? 8 : 4);
        if (arg >> 13)
            memcpy(value, &v, 8);
        else {
            int32_t v32 = (int32_t)v;
            memcpy(value, &v32, 4);
        }
        op = SHMEMI_AMO_ADD;
    } else {
        dtype = (int)arg;
        value[0] = b->data[HDR_WORDS + 1];
    }
    shmemi_ofi_amo_lone(pe, seg, off, (enum shmemi_amo_op)op, dtype, value, routine);
    return 1;
}

/* Send b, which gathers for its PE. `may_wait`: wait for room (at most
 * SHMEMI_GATHER_AHEAD unapplied messages to a PE) and through a busy
 * provider; else (the progress thread) leave b gathering instead.
 * Returns whether it was sent. */
static int send_buf(struct shmemi_gather_buf *b, int may_wait, int want_ack, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct shmemi_ofi_ep *e = &shmemi_ofi.main;
    int pe = b->pe;
    struct iovec iov = {.iov_base = b->data, .iov_len = b->used};
    struct fi_msg msg = {.msg_iov = &iov, .iov_count = 1, .addr = shmemi_ofi_addr(pe), .context = &b->fi_ctx};

    if (!room_ahead(pe)) {
        if (!may_wait)
            return 0;
        wait_for(room_ahead, pe, routine);
        /* Another thread of the PE may have sent it meanwhile. */
        if (b->state != BUF_GATHERING || b->pe != pe)
            return 1;
    }
    /* Asked for when the sender will wait, and on every AHEAD / 2-th
     * message, so that room ahead always comes back. */
    if (g->sent[pe] + 1 - g->asked[pe] >= SHMEMI_GATHER_AHEAD / 2)
        want_ack = 1;
    b->data[0] = (uint64_t)(uint32_t)shmemi_world.my_pe |
                 (uint64_t)(MSG_OPS | (want_ack ? MSG_ACK_WANTED : 0)) << 32;
    b->data[1] = (uint64_t)b->used | (uint64_t)(g->sent[pe] + 1) << 32;
    if (may_wait) {
        g->waiting++;
        SHMEMI_OFI_RETRY(e, fi_sendmsg(e->ep, &msg, FI_COMPLETION), "fi_sendmsg", pe, routine);
        g->waiting--;
    } else {
        ssize_t rc = fi_sendmsg(e->ep, &msg, FI_COMPLETION);
        if (rc == -FI_EAGAIN)
            return 0;
        if (rc)
            shmemi_ofi_fail(routine, "fi_sendmsg", pe, rc);
    }
    /* Counted once posted: an acknowledgement may come at the next poll. */
    b->state = BUF_SENDING;
    if (g->buf_of[pe] == (uint8_t)(b - g->send + 1)) {
        g->buf_of[pe] = 0;
        g->gathering--;
    }
    g->sent[pe]++;
    if (want_ack)
        g->asked[pe] = g->sent[pe];
    __atomic_fetch_add(&g->unacked, 1, __ATOMIC_RELEASE);
    shmemi_ofi_mark_polled();
    /* Serve the peers' messages and acknowledgements as this one leaves:
     * a PE that only gathers would otherwise apply them only when it
     * waits, and its peers' room ahead would run out meanwhile. */
    shmemi_ofi_ep_poll(e);
    return 1;
}

/* A free send buffer: the fullest gathering one is sent first when none
 * is free, then the sends under way are waited for. */
static struct shmemi_gather_buf *free_buf(const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;

    for (;;) {
        struct shmemi_gather_buf *fullest = NULL;

        for (int i = 0; i < SHMEMI_GATHER_SENDS; i++) {
            struct shmemi_gather_buf *b = &g->send[i];
            int s = __atomic_load_n(&b->state, __ATOMIC_ACQUIRE);

            if (s == BUF_FREE)
                return b;
            if (s == BUF_GATHERING && (!fullest || b->used > fullest->used))
                fullest = b;
        }
        if (fullest)
            send_buf(fullest, 1, 0, routine);
        else
            wait_for(some_free, -1, routine);
    }
}

/* The buffer gathering for pe, with room for `need` more bytes. */
static uint64_t *room(int pe, size_t need, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct shmemi_gather_buf *b;
    uint64_t *at;

    if (g->buf_of[pe]) {
        b = buf_at(g->buf_of[pe]);
        if (b->used + need <= g->msg_bytes)
            goto found;
        send_buf(b, 1, 0, routine);
        if (g->buf_of[pe]) { /* another thread began a new one meanwhile */
            b = buf_at(g->buf_of[pe]);
            if (b->used + need <= g->msg_bytes)
                goto found;
        }
    }
    b = free_buf(routine);
    b->state = BUF_GATHERING;
    b->pe = pe;
    b->used = HDR_WORDS * sizeof(uint64_t);
    b->data[0] = (uint64_t)(uint32_t)shmemi_world.my_pe | (uint64_t)MSG_OPS << 32;
    g->buf_of[pe] = (uint8_t)(b - g->send + 1);
    g->gathering++;
found:
    at = (uint64_t *)((char *)b->data + b->used);
    b->used += need;
    g->touched = 1;
    return at;
}

void shmemi_gather_put(int pe, int seg, size_t off, const void *src, size_t n, const char *routine)
{
    uint64_t *at = room(pe, sizeof(uint64_t) + (n + 7) / 8 * 8, routine);

    at[0] = rec_head(off, seg, REC_PUT, (unsigned)n);
    at[(n + 7) / 8] = 0; /* the last word's padding: no stale bytes on the wire */
    memcpy(at + 1, src, n);
}

void shmemi_gather_amo(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                       const char *routine)
{
    uint64_t *at;

    if (op == SHMEMI_AMO_ADD && SHMEMI_DT_CLASS(dtype) != SHMEMI_DT_FLOAT) {
        int wide = SHMEMI_DT_SIZE(dtype) == 8;
        int64_t v = wide ? *(const int64_t *)value : *(const int32_t *)value;

        if (v >= REC_SMALL_MIN && v <= REC_SMALL_MAX) {
            at = room(pe, sizeof(uint64_t), routine);
            at[0] = rec_head(off, seg, REC_ADD_SMALL, (unsigned)wide << 13 | ((unsigned)v & 0x1fff));
            return;
        }
    }
    at = room(pe, 2 * sizeof(uint64_t), routine);

    at[0] = rec_head(off, seg, (unsigned)op, (unsigned)dtype);
    at[1] = 0;
    memcpy(&at[1], value, SHMEMI_DT_SIZE(dtype));
}

static void send_all(int want_ack, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;

    g->trips = 0;
    for (int i = 0; i < SHMEMI_GATHER_SENDS && g->gathering; i++)
        if (g->send[i].state == BUF_GATHERING && !send_lone(&g->send[i], routine))
            send_buf(&g->send[i], 1, want_ack, routine);
}

void shmemi_gather_send_all(const char *routine)
{
    send_all(0, routine);
}

void shmemi_gather_quiet_begin(const char *routine)
{
    if (shmemi_gather.gathering)
        send_all(1, routine);
}

/* The messages to pe are all sent: make sure the last one asked for an
 * acknowledgement, by an empty message that asks if it did not. */
static void ask_ack(int pe, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct shmemi_gather_buf *b;

    if (g->asked[pe] == g->sent[pe] || pe_applied(pe))
        return;
    b = free_buf(routine);
    b->state = BUF_GATHERING; /* not the PE's gathering buffer: sent at once */
    b->pe = pe;
    b->used = HDR_WORDS * sizeof(uint64_t);
    send_buf(b, 1, 1, routine);
}

void shmemi_gather_settle(int pe, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (g->buf_of[pe] && !send_lone(buf_at(g->buf_of[pe]), routine))
        send_buf(buf_at(g->buf_of[pe]), 1, 1, routine);
    ask_ack(pe, routine);
    if (!pe_applied(pe))
        wait_for(pe_applied, pe, routine);
}

void shmemi_gather_quiet(const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (!g->on)
        return;
    send_all(1, routine);
    if (!all_applied(-1)) {
        for (int pe = 0; pe < shmemi_world.n_pes; pe++)
            ask_ack(pe, routine);
        wait_for(all_applied, -1, routine);
    }
    g->fenced = 0;
}

/* Messages to one PE are applied in the order sent (one connection,
 * sends in order, applied in the order received), and records in a
 * message in order: a gathered operation after the fence follows those
 * before it without a wait. Only a write that is not gathered must wait
 * (shmemi_gather_before_direct_write). */
void shmemi_gather_fence(void)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (g->on && (g->gathering || __atomic_load_n(&g->unacked, __ATOMIC_ACQUIRE)))
        g->fenced = 1;
}

/* The progress thread, the lock held: send what the PE gathered only if
 * it gathered nothing since the thread's last turn (it stopped calling),
 * and never wait (a PE at its room ahead keeps its buffer). */
void shmemi_gather_idle(void)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (!g->on || !g->gathering || g->waiting)
        return;
    /* Gathering still: the PE is calling (sends stand at their turns). */
    if (g->touched) {
        g->touched = 0;
        return;
    }
    for (int i = 0; i < SHMEMI_GATHER_SENDS && g->gathering; i++)
        if (g->send[i].state == BUF_GATHERING)
            send_buf(&g->send[i], 0, 0, "shmem (progress thread)");
}

/* ---- set-up ---- */

void shmemi_gather_open(const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;
    struct shmemi_ofi *o = &shmemi_ofi;
    size_t n = (size_t)shmemi_world.n_pes;
    int progress = shmemi_settings.progress_thread < 0 ? o->manual_progress : shmemi_settings.progress_thread;

    g->on = g->receiving = 0;
    if (!o->gather_capable || shmemi_settings.ofi_gather == 0)
        return;
    /* Posted on every PE that could gather, so that a peer gathering
     * here is always received. */
    g->recv = calloc(SHMEMI_GATHER_RECVS, sizeof *g->recv);
    g->applied = calloc(n, sizeof *g->applied);
    g->ack_owed = calloc(n, 1);
    g->sent = calloc(n, sizeof *g->sent);
    g->asked = calloc(n, sizeof *g->asked);
    g->acked = calloc(n, sizeof *g->acked);
    if (!g->recv || !g->applied || !g->ack_owed || !g->sent || !g->asked || !g->acked)
        shmemi_fatal(routine, "out of memory (gathering)");
    for (int i = 0; i < SHMEMI_GATHER_RECVS; i++)
        if (!post_recv(&g->recv[i]))
            shmemi_fatal(routine, "cannot post the receives of gathered messages (provider %s)",
                         o->info->fabric_attr->prov_name);
    g->receiving = 1;
    /* Sending needs the one lock around calls (the buffers are not
     * shared otherwise) and the progress thread (what a PE that stopped
     * calling gathered must still leave). */
    if (!o->serial || !progress)
        return;
    g->send = calloc(SHMEMI_GATHER_SENDS, sizeof *g->send);
    g->buf_of = calloc(n, 1);
    if (!g->send || !g->buf_of)
        shmemi_fatal(routine, "out of memory (gathering)");
    {
        const char *rxm = getenv("FI_OFI_RXM_BUFFER_SIZE");
        long eager = rxm ? atol(rxm) : 0;

        g->msg_bytes = eager >= 512 && (size_t)eager < sizeof g->send->data ? (size_t)eager & ~(size_t)7
                                                                          : sizeof g->send->data;
    }
    g->put_max = shmemi_settings.ofi_gather_put;
    if (g->put_max > g->msg_bytes - (HDR_WORDS + 1) * sizeof(uint64_t))
        g->put_max = g->msg_bytes - (HDR_WORDS + 1) * sizeof(uint64_t);
    g->on = 1;
}

/* The endpoint is closed (or about to be, with nothing in flight). */
void shmemi_gather_close(void)
{
    struct shmemi_gather *g = &shmemi_gather;

    free(g->send);
    free(g->recv);
    free(g->buf_of);
    free(g->sent);
    free(g->asked);
    free(g->acked);
    free(g->applied);
    free(g->ack_owed);
    while (held_list) {
        struct held *h = held_list;
        held_list = h->next;
        free(h);
    }
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->rx_lock, NULL);
}

const char *shmemi_gather_summary(void)
{
    static char buf[160];
    const struct shmemi_gather *g = &shmemi_gather;

    if (g->on)
        snprintf(buf, sizeof buf,
                 "puts up to %zu B and non-fetching AMOs of the default context gathered per PE, %zu B a message",
                 g->put_max, g->msg_bytes);
    else
        snprintf(buf, sizeof buf, "no gathering%s", g->receiving ? " here (peers' gathered messages received)" : "");
    return buf;
}

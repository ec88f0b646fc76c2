/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/lock.c — distributed locks as a ticket lock on PE 0's copy of the
 * lock word: FIFO, so no PE starves. The word holds the next ticket in
 * its high half and the ticket being served in its low half (32 + 32 bits
 * for C's long, 16 + 16 for Fortran's INTEGER); 0 (both halves equal) is
 * "free", matching the required initial value. Halves wrap independently,
 * so a release never carries into "next".
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "comm/backoff.h"
#include "comm/lock.h"
#include "memory/addr.h"
#include "memory/describe.h"
#include "shmemi.h"
#include "transport/transport.h"

_Static_assert(sizeof(long) == 8, "the C ticket lock packs two 32-bit halves in a long");

#define LOCK_PE 0

struct lock_ref {
    int seg;
    size_t off;
    size_t size;      /* 4 or 8 */
    unsigned half;    /* bits per half */
    uint64_t low;     /* mask of the "serving" half */
    uint64_t word;    /* mask of the whole word */
    const char *routine;
};

static struct lock_ref lock_ref(void *lock, size_t size, const char *routine)
{
    struct lock_ref r = {.size = size, .half = (unsigned)size * 4, .routine = routine};

    shmemi_check_init(routine);
    r.low = ((uint64_t)1 << r.half) - 1;
    r.word = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << 32) - 1;
    r.seg = shmemi_sym_ref(routine, "lock", lock, size, &r.off);
    return r;
}

static uint64_t lock_amo(const struct lock_ref *r, enum shmemi_amo_op op, uint64_t value, uint64_t cond)
{
    int dtype = SHMEMI_DT(SHMEMI_DT_UINT, (int)r->size);

    if (r->size == 8) {
        uint64_t old = 0;
        shmemi_tp_amo(SHMEM_CTX_DEFAULT, LOCK_PE, r->seg, r->off, op, dtype, &value, &cond, &old, 0, r->routine);
        return old;
    }
    uint32_t v = (uint32_t)value, c = (uint32_t)cond, old = 0;
    shmemi_tp_amo(SHMEM_CTX_DEFAULT, LOCK_PE, r->seg, r->off, op, dtype, &v, &c, &old, 0, r->routine);
    return old;
}

struct lock_wait {
    const void *lock;
    uint64_t mine, serving; /* this PE's ticket, the one served when last read */
};

static void describe_lock_wait(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct lock_wait *w = rec->what;
    char var[200];

    shmemi_describe_addr(w->lock, var, sizeof var);
    snprintf(buf, len, "for the lock %s (its word on PE %d): this PE holds ticket %" PRIu64 ", ticket %" PRIu64
             " is served", var, LOCK_PE, w->mine, w->serving);
}

void shmemi_ticket_set(void *lock, size_t size, const char *routine)
{
    struct lock_ref r = lock_ref(lock, size, routine);
    struct lock_wait w = {lock, (lock_amo(&r, SHMEMI_AMO_ADD, (uint64_t)1 << r.half, 0) >> r.half) & r.low, 0};
    struct shmemi_waiting rec = {.routine = routine, .describe = describe_lock_wait, .what = &w};
    unsigned spins = 0;

    while ((w.serving = lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0) & r.low) != w.mine)
        shmemi_backoff(&rec, &spins);
    if (spins)
        shmemi_wait_leave(&rec);
}

void shmemi_ticket_clear(void *lock, size_t size, const char *routine)
{
    struct lock_ref r = lock_ref(lock, size, routine);
    uint64_t v;

    /* Writes made under the lock complete before the next holder enters. */
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    v = lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0);
    for (;;) { /* bump "serving" alone; retry when a new ticket raced us */
        uint64_t nv = (v & ~r.low) | ((v + 1) & r.low), seen = lock_amo(&r, SHMEMI_AMO_CSWAP, nv, v);
        if (seen == v)
            return;
        v = seen;
    }
}

int shmemi_ticket_test(void *lock, size_t size, const char *routine)
{
    struct lock_ref r = lock_ref(lock, size, routine);
    uint64_t v = lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0);

    if (((v >> r.half) & r.low) != (v & r.low))
        return 1; /* held, or others queued */
    /* Free: take the ticket being served, unless someone beats us to it. */
    return lock_amo(&r, SHMEMI_AMO_CSWAP, (v + ((uint64_t)1 << r.half)) & r.word, v) == v ? 0 : 1;
}

void shmemi_set_lock(long *lock)
{
    shmemi_ticket_set(lock, sizeof *lock, "shmem_set_lock");
}

void shmemi_clear_lock(long *lock)
{
    shmemi_ticket_clear(lock, sizeof *lock, "shmem_clear_lock");
}

int shmemi_test_lock(long *lock)
{
    return shmemi_ticket_test(lock, sizeof *lock, "shmem_test_lock");
}

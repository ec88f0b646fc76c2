/*
 * comm/lock.c — distributed locks as a ticket lock on PE 0's copy of the
 * lock word: FIFO, so no PE starves. The 64-bit word holds the next
 * ticket in its high half and the ticket being served in its low half;
 * 0 (both halves equal) is "free", matching the required initial value.
 * Halves wrap independently, so a release never carries into "next".
 */
#include <stdint.h>

#include "comm/backoff.h"
#include "memory/addr.h"
#include "runtime/api.h"
#include "transport/transport.h"

_Static_assert(sizeof(long) == 8, "the ticket lock packs two 32-bit halves in a long");

#define LOCK_PE 0
#define TICKET ((uint64_t)1 << 32)
#define DT_U64 SHMEMI_DT(SHMEMI_DT_UINT, 8)

struct lock_ref {
    const struct shmemi_transport *tp;
    int seg;
    size_t off;
    const char *routine;
};

static struct lock_ref lock_ref(long *lock, const char *routine)
{
    struct lock_ref r = {.routine = routine};

    shmemi_check_init(routine);
    r.seg = shmemi_sym_ref(routine, "lock", lock, sizeof *lock, &r.off);
    r.tp = shmemi_world.tp[LOCK_PE];
    return r;
}

static uint64_t lock_amo(const struct lock_ref *r, enum shmemi_amo_op op, uint64_t value, uint64_t cond)
{
    uint64_t old = 0;
    r->tp->amo(LOCK_PE, r->seg, r->off, op, DT_U64, &value, &cond, &old, r->routine);
    return old;
}

void shmemi_set_lock(long *lock)
{
    struct lock_ref r = lock_ref(lock, "shmem_set_lock");
    uint32_t mine = (uint32_t)(lock_amo(&r, SHMEMI_AMO_ADD, TICKET, 0) >> 32);
    unsigned spins = 0;

    while ((uint32_t)lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0) != mine)
        shmemi_backoff(&spins);
}

void shmemi_clear_lock(long *lock)
{
    struct lock_ref r = lock_ref(lock, "shmem_clear_lock");
    uint64_t v, nv;

    /* Writes made under the lock complete before the next holder enters. */
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    v = lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0);
    for (;;) { /* bump "serving"; retry when a new ticket raced us */
        uint64_t seen;
        nv = (v & ~(TICKET - 1)) | (uint32_t)(v + 1);
        seen = lock_amo(&r, SHMEMI_AMO_CSWAP, nv, v);
        if (seen == v)
            return;
        v = seen;
    }
}

int shmemi_test_lock(long *lock)
{
    struct lock_ref r = lock_ref(lock, "shmem_test_lock");
    uint64_t v = lock_amo(&r, SHMEMI_AMO_FETCH, 0, 0);

    if ((uint32_t)(v >> 32) != (uint32_t)v)
        return 1; /* held, or others queued */
    /* Free: take the ticket that is being served, if nobody beats us. */
    return lock_amo(&r, SHMEMI_AMO_CSWAP, v + TICKET, v) == v ? 0 : 1;
}

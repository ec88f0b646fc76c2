/*
 * fortran/lock.c — SHMEM_SET_LOCK, SHMEM_CLEAR_LOCK, SHMEM_TEST_LOCK for
 * Fortran. The spec makes a Fortran lock a default INTEGER (4 bytes with
 * gfortran's defaults), smaller than the C lock's long, so Fortran gets its
 * own ticket lock in the first 4 bytes of the lock variable: the next
 * ticket in the high 16 bits, the ticket being served in the low 16; 0 (both
 * equal) is free. FIFO, as the spec asks. An INTEGER*8 lock works too (its
 * first 4 bytes are used). The word lives on PE 0, like the C lock.
 */
#include "comm/backoff.h"
#include "shmemi_fortran.h"

#define LOCK_PE 0
#define TICKET ((uint32_t)1 << 16)
#define DT_U32 SHMEMI_DT(SHMEMI_DT_UINT, 4)

static uint32_t lock_amo(void *lock, enum shmemi_amo_op op, uint32_t value, uint32_t cond, const char *routine)
{
    uint32_t old = 0;

    shmemi_amo(SHMEM_CTX_DEFAULT, op, DT_U32, lock, &value, &cond, &old, LOCK_PE, routine);
    return old;
}

void shmemi_f_set_lock(void *lock)
{
    const char *routine = "SHMEM_SET_LOCK";
    uint16_t mine;
    unsigned spins = 0;

    shmemi_check_init(routine);
    mine = (uint16_t)(lock_amo(lock, SHMEMI_AMO_ADD, TICKET, 0, routine) >> 16);
    while ((uint16_t)lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, routine) != mine)
        shmemi_backoff(&spins);
}

void shmemi_f_clear_lock(void *lock)
{
    const char *routine = "SHMEM_CLEAR_LOCK";
    uint32_t v, seen;

    shmemi_check_init(routine);
    /* Writes made under the lock complete before the next holder enters. */
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    v = lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, routine);
    for (;;) { /* bump "serving" alone; retry when a new ticket raced us */
        uint32_t nv = (v & ~(TICKET - 1)) | (uint16_t)(v + 1);
        seen = lock_amo(lock, SHMEMI_AMO_CSWAP, nv, v, routine);
        if (seen == v)
            return;
        v = seen;
    }
}

shmemi_fint shmemi_f_test_lock(void *lock)
{
    const char *routine = "SHMEM_TEST_LOCK";
    uint32_t v;

    shmemi_check_init(routine);
    v = lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, routine);
    if ((uint16_t)(v >> 16) != (uint16_t)v)
        return 1; /* held, or others queued */
    /* Free: take the ticket being served, unless someone beats us to it. */
    return lock_amo(lock, SHMEMI_AMO_CSWAP, v + TICKET, v, routine) == v ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/wait.c — wait/test over sets of symmetric variables. Peers update
 * the variables with AMOs, so each element is read with an atomic
 * (acquire) load of its exact width: what the updater stored before its
 * update is visible once we see the update.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "comm/backoff.h"
#include "base/world.h"
#include "memory/describe.h"

/* Element i, widened to 64 bits with the sign extended for signed types. */
static uint64_t load_elem(const void *base, size_t i, int dtype)
{
    int sgn = SHMEMI_DT_CLASS(dtype) == SHMEMI_DT_SINT;

    switch (SHMEMI_DT_SIZE(dtype)) {
    case 1: {
        uint8_t v = __atomic_load_n((const uint8_t *)base + i, __ATOMIC_ACQUIRE);
        return sgn ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v = __atomic_load_n((const uint16_t *)base + i, __ATOMIC_ACQUIRE);
        return sgn ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = __atomic_load_n((const uint32_t *)base + i, __ATOMIC_ACQUIRE);
        return sgn ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default:
        return __atomic_load_n((const uint64_t *)base + i, __ATOMIC_ACQUIRE);
    }
}

/* Comparison values are private to the caller: plain reads. */
static uint64_t value_elem(const void *base, size_t i, int dtype)
{
    int sgn = SHMEMI_DT_CLASS(dtype) == SHMEMI_DT_SINT;

    switch (SHMEMI_DT_SIZE(dtype)) {
    case 1: return sgn ? (uint64_t)(int64_t)((const int8_t *)base)[i] : ((const uint8_t *)base)[i];
    case 2: return sgn ? (uint64_t)(int64_t)((const int16_t *)base)[i] : ((const uint16_t *)base)[i];
    case 4: return sgn ? (uint64_t)(int64_t)((const int32_t *)base)[i] : ((const uint32_t *)base)[i];
    default: return ((const uint64_t *)base)[i];
    }
}

static int compare(uint64_t a, uint64_t b, int sgn, int cmp)
{
    int lt = sgn ? (int64_t)a < (int64_t)b : a < b;

    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return !lt && a != b;
    case SHMEM_CMP_GE: return !lt;
    case SHMEM_CMP_LT: return lt;
    default: return lt || a == b; /* SHMEM_CMP_LE; cmp was checked */
    }
}

struct wait_args {
    int dtype, cmp, vector, sgn;
    const void *ivars, *values;
    const int *status;
    size_t n;
    enum shmemi_wait_mode mode;
};

static int eligible(const struct wait_args *w, size_t i)
{
    return !w->status || !w->status[i];
}

static int satisfied(const struct wait_args *w, size_t i)
{
    uint64_t v = value_elem(w->values, w->vector ? i : 0, w->dtype);
    return compare(load_elem(w->ivars, i, w->dtype), v, w->sgn, w->cmp);
}

/* One pass; returns the mode's result or SIZE_MAX/0 for "not yet". */
static size_t poll_all(const struct wait_args *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (eligible(w, i) && !satisfied(w, i))
            return 0;
    return 1;
}

/* Fairness of _any: a series of calls must eventually return every
 * satisfied index, so a scan starts just after the index the previous call
 * on the same array returned. Kept per thread for a few arrays at once
 * (slot by address; a collision only restarts that array's rotation). */
#define ANY_SLOTS 8
static _Thread_local struct {
    const void *ivars;
    size_t next;
} any_rotation[ANY_SLOTS];

static size_t poll_any(const struct wait_args *w, size_t n)
{
    unsigned slot = (unsigned)(((uintptr_t)w->ivars >> 4) % ANY_SLOTS);
    size_t start = any_rotation[slot].ivars == w->ivars ? any_rotation[slot].next % n : 0;

    for (size_t k = 0; k < n; k++) {
        size_t i = start + k < n ? start + k : start + k - n;

        if (eligible(w, i) && satisfied(w, i)) {
            any_rotation[slot].ivars = w->ivars;
            any_rotation[slot].next = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

/* _some returns every satisfied index in each call: fair by construction. */
static size_t poll_some(const struct wait_args *w, size_t n, size_t *indices)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (eligible(w, i) && satisfied(w, i))
            indices[k++] = i;
    return k;
}

static void value_text(char *buf, size_t len, uint64_t v, int sgn)
{
    if (sgn)
        snprintf(buf, len, "%" PRId64, (int64_t)v);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

/* The hang report's words for a wait: "for never_set == 1: it holds 0",
 * or for a set the first element that holds the wait up. */
static void describe_wait(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct wait_args *w = rec->what;
    size_t elem = SHMEMI_DT_SIZE(w->dtype), first = 0, pending = 0;
    char var[200], want[32], now[32];

    for (size_t i = 0; i < w->n; i++)
        if (eligible(w, i) && !satisfied(w, i) && !pending++)
            first = i;
    shmemi_describe_addr(w->ivars, var, sizeof var);
    value_text(want, sizeof want, value_elem(w->values, w->vector ? first : 0, w->dtype), w->sgn);
    value_text(now, sizeof now, load_elem(w->ivars, first, w->dtype), w->sgn);
    if (w->n == 1) {
        snprintf(buf, len, "for %s %s %s: it holds %s", var, shmemi_cmp_symbol(w->cmp), want, now);
        return;
    }
    snprintf(buf, len, "for %s of the %zu %zu-byte variables at %s to be %s %s%s: %zu not, element %zu holds %s",
             w->mode == SHMEMI_WAIT_ALL ? "all" : w->mode == SHMEMI_WAIT_ANY ? "any" : "some", w->n, elem, var,
             shmemi_cmp_symbol(w->cmp), want, w->vector ? " (element i: value i)" : "", pending, first, now);
}

size_t shmemi_wait_set(enum shmemi_wait_mode mode, int blocking, int dtype, void *ivars, size_t nelems,
                       size_t *indices, const int *status, int cmp, const void *values, int vector,
                       const char *routine)
{
    struct wait_args w = {dtype, cmp, vector, SHMEMI_DT_CLASS(dtype) == SHMEMI_DT_SINT, ivars, values, status,
                          nelems, mode};
    struct shmemi_waiting rec = {.routine = routine, .describe = describe_wait, .what = &w};
    size_t any_eligible = 0, r;
    unsigned spins = 0;

    shmemi_check_cmp(routine, cmp); /* a bad cmp would wait forever */
    if (SHMEMI_DT_CLASS(dtype) == SHMEMI_DT_FLOAT)
        shmemi_fatal(routine, "wait/test is not defined for floating-point types");
    for (size_t i = 0; i < nelems && !any_eligible; i++)
        any_eligible = eligible(&w, i);

    if (mode != SHMEMI_WAIT_ALL && !any_eligible)
        return mode == SHMEMI_WAIT_ANY ? SIZE_MAX : 0;
    for (;;) {
        int done;

        if (mode == SHMEMI_WAIT_ALL)
            done = (r = poll_all(&w, nelems)) != 0; /* empty set: 1 */
        else if (mode == SHMEMI_WAIT_ANY)
            done = (r = poll_any(&w, nelems)) != SIZE_MAX;
        else
            done = (r = poll_some(&w, nelems, indices)) != 0;
        if (done)
            break;
        if (!blocking) {
            /* A test that fails is a poll of the program's own wait loop:
             * it drives a manual-progress network path as our loops do
             * (the progress thread may get no core meanwhile). */
            if (shmemi_world.net_progress)
                shmemi_transport_test_step();
            return r;
        }
        shmemi_backoff(&rec, &spins);
    }
    if (spins)
        shmemi_wait_leave(&rec);
    return r;
}

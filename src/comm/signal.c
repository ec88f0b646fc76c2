/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm/signal.c — put-with-signal and signal operations (1.5, 1.6).
 * Signal updates go through the transport's AMO, so they are atomic with
 * AMOs and with each other on the same object (DESIGN §2: one atomicity
 * domain). The data of a put-with-signal is delivered before the signal:
 * a fence between the two orders them on every path.
 */
#include <inttypes.h>
#include <stdio.h>

#include "comm/backoff.h"
#include "comm/target.h"
#include "memory/addr.h"
#include "memory/describe.h"
#include "shmemi.h"
#include "transport/transport.h"

static void signal_update(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                          const char *routine)
{
    int wpe = shmemi_target_pe(ctx, pe, routine), seg;
    size_t off;

    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal(routine, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
    seg = shmemi_sym_ref(routine, "sig_addr", sig_addr, sizeof *sig_addr, &off);
    /* On the context's own path, so the context's fence orders it. */
    shmemi_tp_amo(ctx, wpe, seg, off, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                  SHMEMI_DT(SHMEMI_DT_UINT, 8), &signal, NULL, NULL, 0, routine);
}

void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                       uint64_t signal, int sig_op, int pe, int nbi, const char *routine)
{
    if (nbi)
        shmemi_put_nbi(ctx, dest, src, nbytes, pe, routine);
    else
        shmemi_put(ctx, dest, src, nbytes, pe, routine);
    shmemi_fence(ctx); /* the data lands before the signal */
    signal_update(ctx, sig_addr, signal, sig_op, pe, routine);
}

void shmemi_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update(ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, "shmem_signal_add");
}

void shmemi_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update(ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe, "shmem_signal_set");
}

uint64_t shmemi_signal_fetch(const uint64_t *sig_addr)
{
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

static int satisfied(uint64_t v, int cmp, uint64_t c)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == c;
    case SHMEM_CMP_NE: return v != c;
    case SHMEM_CMP_GT: return v > c;
    case SHMEM_CMP_GE: return v >= c;
    case SHMEM_CMP_LT: return v < c;
    default: return v <= c; /* SHMEM_CMP_LE; cmp was checked */
    }
}

struct signal_wait {
    const uint64_t *sig_addr;
    int cmp;
    uint64_t cmp_value;
};

static void describe_signal_wait(const struct shmemi_waiting *rec, char *buf, size_t len)
{
    const struct signal_wait *w = rec->what;
    char var[200];

    shmemi_describe_addr(w->sig_addr, var, sizeof var);
    snprintf(buf, len, "for the signal %s %s %" PRIu64 ": it holds %" PRIu64, var, shmemi_cmp_symbol(w->cmp),
             w->cmp_value, __atomic_load_n(w->sig_addr, __ATOMIC_ACQUIRE));
}

uint64_t shmemi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    struct signal_wait w = {sig_addr, cmp, cmp_value};
    struct shmemi_waiting rec = {.routine = "shmem_signal_wait_until", .describe = describe_signal_wait, .what = &w};
    unsigned spins = 0;
    uint64_t v;

    shmemi_check_init("shmem_signal_wait_until");
    shmemi_check_cmp("shmem_signal_wait_until", cmp);
    while (!satisfied(v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE), cmp, cmp_value))
        shmemi_backoff(&rec, &spins);
    if (spins)
        shmemi_wait_leave(&rec);
    return v;
}

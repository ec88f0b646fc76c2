/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/session.c — 1.6 sessions and per-PE quiet.
 *
 * Sessions are hints that a context is about to issue a run of
 * operations (SHMEM_CTX_SESSION_BATCH) and how many (total_ops). They
 * never change semantics, and no path batches yet, so start and stop
 * check the context and keep nothing.
 */
#include "shmemi.h"

void shmemi_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                              long config_mask)
{
    (void)options;
    (void)config;
    (void)config_mask;
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_check_ctx("shmem_ctx_session_start", ctx);
}

void shmemi_ctx_session_stop(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_check_ctx("shmem_ctx_session_stop", ctx);
}

/* Completion is tracked per context, not per PE, so quieting the listed
 * PEs is a quiet of the context (stronger, never weaker); the PEs are
 * still checked against the context's team. */
void shmemi_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    const char *routine = "shmem_pe_quiet";

    if (!npes)
        return;
    shmemi_check_ctx(routine, ctx);
    if (!target_pes)
        shmemi_fatal(routine, "target_pes is NULL with npes %zu", npes);
    for (size_t i = 0; i < npes; i++)
        shmemi_check_pe(routine, ctx, target_pes[i]);
    shmemi_quiet(ctx);
}

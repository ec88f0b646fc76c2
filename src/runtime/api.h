/*
 * runtime/api.h — the untyped entry points the generated bindings forward
 * to (shmem_X(args) -> shmemi_X(args); routines with a ctx variant take
 * the ctx first). Declared here so the core can call its own routines.
 */
#ifndef SHMEMI_API_H
#define SHMEMI_API_H

#include <stddef.h>
#include <stdint.h>

#include "shmemi.h"
/* The generator's list of the same entry points: including it makes the
 * compiler check that both agree. */
#if defined(__has_include)
#if __has_include("shmemi_forward.h")
#include "shmemi_forward.h"
#endif
#endif

void shmemi_init(void);
int shmemi_init_thread(int requested, int *provided);
void shmemi_query_thread(int *provided);
void shmemi_finalize(void);
void shmemi_query_initialized(int *initialized);
int shmemi_my_pe(void);
int shmemi_n_pes(void);
int shmemi_pe_accessible(int pe);
int shmemi_addr_accessible(const void *addr, int pe);
void *shmemi_ptr(const void *dest, int pe);
void shmemi_info_get_version(int *major, int *minor);
void shmemi_info_get_name(char *name);
SHMEMI_NORETURN void shmemi_global_exit(int status);
void shmemi_start_pes(int npes);
void shmemi_pcontrol(int level);

void *shmemi_malloc(size_t size);
void shmemi_free(void *ptr);
void *shmemi_realloc(void *ptr, size_t size);
void *shmemi_align(size_t alignment, size_t size);
void *shmemi_calloc(size_t count, size_t size);
void *shmemi_malloc_with_hints(size_t size, long hints);

int shmemi_ctx_create(long options, shmem_ctx_t *ctx);
void shmemi_ctx_destroy(shmem_ctx_t ctx);

void shmemi_fence(shmem_ctx_t ctx);
void shmemi_quiet(shmem_ctx_t ctx);

void shmemi_barrier_all(void);
void shmemi_sync_all(void);

/* teams (team/split.c) */
int shmemi_team_my_pe(shmem_team_t team);
int shmemi_team_n_pes(shmem_team_t team);
int shmemi_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmemi_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmemi_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmemi_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                         long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team);
void shmemi_team_destroy(shmem_team_t team);
int shmemi_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
int shmemi_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void *shmemi_team_ptr(shmem_team_t team, const void *dest, int pe);
int shmemi_team_sync(shmem_team_t team);

/* deprecated active-set synchronisation (coll/active.c) */
void shmemi_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmemi_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* signals (comm/signal.c) */
uint64_t shmemi_signal_fetch(const uint64_t *sig_addr);
uint64_t shmemi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
void shmemi_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmemi_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

/* 1.6 (ctx/session.c) */
void shmemi_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
void shmemi_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                              long config_mask);
void shmemi_ctx_session_stop(shmem_ctx_t ctx);

void shmemi_set_lock(long *lock);
void shmemi_clear_lock(long *lock);
int shmemi_test_lock(long *lock);

#endif /* SHMEMI_API_H */

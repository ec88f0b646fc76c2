/*
 * runtime/api.h — the untyped entry points the generated bindings forward
 * to (shmem_X(args) -> shmemi_X(args); routines with a ctx variant take
 * the ctx first). Declared here so the core can call its own routines.
 */
#ifndef SHMEMI_API_H
#define SHMEMI_API_H

#include <stddef.h>

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

void shmemi_set_lock(long *lock);
void shmemi_clear_lock(long *lock);
int shmemi_test_lock(long *lock);

#endif /* SHMEMI_API_H */

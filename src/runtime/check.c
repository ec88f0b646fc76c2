/*
 * runtime/check.c — argument checks the bindings call. The always-on ones
 * are a compare or two; the SHMEM_DEBUG ones may walk tables.
 */
#include "comm/target.h"
#include "memory/addr.h"

void shmemi_check_init(const char *routine)
{
    if (__builtin_expect(shmemi_world.init_count <= 0, 0))
        shmemi_fatal(routine, "called before shmem_init (or after the last shmem_finalize)");
}

void shmemi_fatal_pe(const char *routine, int pe, int size)
{
    /* Before init every team is empty: say what is really wrong. */
    shmemi_check_init(routine);
    shmemi_fatal(routine, "pe %d out of range [0, %d)", pe, size);
}

void shmemi_check_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        shmemi_fatal(routine, "ctx is SHMEM_CTX_INVALID");
    if (ctx->magic != SHMEMI_CTX_MAGIC)
        shmemi_fatal(routine, "ctx %p is not a live context (destroyed?)", (void *)ctx);
}

void shmemi_check_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmemi_team *t;

    shmemi_check_ctx(routine, ctx);
    t = ctx->team;
    if ((unsigned)pe >= (unsigned)t->size)
        shmemi_fatal_pe(routine, pe, t->size);
}

void shmemi_fatal_not_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    if (shmemi_sym_lookup(addr, 1, &off) >= 0)
        shmemi_fatal(routine, "%s %p is not a symmetric address (%zu bytes from it run past the end of "
                     "its symmetric segment)", arg, addr, len);
    shmemi_fatal(routine, "%s %p is not a symmetric address", arg, addr);
}

void shmemi_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    if (shmemi_sym_lookup(addr, len, &off) < 0)
        shmemi_fatal_not_symmetric(routine, arg, addr, len);
}

void shmemi_check_aligned(const char *routine, const char *arg, const void *addr, size_t align)
{
    if (align && (uintptr_t)addr % align)
        shmemi_fatal(routine, "%s %p is not aligned to %zu bytes", arg, addr, align);
}

void shmemi_check_cmp(const char *routine, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_fatal(routine, "cmp %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", cmp);
}

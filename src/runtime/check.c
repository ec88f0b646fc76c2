/*
 * runtime/check.c — argument checks the bindings call. The always-on ones
 * are a compare or two; the SHMEM_DEBUG ones may walk tables.
 */
#include <stdalign.h>

#include "comm/target.h"
#include "memory/addr.h"
#include "team/live.h"

/* Below this an address is surely not one of our objects: the first page
 * is never mapped, so a small integer cast to a handle lands here. */
#define SHMEMI_LOWEST_OBJECT 4096u

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

void shmemi_fatal_count(const char *routine, const char *arg, size_t count, size_t elem)
{
    if ((ptrdiff_t)count < 0)
        shmemi_fatal(routine, "%s %zu (%td as a signed value) is too large: a negative count?", arg, count,
                     (ptrdiff_t)count);
    shmemi_fatal(routine, "%s %zu is too large: %zu-byte elements overflow the address space", arg, count, elem);
}

void shmemi_fatal_null(const char *routine, const char *arg)
{
    shmemi_fatal(routine, "%s is NULL", arg);
}

/* A handle that cannot point to an object of `align` (0 included). */
static int implausible_handle(const void *h, size_t align)
{
    return (uintptr_t)h < SHMEMI_LOWEST_OBJECT || (uintptr_t)h % align;
}

static SHMEMI_NORETURN void fatal_bad_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        shmemi_fatal(routine, "ctx is SHMEM_CTX_INVALID");
    shmemi_fatal(routine, "ctx %p is not a live context (destroyed, or not a context handle)", (void *)ctx);
}

void shmemi_check_ctx(const char *routine, shmem_ctx_t ctx)
{
    /* SHMEM_CTX_INVALID (0) is an implausible handle too. */
    if (__builtin_expect(implausible_handle(ctx, alignof(struct shmemi_ctx)) || ctx->magic != SHMEMI_CTX_MAGIC, 0))
        fatal_bad_ctx(routine, ctx);
}

void shmemi_check_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmemi_team *t;

    shmemi_check_ctx(routine, ctx);
    t = ctx->team;
    if (__builtin_expect(t == NULL, 0)) /* a private context outlives its team (team/split.c) */
        shmemi_fatal(routine, "ctx %p belongs to a destroyed team", (void *)ctx);
    if ((unsigned)pe >= (unsigned)t->size)
        shmemi_fatal_pe(routine, pe, t->size);
}

void shmemi_check_team_or_invalid(const char *routine, const char *arg, shmem_team_t team)
{
    const struct shmemi_team *t = shmemi_team_of(team);

    if (team == SHMEM_TEAM_INVALID)
        return;
    /* Under SHMEM_DEBUG the live list decides before anything is read
     * through the handle; otherwise the magic word does. */
    if (implausible_handle(t, alignof(struct shmemi_team)) || (shmemi_debug_on() && !shmemi_team_is_live(t)) ||
        t->magic != SHMEMI_TEAM_MAGIC)
        shmemi_fatal(routine, "%s %p is not a live team (destroyed, or not a team handle)", arg, (void *)team);
}

void shmemi_check_team(const char *routine, const char *arg, shmem_team_t team)
{
    shmemi_check_init(routine);
    if (team == SHMEM_TEAM_INVALID)
        shmemi_fatal(routine, "%s is SHMEM_TEAM_INVALID", arg);
    shmemi_check_team_or_invalid(routine, arg, team);
}

void shmemi_fatal_not_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    if (!addr)
        shmemi_fatal(routine, "%s is NULL (a symmetric address is needed)", arg);
    if (shmemi_sym_lookup(addr, 1, &off) >= 0)
        shmemi_fatal(routine, "%s %p is not a symmetric address (%zu bytes from it run past the end of "
                     "its symmetric segment)", arg, addr, len);
    shmemi_fatal(routine, "%s %p is not a symmetric address", arg, addr);
}

void shmemi_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    size_t off;

    /* An empty range names no memory (nelems 0 with any pointer is allowed). */
    if (len && shmemi_sym_lookup(addr, len, &off) < 0)
        shmemi_fatal_not_symmetric(routine, arg, addr, len);
}

void shmemi_check_aligned(const char *routine, const char *arg, const void *addr, size_t align)
{
    if (align && (uintptr_t)addr % align)
        shmemi_fatal(routine, "%s %p is not aligned to %zu bytes", arg, addr, align);
}

void shmemi_check_array(const char *routine, const char *arg, const void *p, const char *count_arg, size_t count)
{
    if (!p && count)
        shmemi_fatal(routine, "%s is NULL with %s %zu", arg, count_arg, count);
}

void shmemi_check_cmp(const char *routine, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_fatal(routine, "cmp %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", cmp);
}

/* Before any data moves, so a bad call has no effect at the target. */
void shmemi_check_sig_op(const char *routine, int sig_op)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal(routine, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
}

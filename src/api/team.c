/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/team.c — team queries, splits, destruction, and team contexts.
 *
 * A split is collective over the parent. Besides deciding membership
 * (pure arithmetic, the same on every PE), it agrees on the offset of the
 * new team's sync block: the lowest pool range free on every parent PE
 * that joins a new team. Each PE proposes its first fit at or above the
 * candidate; the candidate becomes the largest proposal until all agree
 * (proposals only grow, so this ends; usually after one round).
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll/barrier.h"
#include "coll/group.h"
#include "ctx/ctx.h"
#include "base/world.h"
#include "team/live.h"
#include "team/pool.h"

/* ---- queries ---- */

int shmemi_team_my_pe(shmem_team_t team)
{
    return team ? shmemi_team_of(team)->my_pe : -1;
}

int shmemi_team_n_pes(shmem_team_t team)
{
    return team ? shmemi_team_of(team)->size : -1;
}

int shmemi_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    struct shmemi_team *t = shmemi_team_of(team);

    if (!t)
        return -1;
    if (!config_mask)
        return 0;
    if (!config)
        shmemi_fatal("shmem_team_get_config", "config is NULL with a nonzero config_mask");
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config_mask & SHMEM_TEAM_NUM_CONTEXTS ? t->config.num_contexts : 0;
    return 0;
}

/* Team rank of world PE w in t, or -1. */
static int rank_of_world(const struct shmemi_team *t, int w)
{
    if (t->world_pe) {
        for (int i = 0; i < t->size; i++)
            if (t->world_pe[i] == w)
                return i;
        return -1;
    }
    if (t->stride == 0)
        return w == t->start ? 0 : -1;
    if ((w - t->start) % t->stride)
        return -1;
    int i = (w - t->start) / t->stride;
    return i >= 0 && i < t->size ? i : -1;
}

int shmemi_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    const struct shmemi_team *s = shmemi_team_of(src_team), *d = shmemi_team_of(dest_team);

    if (!s || !d || src_pe < 0 || src_pe >= s->size)
        return -1;
    return rank_of_world(d, shmemi_team_world_pe(s, src_pe));
}

void *shmemi_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    const struct shmemi_team *t = shmemi_team_of(team);

    if (!t || pe < 0 || pe >= t->size)
        return NULL;
    return shmemi_ptr(dest, shmemi_team_world_pe(t, pe));
}

/* ---- agreement on a block offset ---- */

/* max over the parent of (a, b) pairs, through the parent's AUX word. */
static void allmax2(struct shmemi_group *g, uint64_t *a, uint64_t *b)
{
    size_t off = shmemi_grp_slot_off(g, shmemi_grp_aux(g, 0));
    uint64_t *mine = (uint64_t *)shmemi_grp_addr(g->seg, off), ra = *a, rb = *b, v[2];

    mine[0] = ra;
    mine[1] = rb;
    shmemi_grp_barrier(g);
    for (int i = 0; i < g->n; i++) {
        shmemi_grp_get(g, v, i, g->seg, off, sizeof v);
        ra = v[0] > ra ? v[0] : ra;
        rb = v[1] > rb ? v[1] : rb;
    }
    shmemi_grp_barrier(g); /* nobody rewrites AUX before all have read */
    *a = ra;
    *b = rb;
}

/* Offset free here and on every parent PE with `want`; NONE if there is none. */
static size_t agree_block(struct shmemi_team *parent, int want, size_t bytes, const char *routine)
{
    struct shmemi_group g;
    size_t cand = 0;

    shmemi_grp_team(&g, parent, routine);
    for (;;) {
        size_t mine = want ? shmemi_pool_first_fit(cand, bytes) : 0;
        uint64_t hi = want ? mine : 0, neg_lo = want ? ~(uint64_t)mine : 0;

        allmax2(&g, &hi, &neg_lo);
        if (neg_lo == 0)               /* nobody wants a block */
            return 0;
        if (hi == SHMEMI_POOL_NONE)
            return SHMEMI_POOL_NONE;
        if (hi == ~neg_lo)             /* max == min: free for all */
            return hi;
        cand = hi;
    }
}

/* ---- creation ---- */

struct team_spec {
    int member;
    int size, rank;     /* in the new team */
    int start, stride;  /* parent ranks start + i*stride */
    const shmem_team_config_t *config;
    long mask;
};

static struct shmemi_team *build(const struct shmemi_team *parent, const struct team_spec *sp, size_t block_off,
                                 size_t block_size)
{
    struct shmemi_team *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    *t = (struct shmemi_team){.magic = SHMEMI_TEAM_MAGIC, .size = sp->size, .my_pe = sp->rank,
                              .block_off = block_off, .block_size = block_size, .all_mapped = -1,
                              .config_mask = sp->mask};
    if (sp->config && (sp->mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = sp->config->num_contexts;
    if (!parent->world_pe) {
        t->start = parent->start + sp->start * parent->stride;
        t->stride = sp->size > 1 ? sp->stride * parent->stride : 1;
    } else {
        t->world_pe = malloc((size_t)sp->size * sizeof(int));
        if (!t->world_pe) {
            free(t);
            return NULL;
        }
        for (int i = 0; i < sp->size; i++)
            t->world_pe[i] = parent->world_pe[sp->start + i * sp->stride];
    }
    return t;
}

/* Collective over parent: every PE passes its own spec; block sized for
 * the largest new team (`max_size`). 0 on success everywhere, or nonzero
 * everywhere with *out = SHMEM_TEAM_INVALID. */
static int split_common(struct shmemi_team *parent, const struct team_spec *sp, int max_size, shmem_team_t *out,
                        const char *routine)
{
    size_t bytes = (size_t)shmemi_grp_team_slots(max_size) * SHMEMI_POOL_GRANULE, off;
    struct shmemi_team *t = NULL;
    int fail;

    off = agree_block(parent, sp->member, bytes, routine);
    fail = off == SHMEMI_POOL_NONE;
    if (!fail && sp->member) {
        t = build(parent, sp, off, bytes);
        /* Out of private memory here must fail everywhere alike. */
    }
    {
        struct shmemi_group g;
        uint64_t bad = fail || (sp->member && !t), zero = 0;

        if (!fail) {
            shmemi_grp_team(&g, parent, routine);
            allmax2(&g, &bad, &zero);
        }
        fail = (int)bad;
    }
    if (fail) {
        if (t) {
            t->magic = 0;
            free(t->world_pe);
            free(t);
        }
        if (off == SHMEMI_POOL_NONE && parent->my_pe == 0)
            shmemi_warn(routine, "the team pool is full; raise SHMEM_TEAM_POOL_SIZE (now %zu bytes)",
                        shmemi_team_pool_size());
        return 1;
    }
    if (t) {
        shmemi_pool_take(off, bytes);
        shmemi_team_add_live(t);
        *out = t;
    }
    return 0;
}

static struct shmemi_team *parent_of(shmem_team_t team, const char *routine)
{
    struct shmemi_team *p = shmemi_team_of(team);

    shmemi_check_init(routine);
    return p && p->my_pe >= 0 ? p : NULL;
}

/* The reason a triplet names no PEs of a parent of n, or NULL when it is
 * valid. The spec makes a bad triplet return nonzero, not end the job. */
static const char *bad_triplet(int start, int stride, int size, int n, char *why, size_t len)
{
    long last = start + (long)stride * (size - 1);

    if (size < 1)
        snprintf(why, len, "size %d is not positive", size);
    else if (start < 0 || start >= n)
        snprintf(why, len, "start %d is out of range [0, %d) of parent_team", start, n);
    else if (stride == 0 && size != 1)
        snprintf(why, len, "stride 0 needs size 1, not %d", size);
    else if (last < 0 || last >= n)
        snprintf(why, len, "start %d + stride %d * (size %d - 1) = %ld is out of range [0, %d) of parent_team",
                 start, stride, size, last, n);
    else
        return NULL;
    return why;
}

int shmemi_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    const char *routine = "shmem_team_split_strided";
    struct shmemi_team *p = parent_of(parent_team, routine);
    struct team_spec sp = {.start = start, .stride = stride, .size = size, .config = config, .mask = config_mask};
    char why[160];

    *new_team = SHMEM_TEAM_INVALID;
    if (!p)
        return 1;
    if (bad_triplet(start, stride, size, p->size, why, sizeof why)) {
        if (p->my_pe == 0) /* every PE decides alike: one line per job */
            shmemi_warn(routine, "%s; no team created", why);
        return 1;
    }
    if (stride == 0) {
        sp.member = p->my_pe == start;
        sp.rank = 0;
    } else if ((p->my_pe - start) % stride == 0) {
        sp.rank = (p->my_pe - start) / stride;
        sp.member = sp.rank >= 0 && sp.rank < size;
    }
    if (!sp.member)
        sp.rank = -1;
    return split_common(p, &sp, size, new_team, routine);
}

int shmemi_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                         long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *routine = "shmem_team_split_2d";
    struct shmemi_team *p = parent_of(parent_team, routine);
    struct team_spec xs, ys;
    int n, x, y, rows;

    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!p)
        return 1;
    if (xrange < 1) {
        if (p->my_pe == 0)
            shmemi_warn(routine, "xrange %d is not positive; no teams created", xrange);
        return 1;
    }
    n = p->size;
    if (xrange > n)
        xrange = n;
    x = p->my_pe % xrange;
    y = p->my_pe / xrange;
    rows = (n + xrange - 1) / xrange;
    /* Row y: parent ranks y*xrange .. (the last row may be short). */
    xs = (struct team_spec){.member = 1, .start = y * xrange, .stride = 1, .rank = x,
                            .size = n - y * xrange < xrange ? n - y * xrange : xrange,
                            .config = xaxis_config, .mask = xaxis_mask};
    /* Column x: parent ranks x, x + xrange, ... */
    ys = (struct team_spec){.member = 1, .start = x, .stride = xrange, .rank = y,
                            .size = (n - x + xrange - 1) / xrange, .config = yaxis_config, .mask = yaxis_mask};
    if (split_common(p, &xs, xrange, xaxis_team, routine))
        return 1;
    if (split_common(p, &ys, rows, yaxis_team, routine)) {
        /* Nobody has used the row team yet: drop it without communication. */
        shmemi_team_free_one(shmemi_team_of(*xaxis_team));
        *xaxis_team = SHMEM_TEAM_INVALID;
        return 1;
    }
    return 0;
}

/* ---- destruction ---- */

void shmemi_team_destroy(shmem_team_t team)
{
    const char *routine = "shmem_team_destroy";
    struct shmemi_team *t = shmemi_team_of(team);
    struct shmemi_ctx *c, *next;

    if (!t)
        return;
    shmemi_check_init(routine);
    if (t->predefined)
        shmemi_fatal(routine, "%s is predefined and cannot be destroyed",
                     t == &shmemi_team_world    ? "SHMEM_TEAM_WORLD"
                     : t == &shmemi_team_shared ? "SHMEM_TEAM_SHARED"
                                                : "SHMEMX_TEAM_NODE");
    /* Shareable contexts go with the team; private ones are the user's. */
    for (c = shmemi_team_take_ctxs(t); c; c = next) {
        next = c->team_next;
        c->team_next = NULL;
        if (!(c->options & SHMEM_CTX_PRIVATE)) {
            shmemi_ctx_retire(c);
        } else {
            c->team = NULL; /* its later shmem_ctx_destroy must not reach the freed team */
        }
    }
    /* After this barrier no member signals this block again, so it can be
     * zeroed for its next team. */
    shmemi_barrier_team(t, "shmem_team_destroy");
    shmemi_team_free_one(t);
}

/* ---- contexts on teams ---- */

int shmemi_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    const char *routine = "shmem_team_create_ctx";
    struct shmemi_team *t = shmemi_team_of(team);
    int rc;

    *ctx = SHMEM_CTX_INVALID;
    if (!t || t->my_pe < 0)
        return 1;
    rc = shmemi_ctx_new(t, options, ctx, routine);
    if (rc == 0)
        shmemi_team_add_ctx(t, *ctx);
    return rc;
}

int shmemi_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    shmemi_check_ctx("shmem_ctx_get_team", ctx);
    *team = ctx->team;
    return 0;
}

int shmemi_team_sync(shmem_team_t team)
{
    struct shmemi_team *t = shmemi_team_of(team); /* checked live by the binding */

    if (t->my_pe < 0)
        shmemi_fatal("shmem_team_sync", "this PE (%d) is not a member of team %p", shmemi_world.my_pe,
                     (void *)team);
    shmemi_barrier_team(t, "shmem_team_sync");
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/coll.h — the algorithms behind the team and active-set entry
 * points. Buffers are symmetric (segment, offset) pairs, the same on
 * every member; the entry points (api/team_coll.c, coll/active.c) check
 * and translate the user's pointers (shmemi_buf_sym).
 */
#ifndef SHMEMI_COLL_H
#define SHMEMI_COLL_H

#include <stddef.h>

#include "coll/group.h"
#include "memory/addr.h"

struct shmemi_buf {
    int seg;
    size_t off;
};

static inline char *shmemi_buf_addr(struct shmemi_buf b)
{
    return shmemi_grp_addr(b.seg, b.off);
}

/* The user's buffer [p, p+len) as (seg, off); fatal, naming `arg`, when
 * it is not symmetric. An empty range names no memory: {0, 0}. */
static inline struct shmemi_buf shmemi_buf_sym(const char *routine, const char *arg, const void *p, size_t len)
{
    struct shmemi_buf b = {0, 0};

    if (len)
        b.seg = shmemi_sym_ref(routine, arg, p, len, &b.off);
    return b;
}

/* A collect's dest, whose extent is known only after the sizes are
 * exchanged: check where it starts (unless empty with p NULL); the
 * copies check the rest. */
static inline struct shmemi_buf shmemi_buf_start(const char *routine, const char *arg, const void *p,
                                                 size_t nbytes)
{
    return shmemi_buf_sym(routine, arg, p, p || nbytes ? 1 : 0);
}

/* Bytes spanned by `count` elements of `elem` bytes, `stride` elements apart. */
static inline size_t shmemi_strided_extent(size_t count, ptrdiff_t stride, size_t elem)
{
    return count ? (count - 1) * (size_t)stride * elem + elem : 0;
}

/* root_writes: the 1.5 team broadcast writes dest on the root too; the
 * 1.4 active-set form does not. Returns 1 when it pushed (bcast.c): a
 * member may return before the members below it have entered. */
int shmemi_coll_broadcast(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                          int root, int root_writes);
/* sizes: NULL for fcollect (every block nbytes). */
void shmemi_coll_collect(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, size_t nbytes,
                         int fixed);
/* Block k for rank j: at src + (j*nelems + k) * sst * elem on the sender,
 * dest + (i*nelems + k) * dst * elem on receiver j (i the sender). */
void shmemi_coll_alltoalls(struct shmemi_group *g, struct shmemi_buf dest, struct shmemi_buf src, ptrdiff_t dst,
                           ptrdiff_t sst, size_t elem, size_t nelems);
/* wrk: the 1.4 forms' pWrk, wrk_bytes long (0 for the team forms); a
 * small reduction pushes partials into it (reduce.c). */
void shmemi_coll_reduce(struct shmemi_group *g, enum shmemi_reduce_op op, int dtype, struct shmemi_buf dest,
                        struct shmemi_buf src, size_t count, struct shmemi_buf wrk, size_t wrk_bytes);
void shmemi_coll_scan(struct shmemi_group *g, int exclusive, int dtype, struct shmemi_buf dest,
                      struct shmemi_buf src, size_t count);

/* reduce_ops.c: acc[i] = acc[i] op in[i]; fatal for an op the type lacks. */
typedef void (*shmemi_combine_fn)(void *acc, const void *in, size_t count);
shmemi_combine_fn shmemi_combine_for(enum shmemi_reduce_op op, int dtype, const char *routine);

#endif /* SHMEMI_COLL_H */

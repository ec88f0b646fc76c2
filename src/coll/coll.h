/*
 * coll/coll.h — the algorithms behind the team and active-set entry
 * points. Buffers are symmetric (segment, offset) pairs, the same on
 * every member; the entry points (coll/team_coll.c, coll/active.c) check
 * and translate the user's pointers.
 */
#ifndef SHMEMI_COLL_H
#define SHMEMI_COLL_H

#include <stddef.h>

#include "coll/group.h"

struct shmemi_buf {
    int seg;
    size_t off;
};

static inline char *shmemi_buf_addr(struct shmemi_buf b)
{
    return shmemi_grp_addr(b.seg, b.off);
}

static inline struct shmemi_buf shmemi_buf_at(struct shmemi_buf b, size_t delta)
{
    return (struct shmemi_buf){b.seg, b.off + delta};
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

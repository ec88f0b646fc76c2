/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/team_coll.c — the team collectives' entry points (1.5/1.6): check
 * the team and the buffers, then run the algorithm over the team's group.
 * The bindings have refused SHMEM_TEAM_INVALID and handles that are not
 * live teams (team/check.c); the spec leaves both undefined, as it does
 * a call by a PE outside the team, which is fatal here too. Returns 0.
 */
#include "coll/coll.h"

static struct shmemi_team *team_arg(shmem_team_t team, const char *routine)
{
    struct shmemi_team *t = shmemi_team_of(team);

    if (t->my_pe < 0)
        shmemi_fatal(routine, "this PE (%d) is not a member of team %p", shmemi_world.my_pe, (void *)team);
    return t;
}

int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root, const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;

    if (root < 0 || root >= t->size)
        shmemi_fatal(routine, "PE_root %d out of range [0, %d)", root, t->size);
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_broadcast(&g, shmemi_buf_sym(routine, "dest", dest, nbytes),
                          shmemi_buf_sym(routine, "source", src, nbytes), nbytes, root, 1);
    return 0;
}

static int collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, int fixed, const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;
    struct shmemi_buf d = shmemi_buf_start(routine, "dest", dest, nbytes);

    shmemi_grp_team(&g, t, routine);
    shmemi_coll_collect(&g, d, shmemi_buf_sym(routine, "source", src, nbytes), nbytes, fixed);
    return 0;
}

int shmemi_collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine)
{
    return collect(team, dest, src, nbytes, 0, routine);
}

int shmemi_fcollect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine)
{
    return collect(team, dest, src, nbytes, 1, routine);
}

int shmemi_alltoall(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *routine)
{
    return shmemi_alltoalls(team, dest, src, 1, 1, nbytes ? nbytes : 1, nbytes ? 1 : 0, routine);
}

int shmemi_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                     size_t nelems, const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;
    size_t total;

    if (dst < 1 || sst < 1)
        shmemi_fatal(routine, "strides must be >= 1 (dst %td, sst %td)", dst, sst);
    total = nelems * (size_t)t->size;
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_alltoalls(&g, shmemi_buf_sym(routine, "dest", dest, shmemi_strided_extent(total, dst, elem)),
                          shmemi_buf_sym(routine, "source", src, shmemi_strided_extent(total, sst, elem)), dst, sst,
                          elem, nelems);
    return 0;
}

int shmemi_reduce(shmem_team_t team, enum shmemi_reduce_op op, int dtype, void *dest, const void *src, size_t count,
                  const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;
    size_t bytes = count * SHMEMI_DT_SIZE(dtype);

    shmemi_combine_for(op, dtype, routine); /* a bad pair fails before any communication */
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_reduce(&g, op, dtype, shmemi_buf_sym(routine, "dest", dest, bytes),
                       shmemi_buf_sym(routine, "source", src, bytes), count, (struct shmemi_buf){0, 0}, 0);
    return 0;
}

int shmemi_scan(shmem_team_t team, int exclusive, int dtype, void *dest, const void *src, size_t count,
                const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;
    size_t bytes = count * SHMEMI_DT_SIZE(dtype);

    shmemi_combine_for(SHMEMI_OP_SUM, dtype, routine);
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_scan(&g, exclusive, dtype, shmemi_buf_sym(routine, "dest", dest, bytes),
                     shmemi_buf_sym(routine, "source", src, bytes), count);
    return 0;
}

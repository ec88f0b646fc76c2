/*
 * coll/team_coll.c — the team collectives' entry points (1.5/1.6): check
 * the team and the buffers, then run the algorithm over the team's group.
 * The bindings have refused SHMEM_TEAM_INVALID and handles that are not
 * live teams (runtime/check.c); the spec leaves both undefined, as it does
 * a call by a PE outside the team, which is fatal here too. Returns 0.
 */
#include "coll/coll.h"
#include "memory/addr.h"

static struct shmemi_team *team_arg(shmem_team_t team, const char *routine)
{
    struct shmemi_team *t = shmemi_team_of(team);

    if (t->my_pe < 0)
        shmemi_fatal(routine, "this PE (%d) is not a member of team %p", shmemi_world.my_pe, (void *)team);
    return t;
}

static struct shmemi_buf sym(const char *routine, const char *arg, const void *p, size_t len)
{
    struct shmemi_buf b = {0, 0};

    if (len)
        b.seg = shmemi_sym_ref(routine, arg, p, len, &b.off);
    return b;
}

int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root, const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;

    if (root < 0 || root >= t->size)
        shmemi_fatal(routine, "PE_root %d out of range [0, %d)", root, t->size);
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_broadcast(&g, sym(routine, "dest", dest, nbytes), sym(routine, "source", src, nbytes), nbytes, root,
                          1);
    return 0;
}

static int collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, int fixed, const char *routine)
{
    struct shmemi_team *t = team_arg(team, routine);
    struct shmemi_group g;
    struct shmemi_buf d;
    size_t off;

    /* dest's extent is known only after the sizes are exchanged: check
     * that it starts in a symmetric segment; the copies check the rest. */
    d = (struct shmemi_buf){0, 0};
    if (dest || nbytes) {
        d.seg = shmemi_sym_ref(routine, "dest", dest, 1, &off);
        d.off = off;
    }
    shmemi_grp_team(&g, t, routine);
    shmemi_coll_collect(&g, d, sym(routine, "source", src, nbytes), nbytes, fixed);
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

/* Extent in bytes of `count` elements `stride` apart. */
static size_t extent(size_t count, ptrdiff_t stride, size_t elem)
{
    return count ? (count - 1) * (size_t)stride * elem + elem : 0;
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
    shmemi_coll_alltoalls(&g, sym(routine, "dest", dest, extent(total, dst, elem)),
                          sym(routine, "source", src, extent(total, sst, elem)), dst, sst, elem, nelems);
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
    shmemi_coll_reduce(&g, op, dtype, sym(routine, "dest", dest, bytes), sym(routine, "source", src, bytes), count,
                       (struct shmemi_buf){0, 0}, 0);
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
    shmemi_coll_scan(&g, exclusive, dtype, sym(routine, "dest", dest, bytes), sym(routine, "source", src, bytes),
                     count);
    return 0;
}

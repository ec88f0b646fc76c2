/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/tree.h — k-nomial trees over group ranks, rooted anywhere. In rank
 * terms relative to the root, a node's parent clears its lowest nonzero
 * base-K digit (digit d at position p: parent = rel - d*K^p), and its
 * children are rel + j*K^r for every r below p (every r for the root),
 * j = 1..K-1, while < n. The slot a parent signals on a child is DOWN(r, j)
 * and a child on its parent UP(r, j): each has one writer whatever the
 * root, as group.h requires.
 */
#ifndef SHMEMI_TREE_H
#define SHMEMI_TREE_H

#include "coll/group.h"

struct shmemi_tree {
    int rel;          /* rank relative to the root */
    int parent;       /* group rank, -1 at the root */
    int up_r, up_j;   /* this node's position under its parent */
    int top;          /* children use positions r < top */
};

static inline void shmemi_tree_of(const struct shmemi_group *g, int root, struct shmemi_tree *tr)
{
    int K = g->radix, rel = (g->me - root + g->n) % g->n, p = 0;
    long kp = 1;

    tr->rel = rel;
    tr->parent = -1;
    tr->top = g->kdigits;
    if (!rel)
        return;
    while ((rel / kp) % K == 0) {
        kp *= K;
        p++;
    }
    tr->up_r = p;
    tr->up_j = (int)((rel / kp) % K);
    tr->top = p;
    tr->parent = (int)((g->me - tr->up_j * kp % g->n + g->n) % g->n);
}

/* Visit each child: f(rank, r, j). */
#define SHMEMI_TREE_CHILDREN(g, tr, rank, r, j)                                                   \
    for (long shmemi_kp_ = 1, r = 0; r < (tr)->top; r++, shmemi_kp_ *= (g)->radix)                \
        for (int j = 1, rank; j < (g)->radix && (tr)->rel + j * shmemi_kp_ < (g)->n &&            \
                              ((rank = (int)(((g)->me + j * shmemi_kp_) % (g)->n)), 1);            \
             j++)

#endif /* SHMEMI_TREE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/algo.h — names of the collective algorithms. The values index the
 * name list of base/env.c, where SHMEM_*_ALGORITHM are parsed; 0 is
 * "auto" (chosen per call from size and team shape).
 */
#ifndef SHMEMI_ALGO_H
#define SHMEMI_ALGO_H

enum shmemi_alg {
    SHMEMI_ALG_AUTO,
    SHMEMI_ALG_DISSEMINATION,
    SHMEMI_ALG_TREE,
    SHMEMI_ALG_KNOMIAL,
    SHMEMI_ALG_PIPELINED,
    SHMEMI_ALG_DIRECT,
    SHMEMI_ALG_RING,
    SHMEMI_ALG_PAIRWISE,
    SHMEMI_ALG_PUSH,
    SHMEMI_ALG_RECURSIVE_DOUBLING,
    SHMEMI_ALG_REDUCE_SCATTER,
    SHMEMI_ALG_LINEAR,
    SHMEMI_ALG_CENTRAL,
};

/* Default thresholds of the auto choices (bytes). */
#define SHMEMI_BCAST_PIPELINE_MIN ((size_t)512 << 10) /* pipelined chain from here */
#define SHMEMI_BCAST_CHUNK ((size_t)64 << 10)         /* its chunk */
#define SHMEMI_BCAST_PUSH_MAX ((size_t)64 << 10)      /* pushed broadcast (every member mapped) up to here */
#define SHMEMI_BCAST_FLAT_MAX 8                       /* ... from the root alone, groups up to here (PEs) */
#define SHMEMI_COLLECT_RING_MIN ((size_t)64 << 10)    /* ring when peers are not mapped */
#define SHMEMI_REDUCE_RD_MAX ((size_t)8 << 10)        /* recursive doubling up to here */
#define SHMEMI_REDUCE_RD_MAX_OVERSUB ((size_t)64 << 10) /* ... when PEs outnumber cores */
#define SHMEMI_BARRIER_DIRECT_MAX 8                   /* direct barrier of teams up to here (PEs) */
#define SHMEMI_TREE_RADIX 4                           /* k of the k-nomial trees */

#endif /* SHMEMI_ALGO_H */

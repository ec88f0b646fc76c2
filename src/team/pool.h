/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/pool.h — the team pool: symmetric space for teams' sync blocks
 * after the control region (SHMEMI_SEG_CTRL), managed per PE by a bitmap of 64-byte
 * granules. Members of a new team agree on a range free on all of them
 * (api/team.c), so a block sits at the same offset on every member
 * while PEs outside the team may use that range for other teams.
 */
#ifndef SHMEMI_POOL_H
#define SHMEMI_POOL_H

#include <stddef.h>

#define SHMEMI_POOL_GRANULE 64
#define SHMEMI_POOL_NONE ((size_t)-1)

int shmemi_pool_init(size_t off, size_t bytes);
void shmemi_pool_fini(void);
/* First heap offset >= from where `bytes` are free here, or NONE. */
size_t shmemi_pool_first_fit(size_t from, size_t bytes);
/* Mark used (and zero: flags start at 0) / free. */
void shmemi_pool_take(size_t off, size_t bytes);
void shmemi_pool_give(size_t off, size_t bytes);

#endif /* SHMEMI_POOL_H */

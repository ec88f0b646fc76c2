/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * team/live.h — bookkeeping of user-created teams and their contexts
 * (team/live.c).
 */
#ifndef SHMEMI_LIVE_H
#define SHMEMI_LIVE_H

#include "team/team.h"

struct shmemi_ctx;

/* Put a new team on the live list. */
void shmemi_team_add_live(struct shmemi_team *t);
/* Is `t` a predefined team or on the live list? Never dereferences `t`. */
int shmemi_team_is_live(const void *t);
/* Free every user team still alive (finalize; no communication). */
void shmemi_team_free_live(void);
/* Take a team off the live list, give its block back, free it (local). */
void shmemi_team_free_one(struct shmemi_team *t);

/* A user team's contexts (none kept for the predefined teams): add one,
 * take the whole list (destroy), take one off (its shmem_ctx_destroy). */
void shmemi_team_add_ctx(struct shmemi_team *t, struct shmemi_ctx *ctx);
struct shmemi_ctx *shmemi_team_take_ctxs(struct shmemi_team *t);
void shmemi_team_unlink_ctx(struct shmemi_ctx *ctx);

#endif /* SHMEMI_LIVE_H */

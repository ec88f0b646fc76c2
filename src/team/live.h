/*
 * team/live.h — bookkeeping of user-created teams and their contexts.
 */
#ifndef SHMEMI_LIVE_H
#define SHMEMI_LIVE_H

#include "team/team.h"

/* Is `t` a predefined team or on the live list? Never dereferences `t`. */
int shmemi_team_is_live(const void *t);
/* Free every user team still alive (finalize; no communication). */
void shmemi_team_free_live(void);
/* Take a team off the live list, give its block back, free it (local). */
void shmemi_team_free_one(struct shmemi_team *t);

#endif /* SHMEMI_LIVE_H */

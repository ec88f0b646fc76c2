/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/barrier.h — barriers over teams.
 */
#ifndef SHMEMI_BARRIER_H
#define SHMEMI_BARRIER_H

struct shmemi_team;

/* Synchronise the team's members; orders memory (what any member stored
 * before is visible to every member after) but completes no transfers.
 * `routine`: the one the program called (reports name it). */
void shmemi_barrier_team(struct shmemi_team *team, const char *routine);

#endif /* SHMEMI_BARRIER_H */

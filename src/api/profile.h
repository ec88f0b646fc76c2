/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api/profile.h — SHMEM_PROFILE at init and finalize (api/profile.c); the
 * counting itself is base/profile.h's.
 */
#ifndef SHMEMI_API_PROFILE_H
#define SHMEMI_API_PROFILE_H

#include <stdint.h>

/* After the environment is loaded, before the fast-path table is filled:
 * profiling starts (counts from an earlier init are dropped). With a CSV
 * file, PE 0 opens it now, so a path it cannot write ends the job at
 * start-up rather than losing the run's profile at its end. */
void shmemi_prof_start(const char *routine);
/* The init that built the world, started at `t0` (shmemi_now_ns), is
 * counted under `routine` (its binding could not time it: profiling was
 * off when it was called). */
void shmemi_prof_count_init(const char *routine, uint64_t t0);
/* At finalize, on every PE, after the closing barrier and before anything
 * is torn down: every PE's rows reach PE 0, which prints the table or
 * writes the CSV file; then profiling stops. Collective over the world;
 * nothing when profiling is off. */
void shmemi_prof_report(void);

#endif /* SHMEMI_API_PROFILE_H */

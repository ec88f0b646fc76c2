/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/profile.h — SHMEM_PROFILE: every routine the program calls,
 * counted and timed by the generated bindings, and reported at finalize
 * (api/profile.c gathers the rows and prints them).
 *
 * Off (the default) a binding pays one load and one never-taken branch
 * on shmemi_prof_flag. On, a call from the program goes to the binding's
 * cold twin, which calls the binding again between shmemi_prof_enter and
 * shmemi_prof_leave (two clock reads, four relaxed atomic adds to the
 * routine's site); inside, shmemi_prof_counts() is 0 and the binding
 * runs its body.
 *
 * Only a thread's outermost call is counted, under the name the program
 * called: a binding reached from inside another (the C routine a Fortran
 * wrapper calls) runs uncounted, and the outer call's bytes are its own
 * (a Fortran wrapper's are those of the C routine it wraps).
 *
 * Waits: the core's blocking wait loops add the nanoseconds they spend
 * waiting to shmemi_prof_wait_ns, only when shmemi_profile_on(); the
 * outermost call reads it before and after and charges the difference
 * to itself (a barrier's waiting shows under shmem_barrier_all):
 *
 *     uint64_t t0 = shmemi_profile_on() ? shmemi_now_ns() : 0;
 *     ... wait ...
 *     if (t0)
 *         shmemi_prof_wait_ns += shmemi_now_ns() - t0;
 */
#ifndef SHMEMI_PROFILE_H
#define SHMEMI_PROFILE_H

#include <stdint.h>

#define SHMEMI_PROF_HIDDEN __attribute__((visibility("hidden")))
#define SHMEMI_PROF_TLS __attribute__((tls_model("initial-exec")))

/* SHMEM_PROFILE's mode: 0 off, 1 print a table, 2 write CSV. */
enum { SHMEMI_PROF_OFF, SHMEMI_PROF_TABLE, SHMEMI_PROF_CSV };
/* Nonzero while calls are counted: the mode from init (before the
 * fast-path table is filled) until the report is out, except while the
 * program has paused counting with shmem_pcontrol(0). */
extern SHMEMI_PROF_HIDDEN int shmemi_prof_flag;

static inline int shmemi_profile_on(void)
{
    return __builtin_expect(shmemi_prof_flag != 0, 0);
}

/* Calls of this thread being counted (0 or 1). */
extern SHMEMI_PROF_HIDDEN _Thread_local SHMEMI_PROF_TLS unsigned shmemi_prof_depth;

/* A binding's test: count this call (profiling, and not inside a counted call). */
static inline int shmemi_prof_counts(void)
{
    return shmemi_profile_on() && shmemi_prof_depth == 0;
}

/* Nanoseconds this thread has spent in the core's blocking waits while
 * profiling (initial-exec: no __tls_get_addr call in a wait loop). */
extern SHMEMI_PROF_HIDDEN _Thread_local SHMEMI_PROF_TLS uint64_t shmemi_prof_wait_ns;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t shmemi_now_ns(void);

/* One routine's counts on this PE: a zeroed static of its binding, put on
 * the PE's list (shmemi_prof_sites) by its first counted call. Updated
 * with relaxed atomics: threads of one PE share it. */
struct shmemi_prof_site {
    uint64_t calls, bytes, ns, wait_ns;
    const char *name;
    struct shmemi_prof_site *next;
    int listed;
};

/* The call being counted, on its twin's stack. */
struct shmemi_prof_call {
    struct shmemi_prof_site *site;
    const char *name;
    uint64_t t0, wait0;
    int closed;  /* already counted (by the report, at finalize) */
};

/* Around a counted call (only where shmemi_prof_counts() said so).
 * `bytes`: what the call moved (lower.py's record, moved()). */
void shmemi_prof_enter(struct shmemi_prof_call *c, struct shmemi_prof_site *site, const char *name);
void shmemi_prof_leave(struct shmemi_prof_call *c, uint64_t bytes);

/* A team's or active set's size as a byte multiplier (-1: invalid team). */
static inline uint64_t shmemi_prof_members(int n)
{
    return n > 0 ? (uint64_t)n : 0;
}

/* Count one call of `name` at `site` (for calls no binding times:
 * shmem_init, which turns profiling on while it runs). */
void shmemi_prof_count(struct shmemi_prof_site *site, const char *name, uint64_t bytes, uint64_t ns,
                       uint64_t wait_ns);
/* Count this thread's call being counted as ending now (the report,
 * inside shmem_finalize, counts the finalize that runs it); its name, or
 * NULL when there is none (the implicit finalize at exit). */
const char *shmemi_prof_close_outer(void);
/* The mode (SHMEMI_PROF_*) for this init, and what it is (the report
 * runs on the mode, whatever shmem_pcontrol did to the counting). */
void shmemi_prof_set_mode(int mode);
int shmemi_prof_mode(void);
/* shmem_pcontrol(level): 0 pauses counting, any other level resumes it
 * (nothing without SHMEM_PROFILE). */
void shmemi_prof_control(int level);
/* The sites counted so far, newest first. */
struct shmemi_prof_site *shmemi_prof_sites(void);
/* Zero every site's counts (a new init). */
void shmemi_prof_reset(void);

#endif /* SHMEMI_PROFILE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/waiting.h — what a blocking wait waits for, so that a stuck
 * program can say it: the hang report (SHMEM_HANG_REPORT, SIGUSR1) and
 * the profile's wait time (base/profile.h).
 *
 * A wait loop keeps a struct shmemi_waiting on its stack: the routine the
 * program called and a function that says what is awaited. It enters the
 * record at its first unsatisfied poll and leaves it when satisfied. Only
 * the outermost wait of a thread enters (a barrier's flag AMO waiting for
 * its network completion is still the barrier's wait). The clock is read
 * only where the wait already gives its core away (base/give_way.c): at
 * each yield (which also decides there when to nap), a system call beside which a vDSO clock read (~20 ns) is
 * nothing. At every yield, not only at naps: where each poll is a network
 * round trip, 256 yields of 1024 polls each took seconds.
 */
#ifndef SHMEMI_WAITING_H
#define SHMEMI_WAITING_H

#include <stddef.h>
#include <stdint.h>

#include "base/profile.h"

struct shmemi_waiting;
/* Writes what is awaited ("for PE 2", "for flag == 1: it holds 0") into
 * buf; called only to report, by the waiting thread. */
typedef void (*shmemi_describe_fn)(const struct shmemi_waiting *w, char *buf, size_t len);

struct shmemi_waiting {
    const char *routine;        /* as the program called it */
    shmemi_describe_fn describe;
    const void *what;           /* describe's subject */
    uint64_t start_ns;          /* the first yield (the entry, when profiling); 0 before */
    uint64_t report_ns;         /* when the next timed report is due */
};

/* One per thread that has waited: the handler of SIGUSR1 looks at all. */
struct shmemi_wait_slot {
    struct shmemi_waiting *now; /* the entered wait, or NULL */
    unsigned seen;              /* report requests answered */
    int index;                  /* 0 for the first thread that waited */
};

extern _Thread_local __attribute__((tls_model("initial-exec"))) struct shmemi_wait_slot *shmemi_wait_slot_mine;
/* This thread has found the node crowded by other programs' tasks
 * (base/give_way.h): its waits nap at every poll while it is. */
extern _Thread_local __attribute__((tls_model("initial-exec"))) int shmemi_crowded;
struct shmemi_wait_slot *shmemi_wait_slot_claim(void);

static inline void shmemi_wait_enter(struct shmemi_waiting *w)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;

    if (__builtin_expect(!s, 0))
        s = shmemi_wait_slot_claim();
    if (s->now)
        return;
    w->start_ns = shmemi_profile_on() ? shmemi_now_ns() : 0;
    w->report_ns = 0;
    __atomic_store_n(&s->now, w, __ATOMIC_RELEASE);
}

/* After a wait that entered (polled unsatisfied at least once). */
static inline void shmemi_wait_leave(struct shmemi_waiting *w)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;

    if (s->now != w)
        return;
    __atomic_store_n(&s->now, NULL, __ATOMIC_RELAXED);
    if (shmemi_profile_on() && w->start_ns)
        shmemi_prof_wait_ns += shmemi_now_ns() - w->start_ns;
}

/* Called by shmemi_give_way at each yield, `now` read by it: the timed
 * report, and the reports SIGUSR1 asked for. */
void shmemi_wait_tick(uint64_t now);

/* The same between yields, for a wait whose polls may be slow: a network
 * poll on a loaded node can take milliseconds, and 1024 of them (a yield
 * apart) seconds, past the report's time. */
static inline void shmemi_wait_tick_between(void)
{
    struct shmemi_wait_slot *s = shmemi_wait_slot_mine;

    if (s && s->now)
        shmemi_wait_tick(shmemi_now_ns());
}

/* SIGUSR1 reports every waiting thread of this PE; installed at init where
 * the program left SIGUSR1 at its default (which would end the PE). */
void shmemi_wait_report_init(void);
void shmemi_wait_report_fini(void);

#endif /* SHMEMI_WAITING_H */

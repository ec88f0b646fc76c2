/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/give_way.h — how a waiting thread gives up its core: a yield, and
 * in a long wait now and then a short sleep instead.
 *
 * sched_yield hands the core only to tasks of the yielder's own scheduling
 * group (its session's autogroup, its cgroup), never to another group's.
 * On the Linux 6.18 of our test machines, three or more processes each
 * yielding on every poll, beside a thread of theirs that wakes every
 * 0.1 ms (a progress thread serving peers), kept every other group off
 * both cores for 6-60 s: kernel threads too (rcu_preempt starved, workqueue
 * lockups), and the PEs of the same job that had been preempted. A thread
 * that sleeps leaves the run queue, and a nap every SHMEMI_NAP_EVERY-th
 * yield of a wait ended it (docs/design.md, "Progress", napping). Counted
 * per wait, so that short waits (a barrier, a round trip) never nap: with
 * a nap every 256th yield of the thread instead, oversubscribed barriers
 * took 1.5x as long.
 *
 * Where the PEs have their CPUs to themselves, a wait yields only every
 * 1024th poll, and so naps about once a second: on tcp one such waiting
 * PE, beside the progress threads of its job, kept another job started
 * 1 s later out of shmem_init until the wait ended (docs/performance.md,
 * "Shared nodes"). So a wait that has lasted SHMEMI_CROWD_AFTER_NS
 * looks, every SHMEMI_CROWD_CHECK_NS, whether the node has more runnable
 * tasks than CPUs (/proc/loadavg, a few us): then others want the CPUs it
 * holds, and it naps at every poll, an eighth of its time so far (up to
 * SHMEMI_CROWD_NAP_MAX_NS), until it ends (shmemi_wait_crowded,
 * base/waiting.h). The progress thread serves less often then too.
 *
 * One look is not enough: this job's own progress threads, woken every
 * 0.1-1 ms onto CPUs its PEs keep busy, are runnable for a moment, often
 * enough that one look in three counted more tasks than CPUs while a tcp
 * target served a stream of puts; it then napped up to 1 ms a poll, and
 * quiet at the initiator waited for it (64 puts + quiet: 40 us, or 170-750
 * us after such a look). Another job's tasks, kept off the CPUs, stay
 * runnable. So a wait that finds the node crowded looks again
 * SHMEMI_CROWD_LOOKS times in quick succession and naps only if
 * SHMEMI_CROWD_HITS of them agree; the progress thread counts the same
 * share of its last looks (shmemi_crowd_vote).
 */
#ifndef SHMEMI_GIVE_WAY_H
#define SHMEMI_GIVE_WAY_H

/* Yields of one wait between two naps. */
#define SHMEMI_NAP_EVERY 256
/* The nap; the kernel adds its timer slack (50 us by default). */
#define SHMEMI_NAP_NS 20000
/* A wait looks at the node's run queue once it has lasted this long, and
 * again this often. */
#define SHMEMI_CROWD_AFTER_NS 2000000
#define SHMEMI_CROWD_CHECK_NS 20000000
#define SHMEMI_CROWD_NAP_MAX_NS 1000000
/* A wait becomes crowded when SHMEMI_CROWD_HITS of SHMEMI_CROWD_LOOKS
 * looks this far apart find the node so (give_way.c, look_at_node). */
#define SHMEMI_CROWD_LOOKS 8
#define SHMEMI_CROWD_HITS 6
#define SHMEMI_CROWD_LOOK_GAP_NS 250000

/* Give the core away once: sched_yield, or a nap when `yields` (this
 * one included, counted by the wait) is a multiple of SHMEMI_NAP_EVERY
 * or when the wait has found the node crowded. */
void shmemi_give_way(unsigned yields);

/* Whether the node has more runnable tasks than online CPUs; `loadavg`
 * is the text of /proc/loadavg (a test hook: NULL reads the file). */
int shmemi_node_crowded(const char *loadavg);

/* A thread that looks at the node now and then (the progress thread):
 * `looks` keeps its last SHMEMI_CROWD_LOOKS looks, one bit each; add the
 * look `hit` and say whether SHMEMI_CROWD_HITS of them found it crowded. */
static inline int shmemi_crowd_vote(unsigned *looks, int hit)
{
    *looks = (*looks << 1 | (hit != 0)) & ((1u << SHMEMI_CROWD_LOOKS) - 1);
    return __builtin_popcount(*looks) >= SHMEMI_CROWD_HITS;
}

#endif /* SHMEMI_GIVE_WAY_H */

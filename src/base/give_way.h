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
 * Other programs (issue 58). A yield is worth something only when what
 * runs instead is a PE of this job. Where other programs' tasks share the
 * yielder's scheduling group (one session, one cgroup: a CI runner, a
 * shell's background jobs, a program's own OpenMP threads), each yield
 * moves the yielder's EEVDF deadline a slice later, so it runs again only
 * after all of them: with 4 busy loops beside 4 PEs on 2 CPUs a ping-pong
 * round trip took 5.3 ms, and Sandia OpenSHMEM's spinning 1.3 ms. A thread
 * that sleeps keeps its place (its lag) and wakes ahead of them. So a
 * thread that gives way looks, every SHMEMI_CROWD_CHECK_NS, whether the
 * node has more runnable tasks than CPUs and than this job has PEs on it
 * (/proc/loadavg, a few us); while it has, every wait of that thread naps
 * at every poll instead of yielding, an eighth of its time so far (from
 * SHMEMI_NAP_NS up to SHMEMI_CROWD_NAP_MAX_NS). Ping-pong: 0.3 ms a round
 * trip; barriers 0.3 ms against 5.8 (SOS: 35). Where the other programs are
 * in groups of their own, yielding was faster (0.05 against 0.15 ms), but
 * one cannot tell the two apart cheaply, and napping is the one that does
 * well in both. A job waiting for long on a node where another starts
 * naps too (docs/performance.md, "Shared nodes"; issue 42).
 *
 * This job's own PEs are not others: with 8 PEs alone on 2 CPUs a yield
 * hands the CPU to the PE waited for, and they yield. The conclusion is
 * kept for the thread, not the wait, since a wait under load is short and
 * the node's load changes slowly: a wait that began again found the node
 * busy again, and yielded for the 2-4 ms its own probe took.
 *
 * One look is not enough: this job's own progress threads, woken every
 * 0.1-1 ms onto CPUs its PEs keep busy, are runnable for a moment, often
 * enough that one look in three counted more tasks than CPUs while a tcp
 * target served a stream of puts; it then napped up to 1 ms a poll, and
 * quiet at the initiator waited for it (64 puts + quiet: 40 us, or 170-750
 * us after such a look). Another program's tasks, kept from the CPUs,
 * stay runnable. So a look that finds the node crowded starts a probe of
 * SHMEMI_CROWD_LOOKS looks in quick succession, and the thread naps only
 * if SHMEMI_CROWD_HITS of them agree; the progress thread counts the same
 * share of its last looks (shmemi_crowd_vote), this job's PEs included.
 */
#ifndef SHMEMI_GIVE_WAY_H
#define SHMEMI_GIVE_WAY_H

/* Yields of one wait between two naps. */
#define SHMEMI_NAP_EVERY 256
/* The nap; the kernel adds its timer slack (50 us by default). */
#define SHMEMI_NAP_NS 20000
/* A thread that gives way looks at the node's run queue this often. */
#define SHMEMI_CROWD_CHECK_NS 20000000
#define SHMEMI_CROWD_NAP_MAX_NS 1000000
/* A thread finds the node crowded when SHMEMI_CROWD_HITS of
 * SHMEMI_CROWD_LOOKS looks this far apart find it so (give_way.c,
 * look_at_node). */
#define SHMEMI_CROWD_LOOKS 8
#define SHMEMI_CROWD_HITS 6
#define SHMEMI_CROWD_LOOK_GAP_NS 250000

/* Give the core away once: sched_yield, or a nap when `yields` (this
 * one included, counted by the wait) is a multiple of SHMEMI_NAP_EVERY
 * or when the thread has found the node crowded by others. */
void shmemi_give_way(unsigned yields);

/* Whether the node has more runnable tasks than online CPUs and than
 * `ours` (this job's tasks that may be among them: 0 counts every task
 * as another's); `loadavg` is the text of /proc/loadavg (a test hook:
 * NULL reads the file). */
int shmemi_node_crowded(const char *loadavg, int ours);

/* A thread that looks at the node now and then (the progress thread):
 * `looks` keeps its last SHMEMI_CROWD_LOOKS looks, one bit each; add the
 * look `hit` and say whether SHMEMI_CROWD_HITS of them found it crowded. */
static inline int shmemi_crowd_vote(unsigned *looks, int hit)
{
    *looks = (*looks << 1 | (hit != 0)) & ((1u << SHMEMI_CROWD_LOOKS) - 1);
    return __builtin_popcount(*looks) >= SHMEMI_CROWD_HITS;
}

#endif /* SHMEMI_GIVE_WAY_H */

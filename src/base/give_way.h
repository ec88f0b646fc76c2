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

/* Give the core away once: sched_yield, or a nap when `yields` (this
 * one included, counted by the wait) is a multiple of SHMEMI_NAP_EVERY
 * or when the wait has found the node crowded. */
void shmemi_give_way(unsigned yields);

/* Whether the node has more runnable tasks than online CPUs; `loadavg`
 * is the text of /proc/loadavg (a test hook: NULL reads the file). */
int shmemi_node_crowded(const char *loadavg);

#endif /* SHMEMI_GIVE_WAY_H */

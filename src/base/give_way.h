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
 */
#ifndef SHMEMI_GIVE_WAY_H
#define SHMEMI_GIVE_WAY_H

/* Yields of one wait between two naps. */
#define SHMEMI_NAP_EVERY 256
/* The nap; the kernel adds its timer slack (50 us by default). */
#define SHMEMI_NAP_NS 20000

/* Give the core away once: sched_yield, or a nap when `yields` (this
 * one included, counted by the wait) is a multiple of SHMEMI_NAP_EVERY. */
void shmemi_give_way(unsigned yields);

#endif /* SHMEMI_GIVE_WAY_H */

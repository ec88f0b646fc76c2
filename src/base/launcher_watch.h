/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/launcher_watch.h — a PE whose launcher is gone ends by itself.
 *
 * A launcher that dies without ending its PEs (mpirun SIGKILLed, or
 * leaving at a second signal) leaves them reparented to init, waiting
 * or computing forever. The process that started this PE (mpirun,
 * prted, orted, slurmstepd, hydra_pmi_proxy: whatever the launcher) is
 * watched from a thread of its own: when it exits, the PE removes what
 * the cleanup registry holds, prints
 *   shoal: PE n: the launcher is gone (mpirun, pid N): ending
 * and exits with status 1. A PE already ending the job (global_exit, a
 * fatal error) exits silently with that job's status.
 */
#ifndef SHMEMI_LAUNCHER_WATCH_H
#define SHMEMI_LAUNCHER_WATCH_H

/* Once per process, for a PE started by a launcher (never a singleton,
 * whose parent is the user's shell). Failing to start only warns. */
void shmemi_launcher_watch_start(const char *routine);

#endif /* SHMEMI_LAUNCHER_WATCH_H */

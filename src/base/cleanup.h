/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/cleanup.h — the one list of names this process leaves outside
 * itself (libfabric shm provider regions, and our /dev/shm segments where
 * memfd cannot be used: memfd segments have no name, base/segment.h) and the
 * one set of signal handlers that removes them when the process dies.
 *
 * Between shmemi_cleanup_arm() and shmemi_cleanup_disarm(), for each of
 * these signals the program left at its default action:
 *  - a termination signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT: the launcher
 *    ending the job) unlinks every registered name, then the signal is
 *    raised again with the previous disposition, so the exit status
 *    stays honest;
 *  - a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) first prints
 *    "shoal: PE <n>: killed by <signal>", then does the same.
 * A SIGKILLed process runs nothing: for that, every name is also recorded
 * as an empty file in $SHOAL_CLEANUP_DIR (set by oshrun), which oshrun
 * unlinks after the launcher returns.
 */
#ifndef SHMEMI_CLEANUP_H
#define SHMEMI_CLEANUP_H

/* `name` is a POSIX shm name ("/shoal-...", "/1234:0:0"). Safe from
 * several threads; never from a signal handler. */
void shmemi_cleanup_add(const char *name);
/* The name was unlinked (or is about to be, by its owner): forget it. */
void shmemi_cleanup_remove(const char *name);
/* Unlink every registered name now (abort paths). Async-signal-safe. */
void shmemi_cleanup_run(void);

void shmemi_cleanup_arm(void);
void shmemi_cleanup_disarm(void);

#endif /* SHMEMI_CLEANUP_H */

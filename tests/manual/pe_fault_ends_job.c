/* SPDX-License-Identifier: BSD-3-Clause */
/* A PE that dies ends the whole job: PE 1 faults (argv[1]: "kill" =
 * SIGKILL, "segv" = a NULL store, "exit" = exit(3) without shmem_finalize,
 * "return" = return 3 from main without it) while every other PE waits for it
 * (argv[2]: "barrier" or "wait" = shmem_wait_until on a flag nobody sets).
 * The manifest checks the job's exit status and the line naming PE 1; the
 * runner checks that no PE outlives the launcher and that nothing is left
 * in /dev/shm. A waiting PE that ever gets through prints to stdout, which
 * the manifest expects empty. (An exit with status 0 without finalize is a
 * finalize: init_then_return_without_finalize.c.) */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long never_set;

static int usage(void)
{
    fprintf(stderr, "usage: pe_fault_ends_job kill|segv|exit|return barrier|wait\n");
    return 2;
}

static int known_fault(const char *how)
{
    return !strcmp(how, "kill") || !strcmp(how, "segv") || !strcmp(how, "exit") || !strcmp(how, "return");
}

/* Returns only for "return" (the caller returns from main). */
static void fault(const char *how)
{
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    if (!strcmp(how, "segv")) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (!strcmp(how, "exit"))
        exit(3);
}

int main(int argc, char **argv)
{
    if (argc != 3 || !known_fault(argv[1]) || (strcmp(argv[2], "barrier") && strcmp(argv[2], "wait")))
        return usage();
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 1) {
        /* Let the others get into their wait first. */
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fault(argv[1]);
        return 3;
    }
    if (!strcmp(argv[2], "barrier"))
        shmem_barrier_all();
    else
        shmem_long_wait_until(&never_set, SHMEM_CMP_NE, 0);
    printf("PE %d: TEST FAILURE: got past the %s without PE 1\n", me, argv[2]);
    shmem_finalize();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* init_then_return_without_finalize.c — a program that calls shmem_init
 * and ends with status 0 without shmem_finalize (as OpenSHMEM 1.0-era
 * programs and some public examples do) is finalized at exit, exactly like
 * a start_pes program: the job's status is the program's (0), nothing is
 * left in /dev/shm (the runner checks), nothing is printed on stderr.
 *
 * argv[1]: "return" (return 0 from main) or "exit" (exit(0) from a helper).
 * The last PE is late: it sleeps, then adds to a counter on PE 0 and puts
 * into PE 0's heap while PE 0 has already returned from main. The implicit
 * finalize's barrier keeps PE 0's memory in place until that is done, and
 * PE 0 reads the values in a second pass through its at-exit hook (an
 * atexit handler registered before shmem_init runs after Shoal's). */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long counter;    /* every PE adds 1 on PE 0 */
static long late_value; /* the last PE puts 4242 + its number on PE 0 */
static int pe0_checks_at_exit;
static int npes_seen;

/* Runs after Shoal's at-exit finalize (it was registered before
 * shmem_init): local reads of globals only, which stay mapped. */
static void pe0_checks_late_writes(void)
{
    if (!pe0_checks_at_exit)
        return;
    if (counter != npes_seen || late_value != 4242 + npes_seen - 1) {
        fprintf(stderr, "PE 0: FAIL at exit: counter %ld (expected %d), late value %ld (expected %d)\n",
                counter, npes_seen, late_value, 4242 + npes_seen - 1);
        fflush(stderr);
        _exit(1);
    }
}

static void end_without_finalize(const char *how)
{
    if (!strcmp(how, "exit"))
        exit(0);
}

int main(int argc, char **argv)
{
    int me, npes;

    if (argc != 2 || (strcmp(argv[1], "return") && strcmp(argv[1], "exit"))) {
        fprintf(stderr, "usage: init_then_return_without_finalize return|exit\n");
        return 2;
    }
    atexit(pe0_checks_late_writes);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    /* Every PE but the last adds now; PE 0 checks them. */
    if (me != npes - 1)
        shmem_long_atomic_add(&counter, 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        long got = shmem_long_atomic_fetch(&counter, 0);
        CHECK(got == npes - 1, "counter is %ld, expected %d", got, npes - 1);
        if (!check_fails)
            printf("OK\n");
        fflush(stdout);
        npes_seen = npes;
        pe0_checks_at_exit = 1;
    }
    /* PE 0 may be past main by now; the last PE's writes must still land. */
    if (me == npes - 1) {
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
        shmem_long_atomic_add(&counter, 1, 0);
        shmem_long_p(&late_value, 4242 + me, 0);
    }
    if (check_fails)
        return 1;
    end_without_finalize(argv[1]);
    return 0;
}

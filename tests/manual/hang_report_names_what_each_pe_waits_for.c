/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program that hangs: PE 0 waits for a global no PE ever sets, the
 * others wait in shmem_barrier_all for PE 0. Run with SHMEM_HANG_REPORT=2,
 * every PE must print one line saying what it waits for (checked by the
 * manifest's expect_stderr); a watchdog thread of PE 0 then ends the job
 * with shmem_global_exit(3), as a user would end a hung job, 3 s after the
 * reports are due.
 *
 * With the argument "heap" PE 0 waits on a heap object instead, which the
 * report names by its offset in its allocation and that allocation's size;
 * with "signal" in shmem_signal_wait_until; with "lock" PE 0 takes a lock
 * first and PE 1 waits for it in shmem_set_lock.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long never_set;
static uint64_t signal_word;
static long lock_word;

static void *watchdog(void *arg)
{
    struct timespec t = {*(int *)arg, 0};

    nanosleep(&t, NULL);
    shmem_global_exit(3);
    return NULL;
}

/* Every PE reports SHMEM_HANG_REPORT seconds into its wait, which starts
 * right after init: end the job REPORT_MARGIN_S after that. */
#define REPORT_MARGIN_S 3
static int watchdog_seconds(void)
{
    const char *report = getenv("SHMEM_HANG_REPORT");
    double s = report ? atof(report) : 0;
    int due = (int)s + ((int)s < s);

    return s > 0 && s < 30 ? due + REPORT_MARGIN_S : 8;
}

int main(int argc, char **argv)
{
    static int seconds;
    pthread_t tid;
    int provided;

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    seconds = watchdog_seconds();
    if (shmem_my_pe() == 0) {
        long *heap_flags = shmem_malloc(4 * sizeof(long));
        if (pthread_create(&tid, NULL, watchdog, &seconds) != 0)
            shmem_global_exit(2);
        if (argc > 1 && !strcmp(argv[1], "heap"))
            shmem_long_wait_until(&heap_flags[2], SHMEM_CMP_GT, 5);
        else if (argc > 1 && !strcmp(argv[1], "signal"))
            shmem_signal_wait_until(&signal_word, SHMEM_CMP_GE, 3);
        else if (argc > 1 && !strcmp(argv[1], "lock")) {
            shmem_set_lock(&lock_word);
            shmem_barrier_all(); /* PE 1 asks for the lock once PE 0 holds it */
            shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 1);
        } else
            shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 1);
    } else {
        shmem_malloc(4 * sizeof(long)); /* collective: every PE allocates */
        if (argc > 1 && !strcmp(argv[1], "lock")) {
            shmem_barrier_all();
            if (shmem_my_pe() == 1)
                shmem_set_lock(&lock_word);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

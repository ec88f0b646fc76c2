/*
 * bench/yield_starvation.c — reproducer, without SHMEM, for the stalls of
 * the whole machine that yielding PEs caused (docs/design.md, "Progress",
 * napping; docs/providers.md, "Stalls of the whole machine").
 *
 *   cc -O2 -pthread bench/yield_starvation.c -o /tmp/yield_starvation
 *   /tmp/yield_starvation [procs [waker_us [nap_every [seconds]]]]
 *
 * Starts `procs` processes (default 4) in a session of their own, as a
 * launcher started from another terminal or a test runner would. Each is
 * a PE waiting for a peer the way Shoal's waits did: its main thread polls
 * (poll() of an empty pipe, no timeout) and yields on every turn, and a
 * second thread sleeps `waker_us` (default 100) in a loop, as the progress
 * thread does while the PE computes. With `nap_every` > 0 every that-many-th
 * yield is a 20 us sleep instead (Shoal's shmemi_give_way). Meanwhile this
 * process, outside their session, does what a shell loop does (start a
 * process that exits at once, wait for it, sleep 0.1 s) and prints the
 * longest such turn: about 0.1 s when it gets a core as it should.
 *
 * Seen on Linux 6.18 (2 cores, our test machines), 5 interleaved runs of
 * 10 s each, 4 processes: waker 100 us, no nap: 0.10 to 8.8 s (median 0.39);
 * waker 1000 us: 0.10 s every time; waker 100 us, a nap every 256th yield:
 * 0.10 s every time. It varies from run to run: run it several times.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long waker_ns;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *waker(void *arg)
{
    const struct timespec nap = {0, waker_ns};
    for (;;)
        nanosleep(&nap, NULL);
    return arg;
}

/* One waiting PE, until `seconds` have passed. */
static void waiter(long nap_every, double seconds)
{
    int fd[2];
    pthread_t th;
    const struct timespec nap = {0, 20000};

    if (pipe(fd) != 0 || pthread_create(&th, NULL, waker, NULL) != 0)
        _exit(2);
    struct pollfd p = {.fd = fd[0], .events = POLLIN};
    double end = now() + seconds;
    for (unsigned long i = 1;; i++) {
        poll(&p, 1, 0);
        if (nap_every > 0 && i % (unsigned long)nap_every == 0)
            nanosleep(&nap, NULL);
        else
            sched_yield();
        if (i % 1024 == 0 && now() > end)
            _exit(0);
    }
}

int main(int argc, char **argv)
{
    int procs = argc > 1 ? atoi(argv[1]) : 4;
    waker_ns = (argc > 2 ? atol(argv[2]) : 100) * 1000;
    long nap_every = argc > 3 ? atol(argv[3]) : 0;
    double seconds = argc > 4 ? atof(argv[4]) : 15;

    if (procs < 1 || waker_ns <= 0 || waker_ns >= 1000000000) {
        fprintf(stderr, "usage: %s [procs [waker_us (1-999999) [nap_every [seconds]]]]\n", argv[0]);
        return 2;
    }
    pid_t session = fork();
    if (session < 0)
        return 2;
    if (session == 0) {
        setsid(); /* a new session: its own autogroup */
        for (int i = 0; i < procs; i++)
            if (fork() == 0)
                waiter(nap_every, seconds);
        while (wait(NULL) > 0)
            ;
        _exit(0);
    }
    /* Outside their session, what a shell loop does: start a process
     * (here one that exits at once), wait for it, sleep 0.1 s. The longest
     * turn is about 0.1 s when this process gets a core as it should. */
    const struct timespec tenth = {0, 100000000};
    double longest = 0, end = now() + seconds;
    while (now() < end) {
        double t0 = now();
        pid_t child = fork();
        if (child == 0)
            _exit(0);
        waitpid(child, NULL, 0);
        nanosleep(&tenth, NULL);
        if (now() - t0 > longest)
            longest = now() - t0;
    }
    kill(-session, SIGKILL); /* the session's group: its leader's pid */
    waitpid(session, NULL, 0);
    printf("procs %d waker %ld us nap_every %ld: the longest 0.1 s turn of a loop outside took %.2f s\n", procs,
           waker_ns / 1000, nap_every, longest);
    return 0;
}

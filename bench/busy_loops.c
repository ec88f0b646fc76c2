/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/busy_loops.c — another program that keeps CPUs busy: K processes
 * each counting in a loop that never calls the kernel, as `while :; do :;
 * done` does. The count says how much CPU a job beside them left them.
 *
 *   busy_loops K [-- CMD ARGS...]
 *
 * With CMD, the loops run while CMD does (bench/compare.py --foreign K
 * runs each launch so: the loops share its session, and so its scheduling
 * group), and it exits with CMD's status; without, until SIGTERM. Then it
 * prints one JSON line: the loops' iterations a second, summed over the K
 * loops ("iter_per_s"), and the seconds they ran.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One loop: counts until told to stop, then writes its count to `fd`. */
static void loop(int fd)
{
    unsigned long long n = 0;

    while (!stop)
        n++;
    if (write(fd, &n, sizeof n) != (ssize_t)sizeof n)
        _exit(1);
    _exit(0);
}

int main(int argc, char **argv)
{
    int k = argc >= 2 ? atoi(argv[1]) : 0, fds[2], status = 0;
    char **cmd = argc > 3 && !strcmp(argv[2], "--") ? argv + 3 : NULL;
    pid_t pids[256];
    struct sigaction sa = {.sa_handler = on_term};
    sigset_t term, old;
    unsigned long long total = 0;

    if (k < 1 || k > 256 || (argc > 2 && !cmd)) {
        fprintf(stderr, "usage: busy_loops K [-- CMD ARGS...]   (K: 1-256)\n");
        return 2;
    }
    sigaction(SIGTERM, &sa, NULL);
    /* The children inherit the handler; SIGTERM is held until each has it. */
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &old);
    if (pipe(fds))
        return 1;
    double t0 = now_s();
    for (int i = 0; i < k; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            sigprocmask(SIG_SETMASK, &old, NULL);
            loop(fds[1]);
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (cmd) {
        pid_t child = fork();

        if (child == 0) {
            execvp(cmd[0], cmd);
            perror(cmd[0]);
            _exit(127);
        }
        while (child > 0 && waitpid(child, &status, 0) < 0 && !stop)
            ;
        status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else {
        while (!stop)
            pause();
    }
    double t1 = now_s();
    for (int i = 0; i < k; i++)
        kill(pids[i], SIGTERM);
    for (int i = 0; i < k; i++) {
        unsigned long long n;
        if (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
            total += n;
        waitpid(pids[i], NULL, 0);
    }
    printf("{\"bench\":\"foreign\",\"op\":\"busy_loops\",\"size\":0,\"npes\":%d,\"metric\":\"iter_per_s\","
           "\"value\":%.6g,\"seconds\":%.3f}\n",
           k, (double)total / (t1 - t0), t1 - t0);
    return status;
}

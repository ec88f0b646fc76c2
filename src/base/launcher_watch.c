/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/launcher_watch.c — the launcher watch (see launcher_watch.h).
 *
 * The parent is watched, not PMIx: it works for every launcher and
 * bootstrap, and whatever the PE's threads are doing. Not
 * PR_SET_PDEATHSIG, which fires when the parent *thread* that forked us
 * exits (a launcher may fork from a short-lived thread). A pidfd of the
 * parent becomes readable when the parent process exits, so the watch
 * costs one blocked thread; where pidfd_open is missing (Linux < 5.3,
 * seccomp), getppid() is compared every WATCH_POLL_MS instead: once the
 * parent is gone we are reparented, so getppid() changes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/abort.h"
#include "base/cleanup.h"
#include "base/launcher_watch.h"
#include "base/world.h"
#include "shmemi.h"

#define WATCH_POLL_MS 250

static struct {
    pid_t parent;
    char name[32]; /* the parent's command name, read at start */
    char line[160]; /* built at start: the watch thread only writes it */
    size_t line_len;
} watch;

static void read_parent_name(void)
{
    char path[64];
    FILE *f;

    snprintf(watch.name, sizeof watch.name, "?");
    snprintf(path, sizeof path, "/proc/%d/comm", (int)watch.parent);
    f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(watch.name, sizeof watch.name, f))
        watch.name[strcspn(watch.name, "\n")] = '\0';
    fclose(f);
}

static void wait_for_parent_exit(void)
{
    int fd = (int)syscall(SYS_pidfd_open, watch.parent, 0);

    if (fd >= 0) {
        /* Opened after the parent died and its pid was reused: getppid()
         * has already changed, so this still tells. */
        if (getppid() == watch.parent) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            while (poll(&p, 1, -1) < 0 && errno == EINTR)
                ;
        }
        close(fd);
        return;
    }
    while (getppid() == watch.parent) {
        struct timespec t = {0, WATCH_POLL_MS * 1000000L};
        nanosleep(&t, NULL);
    }
}

static void *watch_main(void *unused)
{
    (void)unused;
    wait_for_parent_exit();
    int ending = shmemi_abort_status();
    /* First what we own: our stderr may be a pipe to the dead launcher
     * (EPIPE, SIGPIPE blocked here), and nothing must wait on it. */
    shmemi_cleanup_run();
    if (ending >= 0)
        _exit(ending); /* the launcher went as it ended the job we asked it to end */
    if (write(STDERR_FILENO, watch.line, watch.line_len) < 0)
        _exit(1);
    _exit(1);
}

void shmemi_launcher_watch_start(const char *routine)
{
    static int started;
    pthread_t tid;
    pthread_attr_t attr;
    sigset_t all, old;
    int rc;

    if (started)
        return;
    watch.parent = getppid();
    read_parent_name();
    rc = snprintf(watch.line, sizeof watch.line, "shoal: PE %d: the launcher is gone (%s, pid %d): ending\n",
                  shmemi_world.my_pe, watch.name, (int)watch.parent);
    watch.line_len = rc > 0 && (size_t)rc < sizeof watch.line ? (size_t)rc : 0;
    /* Every signal stays the program's threads' (and SIGPIPE off here). */
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024); /* the default 8 MiB would count against ulimit -v */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&tid, &attr, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        shmemi_warn(routine, "cannot start the launcher watch (%s): this PE will not end by itself if its launcher dies",
                    strerror(rc));
        return;
    }
    started = 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGUSR1 asks a PE what it waits for. PE 1 raises SIGUSR1 in itself while
 * it computes (the line says it is not waiting in the library), then sends
 * it to PE 0, which waits for `flag`; PE 0 prints its line at once and
 * keeps waiting, PE 1 then sets the flag, and the program completes
 * normally (status 0, "OK" from PE 0). PEs share one host here: PE 1
 * signals PE 0 by its process id.
 *
 * With the argument "oshrun" PE 1 sends SIGUSR1 to oshrun instead (the
 * parent of its launcher, mpirun), which passes it to every PE.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static long flag;
static long pid_of_pe0;

/* The parent of process `pid`, from /proc (0 if unreadable). */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    long ppid = 0;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')))
        sscanf(p + 2, "%*c %ld", &ppid);
    fclose(f);
    return (pid_t)ppid;
}

/* oshrun, the launcher's parent: checked by its command line. */
static pid_t oshrun_pid(void)
{
    char path[64], cmd[256] = "";
    pid_t pid = parent_of(getppid());
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    if (!pid || !(f = fopen(path, "r")))
        return 0;
    n = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (!cmd[i])
            cmd[i] = ' ';
    if (!strstr(cmd, "oshrun")) {
        fprintf(stderr, "PE 1: FAIL the launcher's parent is not oshrun: %s\n", cmd);
        return 0;
    }
    return pid;
}

/* Sleeps the whole time: a SIGUSR1 handled meanwhile cuts a nanosleep short. */
static void pause_s(int s)
{
    struct timespec t = {s, 0};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    int me, ok = 1, via_oshrun = argc > 1 && !strcmp(argv[1], "oshrun");

    shmem_init();
    me = shmem_my_pe();
    if (me == 0)
        pid_of_pe0 = (long)getpid();
    shmem_barrier_all();
    if (me == 1) {
        raise(SIGUSR1); /* handled: the PE goes on */
        pid_t pid = via_oshrun ? oshrun_pid() : (pid_t)shmem_long_g(&pid_of_pe0, 0);
        pause_s(1); /* PE 0 is in its wait by now */
        if (!pid || kill(pid, SIGUSR1) != 0)
            ok = 0;
        pause_s(2); /* time for PE 0 to print */
        shmem_long_p(&flag, 7, 0);
    }
    if (me == 0) {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 7);
        ok = flag == 7;
    }
    shmem_barrier_all();
    if (!ok)
        fprintf(stderr, "PE %d: FAIL\n", me);
    shmem_finalize();
    if (me == 0 && ok)
        printf("OK\n");
    return ok ? 0 : 1;
}

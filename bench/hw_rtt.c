/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/hw_rtt.c — the latency bounds: cache lines going between two
 * processes pinned to different cores (when the machine has two), through
 * an anonymous shared mapping.
 *
 *   cacheline_rtt  one flag: the parent writes an odd value and waits for
 *                  the next even one, which the child writes back. One
 *                  iteration = one line going there and back.
 *   two_line_rtt   two flags on separate lines, each with one writer: the
 *                  parent writes `ping`, the child waits for it and writes
 *                  `pong`. This is the pattern of any one-sided ping-pong
 *                  (put to the peer's flag, wait on one's own), so it is the
 *                  bound for shmem_p + wait_until and put_signal round trips.
 */
#include "common.h" /* first: it defines _GNU_SOURCE */

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct lines {
    _Alignas(64) volatile uint64_t flag;   /* one-line mode, and `ping` */
    char pad1[64 - sizeof(uint64_t)];
    _Alignas(64) volatile uint64_t pong;   /* two-line mode */
    char pad2[64 - sizeof(uint64_t)];
};

#define STOP UINT64_MAX

static struct lines *sh;
static uint64_t seq;

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void one_line_batch(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        uint64_t v = seq;
        __atomic_store_n(&sh->flag, v + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&sh->flag, __ATOMIC_ACQUIRE) != v + 2)
            relax();
        seq = v + 2;
    }
}

static void two_line_batch(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        uint64_t v = ++seq;
        __atomic_store_n(&sh->flag, v, __ATOMIC_RELEASE);
        while (__atomic_load_n(&sh->pong, __ATOMIC_ACQUIRE) != v)
            relax();
    }
}

static void child(int two_lines)
{
    uint64_t v = 0, f;

    for (;;) {
        while ((f = __atomic_load_n(&sh->flag, __ATOMIC_ACQUIRE)) == v)
            relax();
        if (f == STOP)
            _exit(0);
        if (two_lines) {
            v = f;
            __atomic_store_n(&sh->pong, v, __ATOMIC_RELEASE);
        } else {
            v = f + 1;
            __atomic_store_n(&sh->flag, v, __ATOMIC_RELEASE);
        }
    }
}

static int measure(const char *op, int two_lines, const struct bench_args *a, long cores)
{
    char extra[96];
    pid_t pid;
    double ns;

    memset(sh, 0, sizeof *sh);
    seq = 0;
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (cores >= 2)
            bench_pin_cpu(1);
        child(two_lines);
    }
    if (cores >= 2)
        bench_pin_cpu(0);
    bench_batch_fn f = two_lines ? two_line_batch : one_line_batch;
    f(NULL, 10000); /* warm-up */
    ns = bench_time_local(f, NULL, a->budget_ns);
    snprintf(extra, sizeof extra, "\"pinned\":%s,\"cores\":%ld", cores >= 2 ? "true" : "false", cores);
    bench_emit("hw", op, 64, 2, "lat_ns", ns, extra);
    __atomic_store_n(&sh->flag, STOP, __ATOMIC_RELEASE);
    waitpid(pid, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    bench_parse_args(argc, argv, &a, 64, 64);
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (measure("cacheline_rtt", 0, &a, cores) || measure("two_line_rtt", 1, &a, cores))
        return 1;
    return 0;
}

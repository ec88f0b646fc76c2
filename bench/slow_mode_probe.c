/*
 * bench/slow_mode_probe.c — one launch's latency and what its threads did,
 * to find what puts a whole launch of the network path in its slow mode.
 * 2 PEs; PE 0 times fetch-adds, adds back to back + one quiet (and the
 * same followed by a fetch that proves them applied), and 8-byte gets on a
 * word of PE 1, which waits in a barrier. Standard OpenSHMEM only
 * (it runs against any implementation); the thread figures come from
 * /proc, not from the library.
 *
 * Then OSU's two timed windows that scatter most from launch to launch,
 * each repeated so that a launch gives a median rather than one sample
 * (osu_oshm_atomics and osu_oshm_put time each window once a launch):
 *   osu_add_ns   500 int adds to consecutive 8-byte slots of PE 1, the
 *                clock stopped with none waited for, then the two
 *                sum_to_all calls OSU makes (PE 1 waits in them);
 *                median over ADD_WINDOWS windows, ns an add;
 *   osu_put1m_ns both PEs write every byte of both buffers, a barrier,
 *                then 100 x (putmem 1 MiB + quiet) while PE 1 waits in the
 *                next barrier; median over PUT_WINDOWS windows, ns a put.
 *
 * Output, PE 0's stdout, one JSON line per launch:
 *   {"fetch_add_ns":..,"add_nq_ns":..,"add_nq_fetched_ns":..,"get_ns":..,"osu_add_ns":..,"osu_put1m_ns":..,
 *    "line_rtt_ns":[before,after],"pes":[{"pe":0,"threads":[
 *     {"tid":..,"comm":..,"cpus":"0-1","cpu_hist":{..},"vcsw":..,"ivcsw":..,"ticks":..}]}]}
 * cpu_hist counts, for each thread, the CPU it was last seen on by samples
 * taken every 10 ms during the timed part (field 39 of /proc/self/task/T/stat,
 * read by a sampling thread of the probe: it is one more thread on the
 * cores, asleep between samples, and is left out of the lists); vcsw/ivcsw
 * are the voluntary and involuntary context switches over the timed part;
 * ticks the thread's user+system clock ticks over it.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sched.h>
#include <shmem.h>
#include <unistd.h>

#define MAX_THREADS 16
#define NCPU 64

struct thread_stat {
    int tid;
    char comm[32];
    char cpus[32];
    long vcsw, ivcsw, ticks;
    long cpu_hist[NCPU];
};

static struct thread_stat before[MAX_THREADS], after[MAX_THREADS];
static int n_before, n_after;
static volatile int sampling;
static int sampler_tid;

static long *word;      /* symmetric */
static long *gsrc;      /* symmetric */
static long tag;        /* symmetric: names the page of line_rtt_ns */
static volatile long sink;

/* The machine's own bound in this launch: a cache-line round trip between
 * the two PEs' cores through a POSIX shared-memory page, outside
 * OpenSHMEM (each PE stays on the CPUs its launcher gave it). */
static double line_rtt_ns(int me, long *tag)
{
    char name[64];
    volatile long *w;
    int fd;
    const long n = 20000;
    double t0, t;

    if (me == 0)
        *tag = (long)getpid();
    shmem_barrier_all();
    if (me == 1)
        *tag = shmem_long_g(tag, 0);
    snprintf(name, sizeof name, "/slow_mode_probe.%ld", *tag);
    fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 4096))
        return -1;
    w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shmem_barrier_all();
    if (me == 1)
        shm_unlink(name);
    if (w == MAP_FAILED)
        return -1;
    t0 = bench_now_ns();
    for (long i = 0; i < 2 * n; i += 2) {
        if (me == 0) {
            __atomic_store_n(w, i + 1, __ATOMIC_RELEASE);
            while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != i + 2)
                ;
        } else {
            while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != i + 1)
                ;
            __atomic_store_n(w, i + 2, __ATOMIC_RELEASE);
        }
    }
    t = (bench_now_ns() - t0) / n;
    munmap((void *)w, 4096);
    return t;
}

static int read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return -1;
    n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 0;
}

/* Field 39 (processor), and utime+stime (14, 15) of a task's stat. */
static int task_cpu(int tid, long *ticks)
{
    char path[64], buf[1024], *p;
    long v[40] = {0};
    int i;

    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    if (read_file(path, buf, sizeof buf))
        return -1;
    p = strrchr(buf, ')'); /* comm may hold spaces */
    if (!p)
        return -1;
    p += 2;                /* fields from 3 on */
    for (i = 3; i <= 39 && *p; i++) {
        char *end;
        if (i == 3) {      /* state, a letter */
            p += 2;
            continue;
        }
        v[i] = strtol(p, &end, 10);
        p = *end ? end + 1 : end;
    }
    if (ticks)
        *ticks = v[14] + v[15];
    return (int)v[39];
}

static long status_field(const char *buf, const char *key)
{
    const char *p = strstr(buf, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int snapshot(struct thread_stat *t)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)) && n < MAX_THREADS) {
        char path[96], buf[4096];
        int tid = atoi(e->d_name);

        if (tid <= 0 || tid == sampler_tid)
            continue;
        memset(&t[n], 0, sizeof t[n]);
        t[n].tid = tid;
        snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
        if (!read_file(path, t[n].comm, sizeof t[n].comm))
            t[n].comm[strcspn(t[n].comm, "\n")] = '\0';
        snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
        if (read_file(path, buf, sizeof buf))
            continue;
        t[n].vcsw = status_field(buf, "voluntary_ctxt_switches:");
        t[n].ivcsw = status_field(buf, "nonvoluntary_ctxt_switches:");
        {
            const char *p = strstr(buf, "Cpus_allowed_list:");
            if (p)
                sscanf(p + strlen("Cpus_allowed_list:"), "%31s", t[n].cpus);
        }
        task_cpu(tid, &t[n].ticks);
        n++;
    }
    closedir(d);
    return n;
}

static void *sampler(void *arg)
{
    const struct timespec nap = {0, 10000000};
    (void)arg;
    sampler_tid = (int)gettid();
    while (sampling) {
        for (int i = 0; i < n_before; i++) {
            int c = task_cpu(before[i].tid, NULL);
            if (c >= 0 && c < NCPU)
                after[i].cpu_hist[c]++;
        }
        nanosleep(&nap, NULL);
    }
    return NULL;
}

static void fetch_add(void *arg, long n)
{
    long s = 0;
    (void)arg;
    for (long i = 0; i < n; i++)
        s += shmem_long_atomic_fetch_add(word, 1, 1);
    sink = s;
}

static void add_nq(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_long_atomic_add(word, 1, 1);
    shmem_quiet();
}

/* The same, then a fetch from the word: it returns only once every add
 * before it is applied, so this row costs a delivered stream whatever
 * quiet promises (SOS's quiet returns before its adds are applied). */
static void add_nq_fetched(void *arg, long n)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_long_atomic_add(word, 1, 1);
    shmem_quiet();
    sink = shmem_long_atomic_fetch(word, 1);
}

static void get8(void *arg, long n)
{
    long v;
    (void)arg;
    for (long i = 0; i < n; i++)
        shmem_getmem(&v, gsrc, sizeof v, 1);
    sink = v;
}

#define ADD_WINDOWS 60
#define PUT_WINDOWS 9
#define PUT_BYTES ((size_t)1 << 20)

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, by_value);
    return v[n / 2];
}

/* osu_oshm_atomics' shmem_int_add window, ADD_WINDOWS times (both PEs). */
static double osu_add_window_ns(int me)
{
    /* OSU's reductions use the 1.4 active-set form: the same here, so
     * that PE 1 waits where OSU's PE 1 waits. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    static double pwrk1[SHMEM_REDUCE_MIN_WRKDATA_SIZE], pwrk2[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    static long psync1[SHMEM_REDUCE_SYNC_SIZE], psync2[SHMEM_REDUCE_SYNC_SIZE];
    static double rate, sum_rate, lat, sum_lat;
    double v[ADD_WINDOWS];
    long long *slots = shmem_malloc(500 * sizeof *slots);

    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync1[i] = psync2[i] = SHMEM_SYNC_VALUE;
    for (int w = 0; w < ADD_WINDOWS; w++) {
        memset(slots, w & 0x7f, 500 * sizeof *slots);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = bench_now_ns();
            for (int i = 0; i < 500; i++)
                shmem_int_add((int *)&slots[i], 1, 1);
            lat = v[w] = (bench_now_ns() - t0) / 500;
            rate = 1e9 / lat;
        }
        shmem_double_sum_to_all(&sum_rate, &rate, 1, 0, 0, 2, pwrk1, psync1);
        shmem_double_sum_to_all(&sum_lat, &lat, 1, 0, 0, 2, pwrk2, psync2);
    }
#pragma GCC diagnostic pop
    shmem_barrier_all();
    shmem_free(slots);
    return me == 0 ? median(v, ADD_WINDOWS) : 0;
}

/* osu_oshm_put's 1 MiB window, PUT_WINDOWS times (both PEs). */
static double osu_put1m_window_ns(int me)
{
    char *s = shmem_malloc(PUT_BYTES), *r = shmem_malloc(PUT_BYTES);
    double v[PUT_WINDOWS];

    for (int w = 0; w < PUT_WINDOWS; w++) {
        for (size_t i = 0; i < PUT_BYTES; i++) {
            ((volatile char *)s)[i] = 'a';
            ((volatile char *)r)[i] = 'b';
        }
        shmem_barrier_all();
        if (me == 0) {
            double t0 = bench_now_ns();
            for (int i = 0; i < 100; i++) {
                shmem_putmem(r, s, PUT_BYTES, 1);
                shmem_quiet();
            }
            v[w] = (bench_now_ns() - t0) / 100;
        }
        shmem_barrier_all();
    }
    shmem_free(r);
    shmem_free(s);
    return me == 0 ? median(v, PUT_WINDOWS) : 0;
}

static void print_threads(int pe)
{
    printf("{\"pe\":%d,\"threads\":[", pe);
    for (int i = 0; i < n_after; i++) {
        const struct thread_stat *b = NULL;
        for (int j = 0; j < n_before; j++)
            if (before[j].tid == after[i].tid)
                b = &before[j];
        printf("%s{\"tid\":%d,\"comm\":\"%s\",\"cpus\":\"%s\",\"vcsw\":%ld,\"ivcsw\":%ld,\"ticks\":%ld,\"cpu_hist\":{",
               i ? "," : "", after[i].tid, after[i].comm, after[i].cpus, after[i].vcsw - (b ? b->vcsw : 0),
               after[i].ivcsw - (b ? b->ivcsw : 0), after[i].ticks - (b ? b->ticks : 0));
        int first = 1;
        for (int c = 0; c < NCPU; c++)
            if (b && b->cpu_hist[c]) {
                printf("%s\"%d\":%ld", first ? "" : ",", c, b->cpu_hist[c]);
                first = 0;
            }
        printf("}}");
    }
    printf("]}");
}

int main(int argc, char **argv)
{
    struct bench_args a;
    pthread_t st;
    int me;
    double fa = 0, an = 0, anf = 0, g = 0, oa, op, rtt0, rtt1;

    bench_parse_args(argc, argv, &a, 8, 8);
    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "slow_mode_probe: needs exactly 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    word = shmem_calloc(1, sizeof *word);
    gsrc = shmem_calloc(1, sizeof *gsrc);
    shmem_barrier_all();
    rtt0 = line_rtt_ns(me, &tag);

    n_before = snapshot(before);
    memset(after, 0, sizeof after);
    for (int i = 0; i < n_before; i++)
        after[i].tid = before[i].tid;
    sampling = 1;
    pthread_create(&st, NULL, sampler, NULL);
    shmem_barrier_all();
    if (me == 0) {
        fa = bench_time_local(fetch_add, NULL, a.budget_ns);
        an = bench_time_local(add_nq, NULL, a.budget_ns);
        anf = bench_time_local(add_nq_fetched, NULL, a.budget_ns);
        g = bench_time_local(get8, NULL, a.budget_ns);
    }
    shmem_barrier_all();
    sampling = 0;
    pthread_join(st, NULL);
    /* the histogram was gathered in after[]; keep it, as before[]'s, beside
     * the end snapshot */
    for (int i = 0; i < n_before; i++)
        memcpy(before[i].cpu_hist, after[i].cpu_hist, sizeof before[i].cpu_hist);
    n_after = snapshot(after);
    rtt1 = line_rtt_ns(me, &tag);
    oa = osu_add_window_ns(me);
    op = osu_put1m_window_ns(me);

    /* PE 1 hands its thread lines to PE 0 through a symmetric buffer. */
    {
        static char line[8192];
        char *buf = shmem_malloc(sizeof line);
        if (me == 1) {
            FILE *m = fmemopen(line, sizeof line, "w");
            FILE *saved = stdout;
            stdout = m;
            print_threads(1);
            fflush(m);
            fclose(m);
            stdout = saved;
            shmem_putmem(buf, line, sizeof line, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
        if (me == 0) {
            printf("{\"fetch_add_ns\":%.1f,\"add_nq_ns\":%.1f,\"add_nq_fetched_ns\":%.1f,\"get_ns\":%.1f,"
                   "\"osu_add_ns\":%.1f,\"osu_put1m_ns\":%.1f,\"line_rtt_ns\":[%.1f,%.1f],\"pes\":[",
                   fa, an, anf, g, oa, op, rtt0, rtt1);
            print_threads(0);
            printf(",%s]}\n", buf);
            fflush(stdout);
        }
        shmem_barrier_all();
        shmem_free(buf);
    }
    shmem_free(gsrc);
    shmem_free(word);
    shmem_finalize();
    return 0;
}

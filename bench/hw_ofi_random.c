/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/hw_ofi_random.c — the raw libfabric bound of app_patterns.c's
 * random rows: N processes on one provider, every one issuing at once to
 * random slots of random other processes' tables, with the same streams,
 * batches, checks and rows (bench/patterns.h). Plain C and libfabric, no
 * PMIx, no SHMEM library. Each row takes the fastest way known to complete
 * what the SHMEM routine must (the row's "method" says which):
 *   random_g          one 8-byte read, then the read counter: fi_read; on
 *                     shm fi_readmsg with no flags, which shm does by
 *                     cross-memory attach without the target's help
 *   random_put_w64,   8-byte writes in windows of 64 or 1024:
 *   random_put_w1024  fi_writemsg(FI_INJECT | FI_DELIVERY_COMPLETE), then the
 *                     write counter; on shm posted (FI_INJECT alone, copied
 *                     into the target's queue), then one FI_ATOMIC_READ to
 *                     each process written, which shm serves after them
 *   random_add        FI_SUM of 1 on FI_UINT64 in windows of 1024: runs of
 *                     adds to one process gathered into one
 *                     fi_atomicmsg(FI_INJECT | FI_DELIVERY_COMPLETE) (as
 *                     many as the provider takes), then the write counter;
 *                     on shm fi_inject_atomic, then the same atomic reads
 *                     as the puts (shm's delivery-complete atomics are
 *                     corrupted when pipelined, libfabric 1.17)
 *
 * The endpoint is asked for as hw_ofi.c asks, by the same code
 * (hw_ofi_common.h): RDM, FI_RMA | FI_ATOMIC, mr_mode FI_MR_VIRT_ADDR |
 * FI_MR_ALLOCATED | FI_MR_PROV_KEY, FI_DELIVERY_COMPLETE default and
 * FI_THREAD_DOMAIN when granted, with counters for completion and a CQ
 * that only ever holds errors.
 *
 * Process 0 forks the others before libfabric is touched; each has a
 * socketpair to process 0, which carries endpoint names, the tables'
 * addresses and keys, and the barriers and gathers of the timing. While a
 * process waits on its socket it keeps reading its CQ: tcp;ofi_rxm and shm
 * progress manually, so a process serves the others only while it calls
 * into libfabric. A wait that lasts yields the CPU at every turn (with
 * more processes than cores, every wait does).
 *
 *   hw_ofi_random [--np N] [--provider NAME] [--quick] [--budget-ms X]
 *                 [--table-mib M] [--timeout S]
 *
 * --np: processes (default 2, at most 64). --provider sets FI_PROVIDER
 * before libfabric is first called (else FI_PROVIDER from the environment,
 * else the first RDM provider offered but udp;ofi_rxd). Every wait has a
 * deadline (--timeout, default 20 s): past it the process says what it was
 * waiting for and exits 1, and the others follow when their sockets close.
 * Output: app_patterns.c's rows under "bench":"hw_ofi_random", with the
 * provider's fields.
 */
#include "patterns.h" /* first: common.h defines _GNU_SOURCE */
#include "hw_ofi_common.h"

#define MAX_PROCS 64
#define GATHER_MAX 8               /* adds to one process in one atomic message, at most */
#define SERVE_EVERY 32             /* operations posted between progress calls (a power of two) */

static struct ofi_peer peer[MAX_PROCS]; /* by rank; none for this process */
static int two_piece_writes;       /* a write's target may come in two pieces */
static int adds_per_message;       /* adds one atomic message may carry (not shm) */
static int me, nprocs = 2;
static int crowded;                /* more processes than cores: waits yield */
static int root_sock = -1;         /* a child's socket to process 0 */
static int child_sock[MAX_PROCS];  /* process 0's sockets, by rank */
static pid_t child_pid[MAX_PROCS];
static volatile sig_atomic_t failing;
static struct card cards[MAX_PROCS];

static void on_signal(int sig)
{
    (void)sig;
    if (own_shm[0])
        unlink(own_shm); /* async-signal-safe */
    _exit(1);
}

/* Process 0: wait for every child, killing those still there past the
 * deadline. Returns nonzero if any did not exit with status 0. */
static int reap_children(double wait_ns)
{
    double t0 = bench_now_ns();
    int bad = 0;

    for (int r = 1; r < nprocs; r++) {
        char who[48];
        int status = 0;

        if (child_pid[r] <= 0)
            continue;
        snprintf(who, sizeof who, "hw_ofi_random: process %d", r);
        wait_or_kill(child_pid[r], t0, wait_ns, who, &status);
        child_pid[r] = -1;
        bad |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        /* A child that could not fi_close left its endpoint's file. */
        if (WIFSIGNALED(status)) {
            char path[SHM_PATH_MAX];
            shm_path(&cards[r], path);
            if (path[0])
                unlink(path);
        }
    }
    return bad;
}

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (failing)
        _exit(1);
    failing = 1;
    fprintf(stderr, "hw_ofi_random (process %d of %d, provider %s): ", me, nprocs,
            F.info ? F.info->fabric_attr->prov_name : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    /* Closed sockets end the others' waits. */
    if (root_sock >= 0)
        close(root_sock);
    for (int r = 1; r < nprocs; r++)
        if (me == 0 && child_sock[r] >= 0)
            close(child_sock[r]);
    if (me == 0)
        reap_children(5e9);
    alarm(5); /* fi_close with operations in flight may itself get stuck */
    close_fabric();
    exit(1);
}

/* ---- waiting ---- */

/* A wait that lasts gives the core away: the process it waits for may
 * need it to make progress (its requests are served only while it calls
 * into libfabric), and on a quiet node a yield costs little. With more
 * processes than cores, from the start. */
static inline void give_way(unsigned spins)
{
    if (crowded || spins > SPIN_CHECK)
        sched_yield();
}

static inline void retry_pause(unsigned tries)
{
    give_way(tries);
}

static void wait_cntr(struct fid_cntr *c, uint64_t target, const char *what)
{
    unsigned spins = 0;
    double t0 = 0;

    while (fi_cntr_read(c) < target) {
        ++spins;
        /* Spinning, the counter's read drives progress often enough;
         * yielding, every turn must. */
        if (crowded || spins > SPIN_CHECK || (spins & SPIN_CHECK) == 0)
            progress();
        give_way(spins);
        if ((spins & SPIN_CHECK) == 0) {
            fail_on_counter_error(c, what);
            deadline(&t0, what);
        }
    }
}

/* ---- the sockets: every process's bytes on every process ---- */

/* Read n bytes, serving the others meanwhile. */
static void recv_all(int fd, void *buf, size_t n, const char *what)
{
    char *p = buf;
    double t0 = 0;
    unsigned spins = 0;

    while (n) {
        ssize_t got = recv(fd, p, n, MSG_DONTWAIT);

        if (got > 0) {
            p += got;
            n -= (size_t)got;
            t0 = 0;
            continue;
        }
        if (got == 0)
            fail("another process went away (%s)", what);
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            fail("recv (%s): %s", what, strerror(errno));
        progress();
        give_way(++spins);
        deadline(&t0, what);
    }
}

static void allgather_bytes(const void *mine, size_t len, void *all)
{
    char *out = all;

    if (me == 0) {
        memcpy(out, mine, len);
        for (int r = 1; r < nprocs; r++)
            recv_all(child_sock[r], out + (size_t)r * len, len, "gathering");
        for (int r = 1; r < nprocs; r++)
            send_all(child_sock[r], out, (size_t)nprocs * len);
    } else {
        send_all(root_sock, mine, len);
        recv_all(root_sock, out, (size_t)nprocs * len, "gathering");
    }
}

static void group_barrier(void)
{
    char c = 'b', all[MAX_PROCS];
    allgather_bytes(&c, 1, all);
}

static void group_allgather(double mine, double *all)
{
    allgather_bytes(&mine, sizeof mine, all);
}

/* ---- bring-up ---- */

/* Returns 0 when no provider offers what is asked (nothing to measure). */
static int open_endpoint(struct card *mine, void *table, size_t table_len)
{
    if (!open_fabric(mine, table, table_len, (size_t)nprocs))
        return 0;
    two_piece_writes = F.info->tx_attr->rma_iov_limit >= 2;
    adds_per_message = (int)(F.inject / sizeof(uint64_t));
    if ((size_t)adds_per_message > F.info->tx_attr->iov_limit)
        adds_per_message = (int)F.info->tx_attr->iov_limit;
    if ((size_t)adds_per_message > F.info->tx_attr->rma_iov_limit)
        adds_per_message = (int)F.info->tx_attr->rma_iov_limit;
    if (adds_per_message < 1)
        adds_per_message = 1;
    if (adds_per_message > GATHER_MAX)
        adds_per_message = GATHER_MAX;
    return 1;
}

static void connect_all(void)
{
    for (int r = 0; r < nprocs; r++)
        if (r != me) /* no operation targets its own process */
            connect_peer(&cards[r], r, &peer[r]);
}

/* ---- the batches ---- */

static inline uint64_t remote_slot(const struct pattern_target *t)
{
    return peer[t->pe].base + t->slot * sizeof(uint64_t);
}

/* Issuing a long window, a process still serves the others now and then:
 * they wait for it (their delivery completions, their flushes) while it
 * posts, as a SHMEM with a progress thread would serve them. */
static inline void serve_now_and_then(int w)
{
    if ((w & (SERVE_EVERY - 1)) == SERVE_EVERY - 1)
        progress();
}

/* shm: a read asking for no completion flag is done by cross-memory attach
 * before the call returns, without the target's help; elsewhere fi_read. */
static void get_batch(void *arg, long n)
{
    struct pattern_run *r = arg;
    uint64_t mask = r->nslots - 1, sum = 0, word;

    for (long i = 0; i < n; i++) {
        struct pattern_target t = pattern_target(me, nprocs, mask, r->k++);

        if (F.shm) {
            struct iovec iov = {.iov_base = &word, .iov_len = sizeof word};
            struct fi_rma_iov rma = {.addr = remote_slot(&t), .len = sizeof word, .key = peer[t.pe].key};
            struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = peer[t.pe].addr, .rma_iov = &rma,
                                     .rma_iov_count = 1};
            POST(&F.r_issued, fi_readmsg(F.ep, &msg, 0), "fi_readmsg");
        } else {
            POST(&F.r_issued,
                 fi_read(F.ep, &word, sizeof word, NULL, peer[t.pe].addr, remote_slot(&t), peer[t.pe].key, NULL),
                 "fi_read");
        }
        wait_cntr(F.rcntr, F.r_issued, "waiting for a get");
        sum += word;
    }
    r->get_sum += sum;
}

/* shm: an atomic read of each process written to since the last one, which
 * shm serves after the operations queued to that process before it: they
 * are then applied (what a SHMEM's quiet needs). */
static uint8_t written[MAX_PROCS];

static void flush_written(void)
{
    static uint64_t zero, discard;

    for (int pe = 0; pe < nprocs; pe++) {
        if (!written[pe])
            continue;
        written[pe] = 0;
        POST(&F.r_issued,
             fi_fetch_atomic(F.ep, &zero, 1, NULL, &discard, NULL, peer[pe].addr, peer[pe].base, peer[pe].key,
                             FI_UINT64, FI_ATOMIC_READ, NULL),
             "fi_fetch_atomic(FI_ATOMIC_READ)");
    }
    wait_cntr(F.rcntr, F.r_issued, "waiting for the atomic reads after a window");
}

/* shm: injected with no completion flag (counted once queued), the target
 * given as the slot and an empty piece after it, which shm copies into the
 * target's queue instead of attaching to it by a system call; then one
 * flush. Elsewhere FI_INJECT | FI_DELIVERY_COMPLETE and the write counter. */
static void put_batch(void *arg, long n)
{
    static uint64_t src[1024]; /* without FI_INJECT, untouched until the counter says so */
    struct pattern_run *r = arg;
    uint64_t mask = r->nslots - 1;
    uint64_t flags = (F.inject >= sizeof src[0] ? FI_INJECT : 0) | (F.shm ? 0 : FI_DELIVERY_COMPLETE);

    for (long i = 0; i < n; i += r->window) {
        for (int w = 0; w < r->window; w++) {
            struct pattern_target t = pattern_target(me, nprocs, mask, r->k);
            struct iovec iov = {.iov_base = &src[w], .iov_len = sizeof src[w]};
            struct fi_rma_iov rma[2] = {{.addr = remote_slot(&t), .len = sizeof src[w], .key = peer[t.pe].key},
                                        {.addr = remote_slot(&t) + sizeof src[w], .len = 0, .key = peer[t.pe].key}};
            struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = peer[t.pe].addr, .rma_iov = rma,
                                     .rma_iov_count = F.shm && two_piece_writes ? 2 : 1};

            src[w] = pattern_put_value(me, r->k++);
            POST(&F.w_issued, fi_writemsg(F.ep, &msg, flags), "fi_writemsg");
            written[t.pe] = 1;
            serve_now_and_then(w);
        }
        if (F.shm)
            flush_written();
        else
            wait_cntr(F.wcntr, F.w_issued, "waiting for a window of puts");
    }
}

/* Elsewhere: one atomic message of up to adds_per_message adds to one process
 * (a run of the stream to the same process, as a SHMEM may gather them),
 * FI_INJECT | FI_DELIVERY_COMPLETE, on the write counter. */
static void send_adds(const struct fi_rma_ioc *rma, int count, int pe)
{
    static const uint64_t ones[GATHER_MAX] = {1, 1, 1, 1, 1, 1, 1, 1};
    struct fi_ioc ioc[GATHER_MAX];
    struct fi_msg_atomic msg = {.msg_iov = ioc, .iov_count = (size_t)count, .addr = peer[pe].addr, .rma_iov = rma,
                                .rma_iov_count = (size_t)count, .datatype = FI_UINT64, .op = FI_SUM};

    for (int i = 0; i < count; i++)
        ioc[i] = (struct fi_ioc){.addr = (void *)&ones[i], .count = 1};
    POST(&F.w_issued, fi_atomicmsg(F.ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_atomicmsg");
}

/* shm: fi_inject_atomic (no completion flag; the operand copied into the
 * target's queue at the post), then one flush; its delivery-complete
 * atomics are corrupted when pipelined (libfabric 1.17). */
static void add_batch(void *arg, long n)
{
    static const uint64_t one = 1;
    struct pattern_run *r = arg;
    uint64_t mask = r->nslots - 1;
    struct fi_rma_ioc run[GATHER_MAX];
    int in_run = 0, run_pe = -1;

    for (long i = 0; i < n; i += r->window) {
        for (int w = 0; w < r->window; w++) {
            struct pattern_target t = pattern_target(me, nprocs, mask, r->k++);

            if (F.shm) {
                POST(&F.w_issued,
                     fi_inject_atomic(F.ep, &one, 1, peer[t.pe].addr, remote_slot(&t), peer[t.pe].key, FI_UINT64,
                                      FI_SUM),
                     "fi_inject_atomic");
                written[t.pe] = 1;
                serve_now_and_then(w);
                continue;
            }
            if (in_run && (t.pe != run_pe || in_run == adds_per_message)) {
                send_adds(run, in_run, run_pe);
                in_run = 0;
            }
            serve_now_and_then(w);
            run[in_run++] = (struct fi_rma_ioc){.addr = remote_slot(&t), .count = 1, .key = peer[t.pe].key};
            run_pe = t.pe;
        }
        if (F.shm) {
            flush_written();
        } else {
            if (in_run)
                send_adds(run, in_run, run_pe);
            in_run = 0;
            wait_cntr(F.wcntr, F.w_issued, "waiting for a window of adds");
        }
    }
}

/* ---- one process's life ---- */

static struct pattern_options options = PATTERN_OPTIONS_DEFAULT;

static void skip_all(const char *why)
{
    const char *p = getenv("FI_PROVIDER");

    printf("{\"bench\":\"hw_ofi_random\",\"op\":\"all\",\"npes\":%d,\"provider\":\"%s\",\"skip\":\"%s\"}\n", nprocs,
           p ? p : "", why);
    fflush(stdout);
}

static void skip_row(const char *op, const char *why)
{
    if (me == 0) {
        printf("{\"bench\":\"hw_ofi_random\",\"op\":\"%s\",\"npes\":%d,\"provider\":\"%s\",\"skip\":\"%s\"}\n", op,
               nprocs, F.info->fabric_attr->prov_name, why);
        fflush(stdout);
    }
}

static int process_main(const struct bench_args *a, long cores)
{
    struct pattern_group g = {me, nprocs, group_barrier, group_allgather};
    struct pattern_run r;
    struct card mine;
    char extra[512], add_method[160];
    const char *p = getenv("FI_PROVIDER");
    int offered, all_offered;

    if (!crowded)
        bench_pin_cpu((int)(me % cores));
    memset(&r, 0, sizeof r);
    r.g = &g;
    r.quick = a->quick;
    r.budget_ns = pattern_budget_ns(&options, a->budget_ns);
    r.bench = "hw_ofi_random";
    r.nslots = pattern_slots_within(options.table_mib);
    r.table = bench_alloc_private(r.nslots * sizeof *r.table);
    r.scratch = bench_alloc_private(r.nslots * sizeof *r.scratch);
    pattern_fill_initial(r.table, r.nslots, me);

    /* Everyone learns whether everyone has an endpoint before anyone waits
     * on libfabric. */
    offered = open_endpoint(&mine, r.table, r.nslots * sizeof *r.table);
    {
        char flags[MAX_PROCS];
        char o = (char)offered;
        allgather_bytes(&o, 1, flags);
        all_offered = 1;
        for (int i = 0; i < nprocs; i++)
            all_offered &= flags[i];
    }
    if (!all_offered) {
        if (me == 0)
            skip_all("no RDM provider with FI_RMA|FI_ATOMIC and mr_mode VIRT_ADDR|ALLOCATED|PROV_KEY");
        close_fabric();
        return 0;
    }
    allgather_bytes(&mine, sizeof mine, cards);
    connect_all();

    snprintf(extra, sizeof extra,
             "\"provider\":\"%s\",\"prov_name\":\"%s\",\"inject_size\":%zu,\"mr_mode\":\"0x%x\","
             "\"progress\":\"%s\",\"threading\":\"%s\",\"delivery_complete_default\":%s,\"oversubscribed\":%s",
             p && *p ? p : F.info->fabric_attr->prov_name, F.info->fabric_attr->prov_name, F.inject,
             (unsigned)F.info->domain_attr->mr_mode,
             F.info->domain_attr->data_progress == FI_PROGRESS_MANUAL ? "manual" : "auto",
             F.thread_domain ? "domain" : "provider default", F.dc_default ? "true" : "false",
             crowded ? "true" : "false");
    r.extra = extra;

    pattern_get_row(&r, "random_g", get_batch,
                    F.shm ? "\"method\":\"fi_readmsg(flags 0): by cross-memory attach, then the read counter\""
                          : "\"method\":\"fi_read, then the read counter\"");
    if (F.shm && !atomic_ok(1, FI_ATOMIC_READ)) {
        skip_row("random_put_w64", "provider has no FI_ATOMIC_READ on FI_UINT64 to complete posted writes");
        skip_row("random_put_w1024", "provider has no FI_ATOMIC_READ on FI_UINT64 to complete posted writes");
    } else {
        const char *put_method =
            F.shm ? (two_piece_writes
                         ? "\"method\":\"fi_writemsg(FI_INJECT) into the target's queue (two pieces), "
                           "then FI_ATOMIC_READ to each process written\""
                         : "\"method\":\"fi_writemsg(FI_INJECT), then FI_ATOMIC_READ to each process written\"")
                  : "\"method\":\"fi_writemsg(FI_INJECT|FI_DELIVERY_COMPLETE), then the write counter\"";
        pattern_put_row(&r, "random_put_w64", put_batch, 64, put_method);
        pattern_put_row(&r, "random_put_w1024", put_batch, 1024, put_method);
    }
    snprintf(add_method, sizeof add_method,
             "\"method\":\"fi_atomicmsg(FI_INJECT|FI_DELIVERY_COMPLETE) of up to %d adds to one process, then the "
             "write counter\"",
             adds_per_message);
    if (!atomic_ok(0, FI_SUM) || (F.shm && !atomic_ok(1, FI_ATOMIC_READ))) {
        skip_row("random_add", "provider has no FI_SUM (or FI_ATOMIC_READ) on FI_UINT64");
    } else {
        pattern_add_row(&r, "random_add", add_batch, PATTERN_ADD_WINDOW,
                        F.shm ? "\"method\":\"fi_inject_atomic, then FI_ATOMIC_READ to each process written\""
                              : add_method);
    }
    group_barrier(); /* nobody closes while another still reads its table */
    close_fabric();
    free(r.table);
    free(r.scratch);
    return r.wrong;
}

static int own_option(int argc, char **argv, int i)
{
    int took = ofi_option(argc, argv, i);

    if (!took)
        took = pattern_option(&options, argc, argv, i);
    if (took || i + 1 >= argc)
        return took;
    if (strcmp(argv[i], "--np"))
        return 0;
    nprocs = atoi(argv[i + 1]);
    return 2;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int st;

    bench_parse_args_own(argc, argv, &a, 8, 8, own_option);
    if (nprocs < 2 || nprocs > MAX_PROCS) {
        fprintf(stderr, "hw_ofi_random: --np must be 2 to %d\n", MAX_PROCS);
        return 2;
    }
    if (cores < 1)
        cores = 1;
    crowded = nprocs > cores;
    for (int r = 0; r < MAX_PROCS; r++)
        child_sock[r] = -1;

    catch_signals(on_signal);
    me = fork_processes(nprocs, child_sock, child_pid, &root_sock);
    if (me > 0)
        _exit(process_main(&a, cores));
    st = process_main(&a, cores);
    for (int r = 1; r < nprocs; r++) {
        close(child_sock[r]);
        child_sock[r] = -1;
    }
    if (reap_children(timeout_ns)) {
        fprintf(stderr, "hw_ofi_random: a process did not end cleanly\n");
        st = 1;
    }
    return st;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/hw_ofi.c — the raw libfabric bound of the network path: what any
 * libfabric-based OpenSHMEM could at best do on a given provider. Plain C
 * and libfabric, no PMIx, no SHMEM library.
 *
 * The program forks. The parent is the initiator (it times and prints), the
 * child the target: it owns a registered region (one 64-bit word for the
 * atomics, then a data buffer) and does nothing but drive libfabric's
 * progress (fi_cq_read in a loop: tcp;ofi_rxm and shm have manual progress),
 * as a SHMEM PE waiting in a barrier would. Endpoint addresses (fi_getname)
 * and the region's address and key go over a socketpair. The bring-up and
 * the checked calls are hw_ofi_random.c's too (hw_ofi_common.h).
 *
 * The endpoint is asked for the way a SHMEM would ask: RDM, FI_RMA |
 * FI_ATOMIC, mr_mode FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY
 * (whatever subset the provider answers is honoured), FI_DELIVERY_COMPLETE
 * as the default transmit op flag (dropped, and said so in every row, if the
 * provider refuses it), FI_THREAD_DOMAIN (one thread per process; unspecified
 * if refused). Completion is counted: a write counter (FI_WRITE) and a read
 * counter (FI_READ) are bound to the endpoint, plus a CQ with selective
 * completion that only ever holds errors.
 *
 * Rows (2 processes, pinned to cores 0 and 1 when there are two):
 *   put       one write + wait for the write counter: a completed put.
 *             Sizes <= inject_size are fi_writemsg(FI_INJECT |
 *             FI_DELIVERY_COMPLETE) (a plain fi_inject_write may be counted
 *             complete once buffered); larger ones fi_write (with the
 *             default op flag) or fi_writemsg(FI_DELIVERY_COMPLETE).
 *   get       fi_read + wait for the read counter.
 *   fetch_add fi_fetch_atomic(FI_SUM, FI_UINT64) + wait for the read counter.
 *   add_nq    adds back to back, then one wait for the counter (the bound of
 *             a SHMEM's non-fetching AMOs left to quiet): fi_atomicmsg(
 *             FI_INJECT | FI_DELIVERY_COMPLETE) on the write counter; on
 *             shm fetching adds into a discarded word on the read counter,
 *             since its delivery-complete non-fetching atomics corrupt it
 *             when pipelined (libfabric 1.17; docs/performance.md,
 *             "Platform facts").
 *   add_posted (shm only) adds posted with no completion flag, back to
 *             back, then one FI_ATOMIC_READ that shm serves after them: the
 *             adds known applied, the way Shoal and SOS post them on shm.
 *   add       fi_atomic(FI_SUM, FI_UINT64) + wait for the write counter (a
 *             completed non-fetching AMO).
 *   put_bw / get_bw   1 MiB, a window of outstanding fi_write / fi_read,
 *             then wait for the counter (like rma_bw's nbi rows).
 *   put_rate  8-byte puts in windows (--window), Mop/s: the bound of
 *             rma_bw's put_rate (8 B nbi puts + quiet).
 * Every put size is read back and compared, every fetch-add checks the
 * value it fetched (a mismatch ends the program with an error), and the adds
 * are counted in the word (a provider that loses some gets a skip row with
 * the reason instead of a figure). Timing (common.h): median over batches,
 * after a warm-up of 50 ms at least.
 *
 * Output: one JSON line per row (common.h), e.g.
 *   {"bench":"hw_ofi","op":"put","size":8,"npes":2,"metric":"lat_ns","value":12.3,"provider":"tcp",...}
 *
 *   hw_ofi [--provider NAME] [--quick] [--sizes a,b,c] [--budget-ms X]
 *          [--timeout S] [--window W]
 *
 * --provider sets FI_PROVIDER (libfabric's own filter) before libfabric is
 * first called, which is how bench/run.py chooses Shoal's provider too;
 * without it FI_PROVIDER from the environment applies, else the first RDM
 * provider offered (udp;ofi_rxd skipped). Every wait has a deadline
 * (--timeout, default 20 s): past it the program says what it was waiting
 * for and exits 1, after ending the other process. Everything is closed
 * with fi_close, so the shm provider's files in /dev/shm go away; on a
 * signal or a forced exit the file of each endpoint is unlinked by name.
 */
#include "hw_ofi_common.h" /* first: common.h defines _GNU_SOURCE */

#include <poll.h>

#define DATA_OFF 4096          /* the data buffer starts one page into the region */
#define BW_SIZE ((size_t)1 << 20)
#define WINDOW_DEFAULT BENCH_BACK_TO_BACK /* rma_bw's window */

static struct ofi_peer peer;   /* the other process */
static const char *role = "initiator";
static int is_parent = 1;
static int sock = -1;
static pid_t child = -1;
static pid_t parent_pid;
static volatile sig_atomic_t failing;
/* The /dev/shm file of the other process's shm endpoint, unlinked when it
 * could not fi_close (killed). */
static char peer_shm[SHM_PATH_MAX];

static void on_signal(int sig)
{
    (void)sig;
    if (own_shm[0])
        unlink(own_shm);   /* async-signal-safe; the name is "/dev/shm/..." */
    /* The target, told by PR_SET_PDEATHSIG that the initiator died (killed,
     * so it could not clean up): its file is nobody's now. */
    if (!is_parent && getppid() != parent_pid && peer_shm[0])
        unlink(peer_shm);
    _exit(1);
}

/* End the other process (the target, from the initiator): closing the
 * socket tells it to clean up and go; past a deadline it is killed and its
 * shm file unlinked. */
static int reap_child(double wait_ns)
{
    int status = 0, waited;

    if (child <= 0)
        return 0;
    waited = wait_or_kill(child, bench_now_ns(), wait_ns, "hw_ofi: the target", &status);
    child = -1;
    if (!waited)
        return 1;
    /* Gone: a file of its endpoint still there was left by a target that
     * could not fi_close (killed), and is nobody's now. */
    if (peer_shm[0])
        unlink(peer_shm);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (failing)
        _exit(1);
    failing = 1;
    fprintf(stderr, "hw_ofi (%s, provider %s): ", role, F.info ? F.info->fabric_attr->prov_name : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (sock >= 0) {
        close(sock); /* the other side sees EOF */
        sock = -1;
    }
    if (is_parent)
        reap_child(5e9);
    /* fi_close of an endpoint with operations in flight may itself get
     * stuck: the alarm unlinks our shm file and exits. */
    alarm(5);
    close_fabric();
    exit(1);
}

/* ---- waiting ---- */

/* A counter read drives some providers' progress too. */
static inline void retry_pause(unsigned tries)
{
    (void)tries;
    (void)fi_cntr_read(F.wcntr);
}

static inline void wait_cntr(struct fid_cntr *c, uint64_t target, const char *what)
{
    unsigned spins = 0;
    double t0 = 0;

    while (fi_cntr_read(c) < target) {
        if ((++spins & SPIN_CHECK) == 0) {
            fail_on_counter_error(c, what);
            progress();
            deadline(&t0, what);
        }
    }
}

/* ---- the socket ---- */

static void xread(void *buf, size_t n, const char *what)
{
    char *p = buf;
    double t0 = bench_now_ns();

    while (n) {
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        double left = timeout_ns - (bench_now_ns() - t0);
        int r;
        ssize_t got;

        if (left <= 0)
            fail("no answer from the other process for %.0f s (%s)", timeout_ns / 1e9, what);
        r = poll(&pfd, 1, (int)(left / 1e6) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        got = read(sock, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            fail("the other process went away (%s)", what);
        p += got;
        n -= (size_t)got;
    }
}

/* Both processes: the endpoint (and `region` registered, when given), then
 * each learns the other's card. */
static void bring_up(void *region, size_t region_len)
{
    struct card mine, other;

    if (!open_fabric(&mine, region, region_len, 2)) {
        /* Not a failure of this program: nothing to measure here. The
         * initiator says so; both end with status 0. */
        if (is_parent) {
            const char *p = getenv("FI_PROVIDER");
            printf("{\"bench\":\"hw_ofi\",\"op\":\"all\",\"npes\":2,\"provider\":\"%s\",\"skip\":"
                   "\"no RDM provider with FI_RMA|FI_ATOMIC and mr_mode VIRT_ADDR|ALLOCATED|PROV_KEY%s%s\"}\n",
                   p ? p : "", p ? " under FI_PROVIDER=" : "", p ? p : "");
            fflush(stdout);
            close(sock);
            sock = -1;
            exit(reap_child(timeout_ns));
        }
        _exit(0);
    }
    send_all(sock, &mine, sizeof mine);
    xread(&other, sizeof other, "exchanging addresses");
    connect_peer(&other, is_parent ? 1 : 0, &peer);
    shm_path(&other, peer_shm);
}

/* ---- the target ---- */

static int serve(void)
{
    unsigned spins = 0;
    double last = bench_now_ns();

    for (;;) {
        progress();
        if ((++spins & 1023) == 0) {
            char c[64];
            ssize_t r = recv(sock, c, sizeof c, MSG_DONTWAIT);

            if (r > 0) {
                if (memchr(c, 'q', (size_t)r))
                    return 0;
                last = bench_now_ns(); /* heartbeats: a new row starts */
            } else if (r == 0) {
                fprintf(stderr, "hw_ofi (target): the initiator went away\n");
                return 1;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                fprintf(stderr, "hw_ofi (target): recv: %s\n", strerror(errno));
                return 1;
            } else if (bench_now_ns() - last > 3 * timeout_ns) {
                fprintf(stderr, "hw_ofi (target): no word from the initiator for %.0f s\n", 3 * timeout_ns / 1e9);
                return 1;
            }
        }
    }
}

static int target_main(size_t max, long cores)
{
    size_t region_len = DATA_OFF + max;
    char *region;
    int rc;

    role = "target";
    is_parent = 0;
    if (cores >= 2)
        bench_pin_cpu(1);
    region = bench_alloc_private(region_len);
    memset(region, 0, DATA_OFF); /* the atomic word starts at 0 */
    bring_up(region, region_len);
    rc = serve();
    close_fabric();
    free(region);
    close(sock);
    return rc;
}

/* ---- the initiator's rows ---- */

struct op {
    char *src, *dst;          /* private buffers */
    size_t size;
    int window;
    uint64_t expect;          /* the target's word before the next fetch-add */
    long bad;                 /* fetch-adds that fetched an unexpected value */
};

static inline uint64_t data_addr(void)
{
    return peer.base + DATA_OFF;
}

static inline void post_put(struct op *o)
{
    if (o->size <= F.inject) {
        struct iovec iov = {.iov_base = o->src, .iov_len = o->size};
        struct fi_rma_iov rma = {.addr = data_addr(), .len = o->size, .key = peer.key};
        struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = peer.addr, .rma_iov = &rma,
                                 .rma_iov_count = 1};
        POST(&F.w_issued, fi_writemsg(F.ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_writemsg(FI_INJECT)");
    } else if (F.dc_default) {
        POST(&F.w_issued, fi_write(F.ep, o->src, o->size, NULL, peer.addr, data_addr(), peer.key, NULL), "fi_write");
    } else {
        struct iovec iov = {.iov_base = o->src, .iov_len = o->size};
        struct fi_rma_iov rma = {.addr = data_addr(), .len = o->size, .key = peer.key};
        struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = peer.addr, .rma_iov = &rma,
                                 .rma_iov_count = 1};
        POST(&F.w_issued, fi_writemsg(F.ep, &msg, FI_DELIVERY_COMPLETE), "fi_writemsg");
    }
}

static inline void post_get(struct op *o)
{
    POST(&F.r_issued, fi_read(F.ep, o->dst, o->size, NULL, peer.addr, data_addr(), peer.key, NULL), "fi_read");
}

static void put_batch(void *arg, long n)
{
    struct op *o = arg;
    for (long i = 0; i < n; i++) {
        post_put(o);
        wait_cntr(F.wcntr, F.w_issued, "waiting for a put to complete");
    }
}

static void get_batch(void *arg, long n)
{
    struct op *o = arg;
    for (long i = 0; i < n; i++) {
        post_get(o);
        wait_cntr(F.rcntr, F.r_issued, "waiting for a get to complete");
    }
}

static void fetch_add_batch(void *arg, long n)
{
    struct op *o = arg;
    static const uint64_t one = 1;
    uint64_t res;

    for (long i = 0; i < n; i++) {
        POST(&F.r_issued,
             fi_fetch_atomic(F.ep, &one, 1, NULL, &res, NULL, peer.addr, peer.base, peer.key, FI_UINT64, FI_SUM, NULL),
             "fi_fetch_atomic");
        wait_cntr(F.rcntr, F.r_issued, "waiting for a fetch-add to complete");
        o->bad += res != o->expect;
        o->expect = res + 1;
    }
}

static void add_batch(void *arg, long n)
{
    struct op *o = arg;
    static const uint64_t one = 1;

    for (long i = 0; i < n; i++) {
        POST(&F.w_issued, fi_atomic(F.ep, &one, 1, NULL, peer.addr, peer.base, peer.key, FI_UINT64, FI_SUM, NULL),
             "fi_atomic");
        wait_cntr(F.wcntr, F.w_issued, "waiting for an add to complete");
        o->expect++;
    }
}

static void add_nq_batch(void *arg, long n)
{
    struct op *o = arg;
    static const uint64_t one = 1;
    static uint64_t discard;

    for (long i = 0; i < n; i++) {
        if (F.shm) {
            POST(&F.r_issued,
                 fi_fetch_atomic(F.ep, &one, 1, NULL, &discard, NULL, peer.addr, peer.base, peer.key, FI_UINT64,
                                 FI_SUM, NULL),
                 "fi_fetch_atomic");
        } else {
            struct fi_ioc ioc = {.addr = (void *)&one, .count = 1};
            struct fi_rma_ioc rma = {.addr = peer.base, .count = 1, .key = peer.key};
            struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = peer.addr, .rma_iov = &rma,
                                        .rma_iov_count = 1, .datatype = FI_UINT64, .op = FI_SUM};
            POST(&F.w_issued, fi_atomicmsg(F.ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_atomicmsg");
        }
        o->expect++;
    }
    wait_cntr(F.wcntr, F.w_issued, "waiting for pipelined adds to complete");
    wait_cntr(F.rcntr, F.r_issued, "waiting for pipelined adds to complete");
}

/* add_posted (shm): what Shoal's and SOS's non-fetching adds do there:
 * fi_atomicmsg with no completion flag (explicit flags replace the
 * endpoint's default, so not delivery-complete; shm copies the operand into
 * the target's queue at the post), back to back, then one FI_ATOMIC_READ,
 * which shm serves after the adds before it: the adds are known applied. */
static uint64_t read_word(void);

static void add_posted_batch(void *arg, long n)
{
    struct op *o = arg;
    static const uint64_t one = 1;
    struct fi_ioc ioc = {.addr = (void *)&one, .count = 1};
    struct fi_rma_ioc rma = {.addr = peer.base, .count = 1, .key = peer.key};
    struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = peer.addr, .rma_iov = &rma,
                                .rma_iov_count = 1, .datatype = FI_UINT64, .op = FI_SUM};

    for (long i = 0; i < n; i++) {
        POST(&F.w_issued, fi_atomicmsg(F.ep, &msg, 0), "fi_atomicmsg");
        o->expect++;
    }
    if (read_word() != o->expect)
        o->bad++;
}

static void put_window_batch(void *arg, long n)
{
    struct op *o = arg;
    for (long i = 0; i < n;) {
        for (int w = 0; w < o->window && i < n; w++, i++)
            post_put(o);
        wait_cntr(F.wcntr, F.w_issued, "waiting for a window of puts to complete");
    }
}

static void get_window_batch(void *arg, long n)
{
    struct op *o = arg;
    for (long i = 0; i < n;) {
        for (int w = 0; w < o->window && i < n; w++, i++)
            post_get(o);
        wait_cntr(F.rcntr, F.r_issued, "waiting for a window of gets to complete");
    }
}

static char common_extra[512];
static const char *provider_label;

static void heartbeat(void)
{
    send_all(sock, "r", 1);
}

static void emit(const char *op, size_t size, const char *metric, double value, const char *more)
{
    char extra[768];

    snprintf(extra, sizeof extra, "%s%s%s", common_extra, more && *more ? "," : "", more ? more : "");
    bench_emit("hw_ofi", op, size, 2, metric, value, extra);
}

static void skip(const char *op, const char *why)
{
    printf("{\"bench\":\"hw_ofi\",\"op\":\"%s\",\"npes\":2,\"provider\":\"%s\",\"skip\":\"%s\"}\n", op,
           provider_label, why);
    fflush(stdout);
}

/* The target's word, read back with an atomic read. */
static uint64_t read_word(void)
{
    uint64_t zero = 0, v = 0;

    POST(&F.r_issued,
         fi_fetch_atomic(F.ep, &zero, 1, NULL, &v, NULL, peer.addr, peer.base, peer.key, FI_UINT64, FI_ATOMIC_READ,
                         NULL),
         "fi_fetch_atomic(FI_ATOMIC_READ)");
    wait_cntr(F.rcntr, F.r_issued, "reading the atomic word back");
    return v;
}

/* One row of adds to the peer's word: emitted only if the word ends with
 * exactly the adds made (a provider that loses updates gets a skip line). */
static void timed_adds(struct op *o, const struct bench_args *a, const char *row, void (*batch)(void *, long),
                       long min_n, const char *method)
{
    double ns;
    uint64_t got;

    o->expect = read_word();
    ns = bench_time_batches(batch, o, a->budget_ns, min_n);
    got = read_word();
    if (got != o->expect) {
        char why[160];
        snprintf(why, sizeof why, "%s lost updates: word is %llu after %llu adds", row,
                 (unsigned long long)got, (unsigned long long)o->expect);
        skip(row, why);
        return;
    }
    emit(row, 8, "lat_ns", ns, method);
}

static int initiator_main(const struct bench_args *a, size_t max, int window, long cores)
{
    struct op o;
    char more[160];
    int st;

    if (cores >= 2)
        bench_pin_cpu(0);
    memset(&o, 0, sizeof o);
    o.src = bench_alloc_private(max);
    o.dst = bench_alloc_private(max);
    bring_up(NULL, 0);

    {
        const char *p = getenv("FI_PROVIDER");
        const struct fi_info *fi = F.info;
        provider_label = p && *p ? p : fi->fabric_attr->prov_name;
        snprintf(common_extra, sizeof common_extra,
                 "\"provider\":\"%s\",\"prov_name\":\"%s\",\"inject_size\":%zu,\"mr_mode\":\"0x%x\","
                 "\"progress\":\"%s\",\"threading\":\"%s\",\"delivery_complete_default\":%s",
                 provider_label, fi->fabric_attr->prov_name, F.inject, (unsigned)fi->domain_attr->mr_mode,
                 fi->domain_attr->data_progress == FI_PROGRESS_MANUAL ? "manual" : "auto",
                 F.thread_domain ? "domain" : "provider default", F.dc_default ? "true" : "false");
    }

    /* Warm-up, 50 ms at least: the first operations set up the connection
     * (tcp;ofi_rxm connects on first use) or map the peer (shm), and the
     * scheduler takes a few tens of ms to settle two processes pinned to
     * cores that other jobs use (single puts stalled for milliseconds in
     * that time on a loaded 2-core machine). */
    o.size = 8;
    heartbeat();
    for (double t0 = bench_now_ns(); bench_now_ns() - t0 < (a->budget_ns > 50e6 ? a->budget_ns : 50e6);) {
        put_batch(&o, 8);
        get_batch(&o, 8);
    }

    for (int i = 0; i < a->n_sizes; i++) {
        size_t s = a->sizes[i];
        double ns;

        if (s == 0 || s > max)
            continue;
        o.size = s;
        for (size_t k = 0; k < s; k++)
            o.src[k] = (char)(k * 131 + s + 7);
        heartbeat();
        ns = bench_time_local(put_batch, &o, a->budget_ns);
        snprintf(more, sizeof more, "\"method\":\"%s\"",
                 s <= F.inject ? "fi_writemsg(FI_INJECT|FI_DELIVERY_COMPLETE)"
                 : F.dc_default ? "fi_write (FI_DELIVERY_COMPLETE default)"
                                : "fi_writemsg(FI_DELIVERY_COMPLETE)");
        emit("put", s, "lat_ns", ns, more);
        /* What was put must be there. */
        memset(o.dst, 0, s);
        post_get(&o);
        wait_cntr(F.rcntr, F.r_issued, "reading a put back");
        if (memcmp(o.dst, o.src, s))
            fail("a %zu-byte put did not arrive intact (read back differs)", s);
        heartbeat();
        ns = bench_time_local(get_batch, &o, a->budget_ns);
        emit("get", s, "lat_ns", ns, "\"method\":\"fi_read\"");
    }

    heartbeat();
    if (!atomic_ok(1, FI_SUM)) {
        skip("fetch_add", "provider has no fetching FI_SUM on FI_UINT64");
    } else {
        double ns;

        o.expect = read_word();
        o.bad = 0;
        ns = bench_time_local(fetch_add_batch, &o, a->budget_ns);
        if (o.bad)
            fail("%ld fetch-adds fetched a value other than the one expected", o.bad);
        emit("fetch_add", 8, "lat_ns", ns, "\"method\":\"fi_fetch_atomic(FI_SUM,FI_UINT64)\"");
    }

    heartbeat();
    if (!atomic_ok(0, FI_SUM)) {
        skip("add", "provider has no FI_SUM on FI_UINT64");
    } else {
        /* Pipelined first: on shm, the delivery-complete non-fetching
         * adds of the next row return inject buffers twice, after which
         * pipelined operations share buffers. */
        timed_adds(&o, a, "add_nq", add_nq_batch, BENCH_BACK_TO_BACK,
                   F.shm ? "\"method\":\"fi_fetch_atomic into a discarded word, back to back\""
                         : "\"method\":\"fi_atomicmsg(FI_INJECT|FI_DELIVERY_COMPLETE) back to back\"");
        if (F.shm) {
            heartbeat();
            o.bad = 0;
            timed_adds(&o, a, "add_posted", add_posted_batch, BENCH_BACK_TO_BACK,
                       "\"method\":\"fi_atomicmsg(flags 0) back to back, then one FI_ATOMIC_READ\"");
            if (o.bad)
                fail("add_posted: %ld batches read back a word without all their adds", o.bad);
        }
        heartbeat();
        timed_adds(&o, a, "add", add_batch, 1, "\"method\":\"fi_atomic(FI_SUM,FI_UINT64)\"");
    }

    o.size = BW_SIZE;
    o.window = window;
    for (size_t k = 0; k < BW_SIZE; k++)
        o.src[k] = (char)(k * 7 + 1);
    heartbeat();
    {
        double ns = bench_time_batches(put_window_batch, &o, a->budget_ns, window);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("put_bw", BW_SIZE, "bw_GBps", (double)BW_SIZE / ns, more);
    }
    heartbeat();
    {
        double ns = bench_time_batches(get_window_batch, &o, a->budget_ns, window);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("get_bw", BW_SIZE, "bw_GBps", (double)BW_SIZE / ns, more);
    }

    /* Message rate: 8-byte puts in windows of `window`, as rma_bw's put_rate. */
    o.size = 8;
    heartbeat();
    {
        double ns = bench_time_batches(put_window_batch, &o, a->budget_ns, window);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("put_rate", 8, "rate_Mops", 1e3 / ns, more);
    }

    send_all(sock, "q", 1);
    st = reap_child(timeout_ns);
    if (st)
        fprintf(stderr, "hw_ofi: the target did not end cleanly\n");
    close_fabric();
    close(sock);
    sock = -1;
    free(o.src);
    free(o.dst);
    return st;
}

static int window_arg = WINDOW_DEFAULT; /* --window */

/* Our own options; the rest are common.h's. */
static int own_option(int argc, char **argv, int i)
{
    int took = ofi_option(argc, argv, i);

    if (took || i + 1 >= argc)
        return took;
    if (strcmp(argv[i], "--window"))
        return 0;
    window_arg = atoi(argv[i + 1]);
    return 2;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t max;
    int child_sock[2] = {-1, -1};
    pid_t child_pid[2] = {-1, -1};

    bench_parse_args_own(argc, argv, &a, 8, 8, own_option);
    if (window_arg < 1)
        window_arg = 1;
    if (!a.sizes_given) {
        /* 8 B, then powers of 4 from 16 B to 1 MiB */
        a.n_sizes = 0;
        a.sizes[a.n_sizes++] = 8;
        for (size_t s = 16; s <= BW_SIZE; s *= 4)
            a.sizes[a.n_sizes++] = s;
    }
    max = bench_max_size(&a);
    if (max < BW_SIZE)
        max = BW_SIZE;

    catch_signals(on_signal);
    parent_pid = getpid();
    if (fork_processes(2, child_sock, child_pid, &sock))
        _exit(target_main(max, cores));
    sock = child_sock[1];
    child = child_pid[1];
    return initiator_main(&a, max, window_arg, cores);
}

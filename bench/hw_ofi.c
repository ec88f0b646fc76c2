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
 * and the region's address and key go over a socketpair.
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
#include "common.h" /* first: it defines _GNU_SOURCE */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define ADDR_MAX 256
#define DATA_OFF 4096          /* the data buffer starts one page into the region */
#define BW_SIZE ((size_t)1 << 20)
#define WINDOW_DEFAULT 64      /* rma_bw's window */
#ifndef SPIN_CHECK
#define SPIN_CHECK 255         /* spins between deadline / error checks (mask) */
#endif

/* What each process tells the other. */
struct card {
    uint32_t addrlen;
    uint8_t addr[ADDR_MAX];
    uint64_t base;             /* remote address of the region's start (0 without FI_MR_VIRT_ADDR) */
    uint64_t key;
};

static struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *wcntr, *rcntr;
    struct fid_ep *ep;
    struct fid_mr *mr;
    fi_addr_t peer;
    uint64_t rbase, rkey;      /* the target's region */
    uint64_t w_issued, r_issued;
    size_t inject;
    int dc_default;            /* FI_DELIVERY_COMPLETE accepted as the default op flag */
    int thread_domain;         /* FI_THREAD_DOMAIN accepted */
} F;

static const char *role = "initiator";
static int is_parent = 1;
static int sock = -1;
static pid_t child = -1;
static pid_t parent_pid;
static double timeout_ns = 20e9;
static volatile sig_atomic_t failing;
/* /dev/shm files of the shm provider's endpoints ("fi_shm://NAME" ->
 * "/NAME"), unlinked by name when a process cannot fi_close. */
static char own_shm[ADDR_MAX + 2], peer_shm[ADDR_MAX + 2];

static void close_fabric(void);

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

static void shm_path(const struct card *c, char *out)
{
    static const char prefix[] = "fi_shm://";
    size_t n = c->addrlen;

    out[0] = '\0';
    if (n <= sizeof prefix - 1 || n > ADDR_MAX || memcmp(c->addr, prefix, sizeof prefix - 1))
        return;
    n -= sizeof prefix - 1;
    while (n && c->addr[sizeof prefix - 1 + n - 1] == '\0')
        n--;
    snprintf(out, ADDR_MAX + 2, "/dev/shm/%.*s", (int)n, (const char *)c->addr + sizeof prefix - 1);
}

/* End the other process (the target, from the initiator): closing the
 * socket tells it to clean up and go; past a deadline it is killed and its
 * shm file unlinked. */
static int reap_child(double wait_ns)
{
    int status = 0;
    double t0 = bench_now_ns();

    if (child <= 0)
        return 0;
    for (;;) {
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child)
            break;
        if (r < 0 && errno != EINTR) {
            child = -1;
            return 1;
        }
        if (bench_now_ns() - t0 > wait_ns) {
            fprintf(stderr, "hw_ofi: the target did not exit within %.0f s; killing it\n", wait_ns / 1e9);
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            break;
        }
        usleep(2000);
    }
    child = -1;
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

/* ---- waiting, with deadlines ---- */

static void deadline(double *t0, const char *what)
{
    double now = bench_now_ns();

    if (*t0 == 0)
        *t0 = now;
    else if (now - *t0 > timeout_ns)
        fail("no progress for %.0f s while %s", timeout_ns / 1e9, what);
}

/* Reading the CQ drives a manual-progress provider; only errors arrive
 * there (selective completion, no receives posted). */
static void progress(void)
{
    struct fi_cq_entry ent;
    ssize_t n = fi_cq_read(F.cq, &ent, 1);

    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        char buf[160];

        memset(&err, 0, sizeof err);
        if (fi_cq_readerr(F.cq, &err, 0) < 1)
            fail("an operation failed (no detail available)");
        fail("an operation failed: %s (%s)", fi_strerror(err.err),
             fi_cq_strerror(F.cq, err.prov_errno, err.err_data, buf, sizeof buf));
    }
}

static inline void wait_cntr(struct fid_cntr *c, uint64_t target, const char *what)
{
    unsigned spins = 0;
    double t0 = 0;

    while (fi_cntr_read(c) < target) {
        if ((++spins & SPIN_CHECK) == 0) {
            if (fi_cntr_readerr(c) > 0) {
                progress(); /* reports the queued error entry */
                fail("an operation completed in error while %s", what);
            }
            progress();
            deadline(&t0, what);
        }
    }
}

/* Post, retrying while the provider's queues are full. */
#define POST(issued, call, what)                                                                \
    do {                                                                                        \
        ssize_t rc_;                                                                            \
        double t0_ = 0;                                                                         \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                  \
            progress();                                                                         \
            (void)fi_cntr_read(F.wcntr);                                                        \
            deadline(&t0_, "posting " what " (FI_EAGAIN)");                                     \
        }                                                                                       \
        if (rc_)                                                                                \
            fail("%s: %s", what, fi_strerror((int)-rc_));                                       \
        (*(issued))++;                                                                          \
    } while (0)

#define CHECK(call, what)                                                                       \
    do {                                                                                        \
        int rc_ = (int)(call);                                                                  \
        if (rc_)                                                                                \
            fail("%s: %s", what, fi_strerror(-rc_));                                            \
    } while (0)

/* ---- the socket ---- */

static void xwrite(const void *buf, size_t n)
{
    const char *p = buf;

    while (n) {
        ssize_t w = write(sock, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fail("write to the other process: %s", w < 0 ? strerror(errno) : "closed");
        p += w;
        n -= (size_t)w;
    }
}

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

/* ---- bring-up and tear-down ---- */

static struct fi_info *ask(int dc, int thread_domain)
{
    struct fi_info *hints = fi_allocinfo(), *all = NULL, *pick = NULL;
    const char *explicit_prov = getenv("FI_PROVIDER");
    int rc;

    if (!hints)
        fail("fi_allocinfo: out of memory");
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = 0; /* no FI_CONTEXT: operations carry no context */
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    if (thread_domain)
        hints->domain_attr->threading = FI_THREAD_DOMAIN;
    if (dc)
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &all);
    fi_freeinfo(hints);
    if (rc || !all)
        return NULL;
    for (struct fi_info *f = all; f && !pick; f = f->next)
        /* udp;ofi_rxd hangs on libfabric 1.17: only when asked for by name. */
        if (explicit_prov || !strstr(f->fabric_attr->prov_name, "ofi_rxd"))
            pick = f;
    pick = pick ? fi_dupinfo(pick) : NULL;
    fi_freeinfo(all);
    return pick;
}

static void open_fabric(struct card *mine, void *region, size_t region_len)
{
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = 2};
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    size_t len = sizeof mine->addr;

    /* Best first: delivery-complete default and a lock-free domain; give up
     * only what the provider refuses. */
    static const int tries[][2] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0] && !F.info; i++) {
        F.info = ask(tries[i][0], tries[i][1]);
        F.dc_default = tries[i][0];
        F.thread_domain = tries[i][1];
    }
    if (!F.info) {
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
    F.inject = F.info->tx_attr->inject_size;
    CHECK(fi_fabric(F.info->fabric_attr, &F.fabric, NULL), "fi_fabric");
    CHECK(fi_domain(F.fabric, F.info, &F.domain, NULL), "fi_domain");
    CHECK(fi_av_open(F.domain, &ava, &F.av, NULL), "fi_av_open");
    CHECK(fi_cq_open(F.domain, &cqa, &F.cq, NULL), "fi_cq_open");
    CHECK(fi_cntr_open(F.domain, &ca, &F.wcntr, NULL), "fi_cntr_open(write)");
    CHECK(fi_cntr_open(F.domain, &ca, &F.rcntr, NULL), "fi_cntr_open(read)");
    CHECK(fi_endpoint(F.domain, F.info, &F.ep, NULL), "fi_endpoint");
    CHECK(fi_ep_bind(F.ep, &F.av->fid, 0), "fi_ep_bind(av)");
    CHECK(fi_ep_bind(F.ep, &F.cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION), "fi_ep_bind(cq)");
    CHECK(fi_ep_bind(F.ep, &F.wcntr->fid, FI_WRITE), "fi_ep_bind(write counter)");
    CHECK(fi_ep_bind(F.ep, &F.rcntr->fid, FI_READ), "fi_ep_bind(read counter)");
    CHECK(fi_enable(F.ep), "fi_enable");

    memset(mine, 0, sizeof *mine);
    CHECK(fi_getname(&F.ep->fid, mine->addr, &len), "fi_getname");
    mine->addrlen = (uint32_t)len;
    shm_path(mine, own_shm);

    if (region) {
        uint64_t mode = F.info->domain_attr->mr_mode;
        /* The requested key (1) counts only without FI_MR_PROV_KEY. */
        CHECK(fi_mr_reg(F.domain, region, region_len, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1, 0, &F.mr, NULL),
              "fi_mr_reg");
        if (mode & FI_MR_ENDPOINT) {
            CHECK(fi_mr_bind(F.mr, &F.ep->fid, 0), "fi_mr_bind");
            CHECK(fi_mr_enable(F.mr), "fi_mr_enable");
        }
        mine->key = fi_mr_key(F.mr);
        /* Without FI_MR_VIRT_ADDR a target address is an offset into the region. */
        mine->base = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)region : 0;
    }
}

static void close_one(struct fid *f)
{
    if (f)
        fi_close(f);
}

static void close_fabric(void)
{
    /* The endpoint first: it holds the others. */
    close_one(F.ep ? &F.ep->fid : NULL);
    close_one(F.mr ? &F.mr->fid : NULL);
    close_one(F.wcntr ? &F.wcntr->fid : NULL);
    close_one(F.rcntr ? &F.rcntr->fid : NULL);
    close_one(F.cq ? &F.cq->fid : NULL);
    close_one(F.av ? &F.av->fid : NULL);
    close_one(F.domain ? &F.domain->fid : NULL);
    close_one(F.fabric ? &F.fabric->fid : NULL);
    F.ep = NULL;
    F.mr = NULL;
    F.wcntr = F.rcntr = NULL;
    F.cq = NULL;
    F.av = NULL;
    F.domain = NULL;
    F.fabric = NULL;
    if (F.info)
        fi_freeinfo(F.info);
    F.info = NULL;
    /* fi_close removed the file; make sure, in case the provider did not. */
    if (own_shm[0])
        unlink(own_shm);
    own_shm[0] = '\0';
}

static void connect_peer(const struct card *peer)
{
    int rc = fi_av_insert(F.av, peer->addr, 1, &F.peer, 0, NULL);

    if (rc != 1)
        fail("fi_av_insert: %s", rc < 0 ? fi_strerror(-rc) : "address not inserted");
    F.rbase = peer->base;
    F.rkey = peer->key;
    shm_path(peer, peer_shm);
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
    struct card mine, peer;
    int rc;

    role = "target";
    is_parent = 0;
    (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent_pid)
        _exit(1); /* the initiator is already gone */
    if (cores >= 2)
        bench_pin_cpu(1);
    region = bench_alloc_private(region_len);
    memset(region, 0, DATA_OFF); /* the atomic word starts at 0 */
    open_fabric(&mine, region, region_len);
    xwrite(&mine, sizeof mine);
    xread(&peer, sizeof peer, "exchanging addresses");
    connect_peer(&peer);
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
    return F.rbase + DATA_OFF;
}

static inline void post_put(struct op *o)
{
    if (o->size <= F.inject) {
        struct iovec iov = {.iov_base = o->src, .iov_len = o->size};
        struct fi_rma_iov rma = {.addr = data_addr(), .len = o->size, .key = F.rkey};
        struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = F.peer, .rma_iov = &rma,
                                 .rma_iov_count = 1};
        POST(&F.w_issued, fi_writemsg(F.ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_writemsg(FI_INJECT)");
    } else if (F.dc_default) {
        POST(&F.w_issued, fi_write(F.ep, o->src, o->size, NULL, F.peer, data_addr(), F.rkey, NULL), "fi_write");
    } else {
        struct iovec iov = {.iov_base = o->src, .iov_len = o->size};
        struct fi_rma_iov rma = {.addr = data_addr(), .len = o->size, .key = F.rkey};
        struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = F.peer, .rma_iov = &rma,
                                 .rma_iov_count = 1};
        POST(&F.w_issued, fi_writemsg(F.ep, &msg, FI_DELIVERY_COMPLETE), "fi_writemsg");
    }
}

static inline void post_get(struct op *o)
{
    POST(&F.r_issued, fi_read(F.ep, o->dst, o->size, NULL, F.peer, data_addr(), F.rkey, NULL), "fi_read");
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
             fi_fetch_atomic(F.ep, &one, 1, NULL, &res, NULL, F.peer, F.rbase, F.rkey, FI_UINT64, FI_SUM, NULL),
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
        POST(&F.w_issued, fi_atomic(F.ep, &one, 1, NULL, F.peer, F.rbase, F.rkey, FI_UINT64, FI_SUM, NULL),
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
    int by_fetch = !strcmp(F.info->fabric_attr->prov_name, "shm");

    for (long i = 0; i < n; i++) {
        if (by_fetch) {
            POST(&F.r_issued,
                 fi_fetch_atomic(F.ep, &one, 1, NULL, &discard, NULL, F.peer, F.rbase, F.rkey, FI_UINT64, FI_SUM,
                                 NULL),
                 "fi_fetch_atomic");
        } else {
            struct fi_ioc ioc = {.addr = (void *)&one, .count = 1};
            struct fi_rma_ioc rma = {.addr = F.rbase, .count = 1, .key = F.rkey};
            struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = F.peer, .rma_iov = &rma,
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
    struct fi_rma_ioc rma = {.addr = F.rbase, .count = 1, .key = F.rkey};
    struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = F.peer, .rma_iov = &rma,
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
    xwrite("r", 1);
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
         fi_fetch_atomic(F.ep, &zero, 1, NULL, &v, NULL, F.peer, F.rbase, F.rkey, FI_UINT64, FI_ATOMIC_READ, NULL),
         "fi_fetch_atomic(FI_ATOMIC_READ)");
    wait_cntr(F.rcntr, F.r_issued, "reading the atomic word back");
    return v;
}

static int atomic_ok(int fetching, enum fi_op op)
{
    size_t count = 0;
    int rc = fetching ? fi_fetch_atomicvalid(F.ep, FI_UINT64, op, &count)
                      : fi_atomicvalid(F.ep, FI_UINT64, op, &count);
    return rc == 0 && count >= 1;
}

/* One row of adds to the peer's word: emitted only if the word ends with
 * exactly the adds made (a provider that loses updates gets a skip line). */
static void timed_adds(struct op *o, const struct bench_args *a, const char *row, void (*batch)(void *, long),
                       const char *method)
{
    double ns;
    uint64_t got;

    o->expect = read_word();
    ns = bench_time_local(batch, o, a->budget_ns);
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
    struct card mine, peer;
    struct op o;
    char more[160];
    int st;

    if (cores >= 2)
        bench_pin_cpu(0);
    memset(&o, 0, sizeof o);
    o.src = bench_alloc_private(max);
    o.dst = bench_alloc_private(max);
    open_fabric(&mine, NULL, 0);
    xwrite(&mine, sizeof mine);
    xread(&peer, sizeof peer, "exchanging addresses");
    connect_peer(&peer);

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
        timed_adds(&o, a, "add_nq", add_nq_batch,
                   strcmp(F.info->fabric_attr->prov_name, "shm")
                       ? "\"method\":\"fi_atomicmsg(FI_INJECT|FI_DELIVERY_COMPLETE) back to back\""
                       : "\"method\":\"fi_fetch_atomic into a discarded word, back to back\"");
        if (!strcmp(F.info->fabric_attr->prov_name, "shm")) {
            heartbeat();
            o.bad = 0;
            timed_adds(&o, a, "add_posted", add_posted_batch,
                       "\"method\":\"fi_atomicmsg(flags 0) back to back, then one FI_ATOMIC_READ\"");
            if (o.bad)
                fail("add_posted: %ld batches read back a word without all their adds", o.bad);
        }
        heartbeat();
        timed_adds(&o, a, "add", add_batch, "\"method\":\"fi_atomic(FI_SUM,FI_UINT64)\"");
    }

    o.size = BW_SIZE;
    o.window = window;
    for (size_t k = 0; k < BW_SIZE; k++)
        o.src[k] = (char)(k * 7 + 1);
    heartbeat();
    {
        double ns = bench_time_local(put_window_batch, &o, a->budget_ns);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("put_bw", BW_SIZE, "bw_GBps", (double)BW_SIZE / ns, more);
    }
    heartbeat();
    {
        double ns = bench_time_local(get_window_batch, &o, a->budget_ns);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("get_bw", BW_SIZE, "bw_GBps", (double)BW_SIZE / ns, more);
    }

    /* Message rate: 8-byte puts in windows of `window`, as rma_bw's put_rate. */
    o.size = 8;
    heartbeat();
    {
        double ns = bench_time_local(put_window_batch, &o, a->budget_ns);
        snprintf(more, sizeof more, "\"lat_ns\":%.6g,\"window\":%d", ns, window);
        emit("put_rate", 8, "rate_Mops", 1e3 / ns, more);
    }

    xwrite("q", 1);
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
    if (i + 1 >= argc)
        return 0;
    if (!strcmp(argv[i], "--provider"))
        setenv("FI_PROVIDER", argv[i + 1], 1);
    else if (!strcmp(argv[i], "--timeout"))
        timeout_ns = atof(argv[i + 1]) * 1e9;
    else if (!strcmp(argv[i], "--window"))
        window_arg = atoi(argv[i + 1]);
    else
        return 0;
    return 2;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int sv[2];
    size_t max;
    struct sigaction sa;

    bench_parse_args_own(argc, argv, &a, 8, 8, own_option);
    if (window_arg < 1)
        window_arg = 1;
    if (timeout_ns <= 0)
        timeout_ns = 20e9;
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

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("hw_ofi: socketpair");
        return 1;
    }
    fflush(stdout);
    parent_pid = getpid();
    /* Fork before libfabric is touched: neither process inherits its state. */
    child = fork();
    if (child < 0) {
        perror("hw_ofi: fork");
        return 1;
    }
    if (child == 0) {
        close(sv[0]);
        sock = sv[1];
        child = -1;
        _exit(target_main(max, cores));
    }
    close(sv[1]);
    sock = sv[0];
    return initiator_main(&a, max, window_arg, cores);
}

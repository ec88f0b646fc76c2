/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/hw_ofi_common.h — what hw_ofi.c and hw_ofi_random.c (the raw
 * libfabric bounds) share: the endpoint asked for the way a SHMEM would ask,
 * with a write and a read counter and a CQ that only ever holds errors; the
 * region registered for the others; the processes forked before libfabric
 * is touched, each with a socketpair to process 0; the checked calls, every
 * wait with a deadline; and the shm provider's files in /dev/shm, which a
 * process that cannot fi_close must unlink by name. Header only, so that
 * each program still builds from its one .c file.
 *
 * The program that includes it defines
 *   fail(fmt, ...)      say what went wrong, let the other processes go,
 *                       close the fabric and exit: it never returns;
 *   retry_pause(tries)  what to do between two tries of a post that the
 *                       provider refused with FI_EAGAIN (POST), declared
 *                       before its first POST.
 */
#ifndef BENCH_HW_OFI_COMMON_H
#define BENCH_HW_OFI_COMMON_H

#include "common.h" /* first: it defines _GNU_SOURCE */

#include <errno.h>
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
#define SHM_PATH_MAX (ADDR_MAX + 16) /* "/dev/shm/" and an endpoint's name */
#ifndef SPIN_CHECK
#define SPIN_CHECK 255               /* spins between deadline and error checks (a mask) */
#endif

/* What each process tells the others. */
struct card {
    uint32_t addrlen;
    uint8_t addr[ADDR_MAX];
    uint64_t base;                   /* the region's remote address (0 without FI_MR_VIRT_ADDR) */
    uint64_t key;
};

/* A process operations go to, as this one's endpoint knows it. */
struct ofi_peer {
    fi_addr_t addr;
    uint64_t base, key;              /* its region, from its card */
};

/* This process's libfabric objects and what the provider granted. */
static struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *wcntr, *rcntr;
    struct fid_ep *ep;
    struct fid_mr *mr;
    uint64_t w_issued, r_issued;
    size_t inject;
    int dc_default;                  /* FI_DELIVERY_COMPLETE accepted as the default op flag */
    int thread_domain;               /* FI_THREAD_DOMAIN accepted */
    int shm;                         /* libfabric's shm provider, which wants its own ways */
} F;

#define TIMEOUT_DEFAULT_NS 20e9
static double timeout_ns = TIMEOUT_DEFAULT_NS; /* --timeout: how long any wait may last */
/* The /dev/shm file of this process's shm endpoint ("fi_shm://NAME" ->
 * "/dev/shm/NAME"), unlinked on a signal or a forced exit when fi_close
 * cannot run. */
static char own_shm[SHM_PATH_MAX];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --provider NAME sets FI_PROVIDER (libfabric's own filter, read when
 * libfabric is first called); --timeout S bounds every wait. Returns how
 * many words it took from argv[i] (common.h's bench_own_fn). */
static int ofi_option(int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        return 0;
    if (!strcmp(argv[i], "--provider")) {
        setenv("FI_PROVIDER", argv[i + 1], 1);
    } else if (!strcmp(argv[i], "--timeout")) {
        timeout_ns = atof(argv[i + 1]) * 1e9;
        if (timeout_ns <= 0)
            timeout_ns = TIMEOUT_DEFAULT_NS;
    } else {
        return 0;
    }
    return 2;
}

/* The file of the shm endpoint a card names, or "" for another provider. */
static void shm_path(const struct card *c, char *out)
{
    static const char prefix[] = "fi_shm://";
    size_t n = c->addrlen, p = sizeof prefix - 1;

    out[0] = '\0';
    if (n <= p || n > ADDR_MAX || memcmp(c->addr, prefix, p))
        return;
    while (n > p && c->addr[n - 1] == '\0')
        n--;
    snprintf(out, SHM_PATH_MAX, "/dev/shm/%.*s", (int)(n - p), (const char *)c->addr + p);
}

static void catch_signals(void (*handler)(int))
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL); /* fail()'s alarm, when fi_close gets stuck */
    signal(SIGPIPE, SIG_IGN);      /* a closed socket is an error returned, not a death */
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
    ssize_t n;

    if (!F.cq)
        return;
    n = fi_cq_read(F.cq, &ent, 1);
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

static void fail_on_counter_error(struct fid_cntr *c, const char *what)
{
    if (fi_cntr_readerr(c) > 0) {
        progress(); /* reports the queued error entry */
        fail("an operation completed in error while %s", what);
    }
}

/* Post, retrying while the provider's queues are full. */
#define POST(issued, call, what)                                                                \
    do {                                                                                        \
        ssize_t rc_;                                                                            \
        double t0_ = 0;                                                                         \
        unsigned tries_ = 0;                                                                    \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                  \
            progress();                                                                         \
            retry_pause(++tries_);                                                              \
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

static int atomic_ok(int fetching, enum fi_op op)
{
    size_t count = 0;
    int rc = fetching ? fi_fetch_atomicvalid(F.ep, FI_UINT64, op, &count)
                      : fi_atomicvalid(F.ep, FI_UINT64, op, &count);
    return rc == 0 && count >= 1;
}

/* ---- the processes and their sockets ---- */

/* Process 0 forks processes 1 to n-1, each with a socketpair to it, before
 * libfabric is touched: no process inherits its state. Returns this
 * process's rank; process 0 then has child_sock[r] and child_pid[r],
 * process r has *root_sock and dies with process 0 (SIGTERM). */
static int fork_processes(int n, int *child_sock, pid_t *child_pid, int *root_sock)
{
    pid_t root_pid = getpid();

    fflush(stdout); /* nothing buffered is printed twice */
    for (int r = 1; r < n; r++) {
        int sv[2];
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
            perror("socketpair");
            fail("cannot start process %d", r);
        }
        pid = fork();
        if (pid < 0) {
            perror("fork");
            close(sv[0]);
            close(sv[1]);
            fail("cannot start process %d", r);
        }
        if (pid == 0) {
            /* Only its own socket: the others' must close when they end. */
            for (int q = 1; q < r; q++)
                close(child_sock[q]);
            close(sv[0]);
            *root_sock = sv[1];
            (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != root_pid)
                _exit(1); /* process 0 is already gone */
            return r;
        }
        close(sv[1]);
        child_sock[r] = sv[0];
        child_pid[r] = pid;
    }
    return 0;
}

/* Waits for a child until t0 + wait_ns, then kills it (`who` names it in
 * the message). Returns 0 if it was not there to wait for, else 1 with its
 * status. */
static int wait_or_kill(pid_t pid, double t0, double wait_ns, const char *who, int *status)
{
    for (;;) {
        pid_t p = waitpid(pid, status, WNOHANG);

        if (p == pid)
            return 1;
        if (p < 0 && errno != EINTR)
            return 0;
        if (bench_now_ns() - t0 > wait_ns) {
            fprintf(stderr, "%s did not exit within %.0f s; killing it\n", who, wait_ns / 1e9);
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return 1;
        }
        usleep(2000);
    }
}

static void send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fail("write to another process: %s", w < 0 ? strerror(errno) : "closed");
        p += w;
        n -= (size_t)w;
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

/* The endpoint, for an AV of av_count processes, and `region` registered
 * for the others to read and write (none if NULL); `mine` is what the
 * others need to know. Returns 0 when no provider offers what is asked
 * (nothing to measure, not a failure). */
static int open_fabric(struct card *mine, void *region, size_t region_len, size_t av_count)
{
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = av_count};
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
    if (!F.info)
        return 0;
    F.inject = F.info->tx_attr->inject_size;
    F.shm = !strcmp(F.info->fabric_attr->prov_name, "shm");
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
    return 1;
}

/* Process `rank`, whose card this is, into the AV. */
static void connect_peer(const struct card *c, int rank, struct ofi_peer *p)
{
    int rc = fi_av_insert(F.av, c->addr, 1, &p->addr, 0, NULL);

    if (rc != 1)
        fail("fi_av_insert of process %d: %s", rank, rc < 0 ? fi_strerror(-rc) : "address not inserted");
    p->base = c->base;
    p->key = c->key;
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

#endif /* BENCH_HW_OFI_COMMON_H */

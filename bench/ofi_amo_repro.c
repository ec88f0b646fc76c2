/*
 * bench/ofi_amo_repro.c — minimal raw-libfabric reproducer for the wrong
 * totals of pipelined non-fetching atomics on libfabric's shm provider
 * (docs/design.md, "Non-fetching AMOs"). No SHMEM library, no second
 * process: one RDM endpoint adds to a registered word of its own (shm and
 * tcp;ofi_rxm both serve a process's own address), the way Shoal's
 * SHMEM_TRANSPORT=ofi path adds to its own PE.
 *
 *   cc -O2 bench/ofi_amo_repro.c -o /tmp/ofi_amo_repro -lfabric
 *   FI_PROVIDER=shm /tmp/ofi_amo_repro     # or FI_PROVIDER=tcp
 *
 * Each mode posts ROUNDS batches of WINDOW adds of the values 1, 2, 3, ...
 * (every operand in its own array slot, untouched until the batch has
 * completed, so operand lifetime cannot matter), waits for the counter,
 * and compares the word with the exact sum:
 *   atomic      fi_atomic(FI_SUM), FI_DELIVERY_COMPLETE as the endpoint's
 *               default op flag (what a SHMEM asks for), write counter;
 *   inject_dc   fi_atomicmsg(FI_INJECT | FI_DELIVERY_COMPLETE);
 *   fetch       fi_fetch_atomic(FI_SUM) into a scratch word, read counter;
 * each with 16 in flight, then with one in flight at a time followed by
 * 16 again (fetch first, then atomic): the damage of the one-at-a-time
 * phase shows in the next one.
 * Exit status 1 if any mode's total is wrong or the program crashes (a
 * handler names the mode), 2 if libfabric refuses a call.
 *
 * Cause on libfabric 1.17.0 (prov/shm, read in the source): a delivery-
 * complete atomic goes by the "inject" protocol, its operand copied into
 * a buffer taken from the target region's inject pool. For a non-fetching
 * atomic (op ofi_op_atomic, no SMR_RMA_REQ flag) the target returns that
 * buffer to the pool after applying it (smr_progress_inject_atomic: "if
 * (!(op_flags & SMR_RMA_REQ)) freestack_push"), and the initiator returns
 * it AGAIN when it reads the response (smr_progress_resp_entry, case
 * smr_src_inject: "if (tx_buf) freestack_push"). The pool then hands one
 * buffer to two operations in flight; the second operand overwrites the
 * first before the target reads it: wrong totals, and a corrupted free
 * list (crashes). Fetching atomics set SMR_RMA_REQ, so only the initiator
 * frees: they are correct. Without FI_DELIVERY_COMPLETE small atomics go
 * "inline" (operand inside the command) and are counted complete at post.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define WINDOW 16
#define ROUNDS 200

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *wcntr, *rcntr;
static struct fid_mr *mr;
static fi_addr_t self;
static uint64_t word, base, key, w_issued, r_issued;

#define CHECK(call)                                                                              \
    do {                                                                                         \
        int rc_ = (int)(call);                                                                   \
        if (rc_) {                                                                               \
            fprintf(stderr, "ofi_amo_repro: %s: %s\n", #call, fi_strerror(-rc_));                \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

static void progress(void)
{
    struct fi_cq_entry ent;
    if (fi_cq_read(cq, &ent, 1) == -FI_EAVAIL) {
        fprintf(stderr, "ofi_amo_repro: an operation completed in error\n");
        exit(2);
    }
}

#define POST(issued, call)                                                                       \
    do {                                                                                         \
        ssize_t rc_;                                                                             \
        while ((rc_ = (call)) == -FI_EAGAIN)                                                     \
            progress();                                                                          \
        if (rc_) {                                                                               \
            fprintf(stderr, "ofi_amo_repro: %s: %s\n", #call, fi_strerror((int)-rc_));            \
            exit(2);                                                                             \
        }                                                                                        \
        (*(issued))++;                                                                           \
    } while (0)

static void wait_cntr(struct fid_cntr *c, uint64_t n)
{
    while (fi_cntr_read(c) < n) {
        if (fi_cntr_readerr(c) > 0) {
            fprintf(stderr, "ofi_amo_repro: counter error\n");
            exit(2);
        }
        progress();
    }
}

static void setup(void)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = 1};
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    char name[256];
    size_t len = sizeof name;

    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = 0;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    printf("provider %s, libfabric %u.%u\n", info->fabric_attr->prov_name, FI_MAJOR(fi_version()),
           FI_MINOR(fi_version()));
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    CHECK(fi_av_open(domain, &ava, &av, NULL));
    CHECK(fi_cq_open(domain, &cqa, &cq, NULL));
    CHECK(fi_cntr_open(domain, &ca, &wcntr, NULL));
    CHECK(fi_cntr_open(domain, &ca, &rcntr, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(ep, &wcntr->fid, FI_WRITE));
    CHECK(fi_ep_bind(ep, &rcntr->fid, FI_READ));
    CHECK(fi_enable(ep));
    CHECK(fi_getname(&ep->fid, name, &len));
    if (fi_av_insert(av, name, 1, &self, 0, NULL) != 1) {
        fprintf(stderr, "ofi_amo_repro: fi_av_insert failed\n");
        exit(2);
    }
    CHECK(fi_mr_reg(domain, &word, sizeof word, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1, 0, &mr, NULL));
    key = fi_mr_key(mr);
    base = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)&word : 0;
    fi_freeinfo(info);
    fi_freeinfo(hints);
}

static void teardown(void)
{
    fi_close(&ep->fid);
    fi_close(&mr->fid);
    fi_close(&wcntr->fid);
    fi_close(&rcntr->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
}

enum mode { ATOMIC, INJECT_DC, FETCH };

/* ROUNDS batches of `window` adds; returns the sum that was due. */
static uint64_t run(enum mode m, int window)
{
    static uint64_t operand[WINDOW], scratch[WINDOW];
    uint64_t due = 0, v = 0;

    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < window; i++) {
            operand[i] = ++v;
            due += v;
            if (m == ATOMIC) {
                POST(&w_issued, fi_atomic(ep, &operand[i], 1, NULL, self, base, key, FI_UINT64, FI_SUM, NULL));
            } else if (m == INJECT_DC) {
                struct fi_ioc ioc = {.addr = &operand[i], .count = 1};
                struct fi_rma_ioc rma = {.addr = base, .count = 1, .key = key};
                struct fi_msg_atomic msg = {.msg_iov = &ioc, .iov_count = 1, .addr = self, .rma_iov = &rma,
                                            .rma_iov_count = 1, .datatype = FI_UINT64, .op = FI_SUM};
                POST(&w_issued, fi_atomicmsg(ep, &msg, FI_INJECT | FI_DELIVERY_COMPLETE));
            } else {
                POST(&r_issued, fi_fetch_atomic(ep, &operand[i], 1, NULL, &scratch[i], NULL, self, base, key,
                                                FI_UINT64, FI_SUM, NULL));
            }
        }
        wait_cntr(wcntr, w_issued);
        wait_cntr(rcntr, r_issued);
    }
    return due;
}

static const char *volatile current = "setup";

static void crashed(int sig)
{
    char msg[160];
    int n = snprintf(msg, sizeof msg, "  %-28s CRASHED (signal %d): the provider's state is corrupted\n", current,
                     sig);
    if (write(1, msg, (size_t)n) < 0)
        _exit(3);
    _exit(1);
}

static int report(const char *what, uint64_t due)
{
    int ok = word == due;

    printf("  %-28s total %12llu, due %12llu: %s\n", what, (unsigned long long)word, (unsigned long long)due,
           ok ? "ok" : "WRONG");
    fflush(stdout);
    word = 0;
    return !ok;
}

int main(void)
{
    int bad = 0;

    alarm(60); /* a corrupted provider may hang: never outlive a minute */
    signal(SIGSEGV, crashed);
    signal(SIGALRM, crashed);
    setup();
#define MODE(name, m, w) (current = name, report(name, run(m, w)))
    bad |= MODE("fetch (window 16)", FETCH, WINDOW);
    bad |= MODE("atomic (window 16)", ATOMIC, WINDOW);
    bad |= MODE("inject_dc (window 16)", INJECT_DC, WINDOW);
    bad |= MODE("fetch (window 1)", FETCH, 1);
    bad |= MODE("fetch (window 16) after it", FETCH, WINDOW);
    bad |= MODE("atomic (window 1)", ATOMIC, 1);
    bad |= MODE("atomic (window 16) after it", ATOMIC, WINDOW);
    bad |= MODE("fetch (window 16) after it", FETCH, WINDOW);
    teardown();
    printf("%s\n", bad ? "WRONG totals: pipelined non-fetching atomics are not safe here"
                       : "all totals exact");
    return bad;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_gather.h — puts and non-fetching AMOs gathered per target
 * PE into messages of Shoal's own (ofi_gather.c; docs/design.md,
 * "Gathering"). Included by ofi.h: the checks on every put, AMO and get
 * are inline here, the rest is in ofi_gather.c.
 */
#ifndef SHMEMI_OFI_GATHER_H
#define SHMEMI_OFI_GATHER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

#include "shmemi.h"

/* A message at most; less where rxm's eager limit is lower (its buffer
 * size, FI_OFI_RXM_BUFFER_SIZE: 4 KiB unless the user sets it, ofi.c). A
 * larger message is sent in segments, which rxm completed after a
 * smaller message sent behind it. */
#define SHMEMI_GATHER_MSG_BYTES 8192
/* Send buffers, gathering or in flight: the memory is bounded by this,
 * not by the number of PEs. */
#define SHMEMI_GATHER_SENDS 32
/* Receives posted for the peers' messages (more wait in the provider). */
#define SHMEMI_GATHER_RECVS 16
/* Messages to one PE sent and not yet applied there: bounds what a PE
 * that stops serving holds of its peers' memory. */
#define SHMEMI_GATHER_AHEAD 16
/* Largest put gathered by default (SHMEM_OFI_GATHER_PUT). */
#define SHMEMI_GATHER_PUT_DEFAULT 512

struct shmemi_gather_buf {
    struct fi_context2 fi_ctx; /* first: the completion's context is the buffer */
    int state;                 /* enum in ofi_gather.c */
    int pe;                    /* the target of a send buffer */
    size_t used;               /* bytes, the header included */
    uint64_t data[SHMEMI_GATHER_MSG_BYTES / sizeof(uint64_t)];
};

struct shmemi_gather {
    int on;                          /* this PE gathers (sends messages) */
    int receiving;                   /* receives are posted: peers may gather here */
    size_t put_max;                  /* largest put gathered */
    size_t msg_bytes;                /* a message's size at most: rxm's eager limit */
    struct shmemi_gather_buf *send;  /* [SHMEMI_GATHER_SENDS] */
    struct shmemi_gather_buf *recv;  /* [SHMEMI_GATHER_RECVS] */
    uint8_t *buf_of;                 /* [n_pes]: 1 + the send buffer gathering for the PE; 0: none */
    uint32_t *sent, *acked;          /* [n_pes]: messages sent to the PE, and applied there as it said */
    uint32_t *asked;                 /* [n_pes]: the last message to the PE that asked for an acknowledgement */
    uint32_t *applied;               /* [n_pes]: messages from the PE applied here */
    uint8_t *ack_owed;               /* [n_pes]: an acknowledgement that could not be sent yet */
    unsigned gathering;              /* send buffers holding operations */
    unsigned acks_owed, recvs_unposted;
    uint64_t unacked;                /* messages sent, all PEs, not yet acknowledged */
    int touched;                     /* an operation was gathered since the progress thread looked */
    int waiting;                     /* a wait of this file is under way: the thread leaves it alone */
    /* A fence found operations gathered or unapplied: until the next
     * quiet, a write that is not gathered waits until its PE applied them
     * (gathered ones follow them in order anyway). */
    int fenced;
    unsigned trips;                  /* round trips made while something was gathering */
    pthread_mutex_t rx_lock;         /* reading and applying, where calls are not serialized */
};

extern struct shmemi_gather shmemi_gather;

/* ofi_gather.c: set up after the default endpoint is open (posts the
 * receives), torn down before it closes. */
void shmemi_gather_open(const char *routine);
void shmemi_gather_close(void);
const char *shmemi_gather_summary(void);
/* Gather a put of n <= put_max bytes, or a non-fetching AMO, for pe. */
void shmemi_gather_put(int pe, int seg, size_t off, const void *src, size_t n, const char *routine);
void shmemi_gather_amo(int pe, int seg, size_t off, enum shmemi_amo_op op, int dtype, const void *value,
                       const char *routine);
/* Everything gathered leaves now (a local wait, the progress thread). */
void shmemi_gather_send_all(const char *routine);
/* What was gathered for pe is applied there (before a get or fetching
 * AMO), or, for quiet, everything gathered for anyone. */
void shmemi_gather_settle(int pe, const char *routine);
void shmemi_gather_quiet(const char *routine);
/* Quiet's first step: what is gathered leaves, asking to be acknowledged
 * (the rest of quiet overlaps the round trip). */
void shmemi_gather_quiet_begin(const char *routine);
/* Fence: nothing to wait for now, if what follows is gathered too. */
void shmemi_gather_fence(void);
/* The progress thread's turn: what a PE that stopped calling left leaves. */
void shmemi_gather_idle(void);
/* A completion of the default endpoint: 1 if it was a gathered
 * message's send or receive (handled here). */
int shmemi_gather_completed(void *context);
/* The PE a failed completion's message went to, or -1. */
int shmemi_gather_pe_of(const void *context);
/* Receives and acknowledgements left for later by a busy provider. */
void shmemi_gather_retry(void);

static inline int shmemi_gather_amo_op(enum shmemi_amo_op op)
{
    return op == SHMEMI_AMO_ADD || op == SHMEMI_AMO_SET || op == SHMEMI_AMO_AND || op == SHMEMI_AMO_OR ||
           op == SHMEMI_AMO_XOR;
}

/* Something gathered for pe, or sent and not yet applied there. */
static inline int shmemi_gather_pending(int pe)
{
    const struct shmemi_gather *g = &shmemi_gather;

    return g->on && (g->buf_of[pe] || g->sent[pe] != __atomic_load_n(&g->acked[pe], __ATOMIC_ACQUIRE));
}

/* Round trips (gets, fetching AMOs) made while operations wait here before
 * the gathered ones leave: a PE that polls a peer's word in a loop (a
 * lock) may be holding what a third PE needs to let it through. */
#define SHMEMI_GATHER_TRIPS 32

/* Before a round trip to pe (ofi_rma.c, shmemi_ofi_writes_visible). */
static inline void shmemi_gather_before_read(int pe, const char *routine)
{
    struct shmemi_gather *g = &shmemi_gather;

    if (!g->on)
        return;
    if (__builtin_expect(g->gathering != 0, 0) && ++g->trips >= SHMEMI_GATHER_TRIPS)
        shmemi_gather_send_all(routine);
    if (shmemi_gather_pending(pe))
        shmemi_gather_settle(pe, routine); /* applied there, not only sent */
}

/* Before a write to pe that is not gathered (a large put, a collective's). */
static inline void shmemi_gather_before_direct_write(int pe, const char *routine)
{
    if (__builtin_expect(shmemi_gather.fenced, 0) && shmemi_gather_pending(pe))
        shmemi_gather_settle(pe, routine);
}

#endif /* SHMEMI_OFI_GATHER_H */

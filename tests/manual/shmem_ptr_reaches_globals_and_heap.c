/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem_ptr must give a direct load/store pointer to a global (static
 * storage) array and to a heap array of every PE on this PE's node -- the
 * PEs with the same host name (tests/multihost runs PEs on two hosts),
 * narrowed by SHMEM_VIRTUAL_NODES, and only this PE under
 * SHMEM_TRANSPORT=ofi -- and NULL for any other PE, which is written with
 * puts instead.  Stores through those pointers are seen by the owner after
 * a barrier; loads see the owner's values.  A stack (non-symmetric) address
 * gives NULL, and shmem_addr_accessible / shmem_pe_accessible agree. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN 256
#define MAXPES 64

int global_table[LEN];              /* .bss, external linkage */
static long static_words[LEN] = {1}; /* .data, internal linkage */

#define HOSTLEN 64
static char hosts[MAXPES][HOSTLEN]; /* hosts[p]: PE p's host name */

static int gval(int writer, int owner) { return writer * 1000 + owner; }

/* PE p is in this PE's (virtual) node: on the same host, and in the same
 * group when SHMEM_VIRTUAL_NODES=K makes K contiguous groups of PEs (PE p
 * in group p*K/npes). */
static int same_node(int me, int p, int npes)
{
    const char *v = getenv("SHMEM_VIRTUAL_NODES"), *path = getenv("SHMEM_TRANSPORT");
    long k = v ? atol(v) : 0;
    if (path && !strcmp(path, "ofi")) /* every peer through libfabric */
        return p == me;
    if (strcmp(hosts[me], hosts[p]))
        return 0;
    if (k <= 1)
        return 1;
    if (k > npes)
        k = npes;
    return (long)me * k / npes == (long)p * k / npes;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes > MAXPES) {
        fprintf(stderr, "needs at most %d PEs\n", MAXPES);
        shmem_finalize();
        return 1;
    }
    int *heap = shmem_malloc(LEN * sizeof(int));
    CHECK(heap != NULL, "shmem_malloc returned NULL");
    if (!heap)
        shmem_global_exit(1);

    /* Every PE's host name, by puts (they work whatever the path). */
    if (gethostname(hosts[me], HOSTLEN - 1))
        strcpy(hosts[me], "?");
    for (int p = 0; p < npes; p++)
        shmem_putmem(hosts[me], hosts[me], HOSTLEN, p);

    /* Owner's own values, for loads through the pointers. */
    for (int i = 0; i < LEN; i++)
        static_words[i] = 100000L * me + i;
    shmem_barrier_all();

    for (int p = 0; p < npes; p++) {
        int *g = shmem_ptr(global_table, p);
        int *h = shmem_ptr(heap, p);
        long *s = shmem_ptr(static_words, p);
        if (!same_node(me, p, npes)) {
            CHECK(!g && !h && !s, "shmem_ptr to PE %d of another (virtual) node is not NULL", p);
            shmem_int_p(&global_table[me], gval(me, p), p);
            shmem_int_p(&heap[me], gval(me, p) + 7, p);
            continue;
        }
        CHECK(g != NULL, "shmem_ptr(global_table, %d) = NULL", p);
        CHECK(h != NULL, "shmem_ptr(heap, %d) = NULL", p);
        CHECK(s != NULL, "shmem_ptr(static_words, %d) = NULL", p);
        if (p == me) {
            CHECK(g == global_table, "shmem_ptr(global_table, me) = %p, want %p",
                  (void *)g, (void *)global_table);
            CHECK(h == heap, "shmem_ptr(heap, me) = %p, want %p", (void *)h, (void *)heap);
            CHECK(s == static_words, "shmem_ptr(static_words, me) != static_words");
        }
        /* Pointers to interior elements are offset consistently. */
        int *g10 = shmem_ptr(&global_table[10], p);
        int *h77 = shmem_ptr(&heap[77], p);
        CHECK(g && g10 == g + 10, "shmem_ptr(&global_table[10], %d) not base + 10", p);
        CHECK(h && h77 == h + 77, "shmem_ptr(&heap[77], %d) not base + 77", p);
        if (g)
            g[me] = gval(me, p);           /* store into p's global */
        if (h)
            h[me] = gval(me, p) + 7;       /* store into p's heap */
        if (s)                             /* load p's own values */
            for (int i = 0; i < LEN; i += 17)
                CHECK(s[i] == 100000L * p + i, "load static_words[%d] on PE %d = %ld", i, p, s[i]);
    }
    shmem_barrier_all();
    for (int q = 0; q < npes; q++) {
        CHECK(global_table[q] == gval(q, me), "global_table[%d] = %d, want %d (stored by PE %d)",
              q, global_table[q], gval(q, me), q);
        CHECK(heap[q] == gval(q, me) + 7, "heap[%d] = %d, want %d", q, heap[q], gval(q, me) + 7);
    }
    for (int i = npes; i < LEN; i++) {
        CHECK(global_table[i] == 0, "global_table[%d] = %d, want 0", i, global_table[i]);
    }

    /* A pointer store followed by an RMA read from a third party. */
    shmem_barrier_all();
    int right = (me + 1) % npes;
    int *rg = shmem_ptr(global_table, right);
    if (rg)
        rg[LEN - 1] = 4242 + me;
    else
        shmem_int_p(&global_table[LEN - 1], 4242 + me, right);
    shmem_barrier_all();
    int left = (me - 1 + npes) % npes;
    CHECK(global_table[LEN - 1] == 4242 + left, "global_table[LEN-1] = %d, want %d",
          global_table[LEN - 1], 4242 + left);
    int via_get = shmem_int_g(&global_table[LEN - 1], right);
    CHECK(via_get == 4242 + me, "g of right's global_table[LEN-1] = %d, want %d", via_get, 4242 + me);

    /* Non-symmetric addresses: stack and libc heap. */
    int stack_buf[4] = {0};
    int *libc_heap = malloc(64);
    for (int p = 0; p < npes; p++) {
        CHECK(shmem_ptr(stack_buf, p) == NULL, "shmem_ptr(stack, %d) != NULL", p);
        CHECK(shmem_ptr(libc_heap, p) == NULL, "shmem_ptr(malloc'd, %d) != NULL", p);
        CHECK(shmem_addr_accessible(stack_buf, p) == 0, "shmem_addr_accessible(stack, %d) != 0", p);
        CHECK(shmem_addr_accessible(libc_heap, p) == 0, "shmem_addr_accessible(malloc'd, %d) != 0", p);
        CHECK(shmem_addr_accessible(global_table, p) == 1, "shmem_addr_accessible(global, %d) != 1", p);
        CHECK(shmem_addr_accessible(static_words, p) == 1, "shmem_addr_accessible(static, %d) != 1", p);
        CHECK(shmem_addr_accessible(heap, p) == 1, "shmem_addr_accessible(heap, %d) != 1", p);
        CHECK(shmem_addr_accessible(&heap[LEN - 1], p) == 1, "shmem_addr_accessible(&heap[LEN-1], %d) != 1", p);
        CHECK(shmem_pe_accessible(p) == 1, "shmem_pe_accessible(%d) != 1", p);
    }
    CHECK(shmem_pe_accessible(npes) == 0, "shmem_pe_accessible(n_pes) != 0");
    CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) != 0");
    free(libc_heap);
    (void)stack_buf[0];

    int rc = check_finish();
    shmem_free(heap);
    shmem_finalize();
    return rc;
}

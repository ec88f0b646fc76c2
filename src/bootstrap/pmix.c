/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/pmix.c — the bootstrap over PMIx (Open MPI's mpirun, PRRTE,
 * srun --mpi=pmix). Every PMIx call is checked and reported with
 * PMIx_Error_string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/abort.h"
#include "bootstrap/backend.h"
#include "shmemi.h"

static struct {
    int active;        /* PMIx_Init succeeded and not finalized */
    pmix_proc_t me;
} boot;

#define PMIX_CHECK(call, routine)                                                            \
    do {                                                                                    \
        pmix_status_t rc_ = (call);                                                         \
        if (rc_ != PMIX_SUCCESS)                                                            \
            shmemi_fatal(routine, "%s failed: %s", #call, PMIx_Error_string(rc_));          \
    } while (0)

static void wildcard(pmix_proc_t *p)
{
    PMIX_PROC_CONSTRUCT(p);
    memcpy(p->nspace, boot.me.nspace, sizeof p->nspace);
    p->rank = PMIX_RANK_WILDCARD;
}

static long value_to_long(const pmix_value_t *v, const char *key, const char *routine)
{
    switch (v->type) {
    case PMIX_UINT32: return (long)v->data.uint32;
    case PMIX_UINT16: return (long)v->data.uint16;
    case PMIX_INT: return (long)v->data.integer;
    case PMIX_UINT: return (long)v->data.uint;
    case PMIX_INT32: return (long)v->data.int32;
    case PMIX_UINT64: return (long)v->data.uint64;
    default: shmemi_fatal(routine, "PMIx_Get(%s) returned unexpected type %d", key, (int)v->type);
    }
}

static long get_job_long(const char *key, const char *routine)
{
    pmix_proc_t w;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    long r;

    wildcard(&w);
    rc = PMIx_Get(&w, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        shmemi_fatal(routine, "PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
    r = value_to_long(v, key, routine);
    PMIX_VALUE_RELEASE(v);
    return r;
}

/* PMIX_LOCAL_PEERS is a comma-separated list of ranks on our node. */
static void get_local_peers(struct shmemi_boot_info *bi, const char *routine)
{
    pmix_proc_t w;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    const char *p;
    int n = 0;

    wildcard(&w);
    rc = PMIx_Get(&w, PMIX_LOCAL_PEERS, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        shmemi_fatal(routine, "PMIx_Get(PMIX_LOCAL_PEERS) failed: %s", PMIx_Error_string(rc));
    if (v->type != PMIX_STRING || !v->data.string)
        shmemi_fatal(routine, "PMIx_Get(PMIX_LOCAL_PEERS) returned unexpected type %d", (int)v->type);
    bi->local_pes = calloc((size_t)bi->size, sizeof(int));
    if (!bi->local_pes)
        shmemi_fatal(routine, "out of memory");
    for (p = v->data.string; *p && n < bi->size;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r >= bi->size)
            shmemi_fatal(routine, "cannot parse PMIX_LOCAL_PEERS \"%s\"", v->data.string);
        bi->local_pes[n++] = (int)r;
        p = *end == ',' ? end + 1 : end;
    }
    PMIX_VALUE_RELEASE(v);
    bi->n_local = n;
    for (int i = 1; i < n; i++) /* insertion sort: the list is short and usually sorted */
        for (int j = i; j > 0 && bi->local_pes[j - 1] > bi->local_pes[j]; j--) {
            int t = bi->local_pes[j];
            bi->local_pes[j] = bi->local_pes[j - 1];
            bi->local_pes[j - 1] = t;
        }
}

/* The abort hook (base/abort.h): registered while PMIx is up. */
static void boot_abort(int status, const char *msg)
{
    if (!boot.active)
        return;
    /* NULL procs: every process of our namespace. */
    PMIx_Abort(status, msg, NULL, 0);
}

int shmemi_pmix_init(struct shmemi_boot_info *bi, const char *routine)
{
    pmix_status_t rc = PMIx_Init(&boot.me, NULL, 0);

    if (rc == PMIX_ERR_UNREACH)
        return -1;
    if (rc != PMIX_SUCCESS)
        shmemi_fatal(routine, "PMIx_Init failed: %s", PMIx_Error_string(rc));
    boot.active = 1;
    shmemi_abort_hook_set(boot_abort);
    bi->rank = (int)boot.me.rank;
    bi->size = (int)get_job_long(PMIX_JOB_SIZE, routine);
    if (bi->size < 1 || bi->rank >= bi->size)
        shmemi_fatal(routine, "PMIx reports rank %d of a job of %d", bi->rank, bi->size);
    get_local_peers(bi, routine);
    return 0;
}

void shmemi_pmix_fini(void)
{
    if (boot.active) {
        shmemi_abort_hook_set(NULL);
        boot.active = 0;
        PMIX_CHECK(PMIx_Finalize(NULL, 0), "shmem_finalize");
    }
}

static void boot_put(pmix_scope_t scope, const char *key, const void *data, size_t len, const char *routine)
{
    pmix_value_t v;

    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    PMIX_CHECK(PMIx_Put(scope, key, &v), routine);
}

void shmemi_pmix_put(int node_only, const char *key, const void *data, size_t len, const char *routine)
{
    /* GLOBAL so a later network path can read it from other nodes;
     * LOCAL: no copy in other nodes' stores. */
    boot_put(node_only ? PMIX_LOCAL : PMIX_GLOBAL, key, data, len, routine);
}

void shmemi_pmix_exchange(const char *routine)
{
    pmix_info_t info;
    bool collect = true;

    PMIX_CHECK(PMIx_Commit(), routine);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    PMIX_CHECK(PMIx_Fence(NULL, 0, &info, 1), routine);
    PMIX_INFO_DESTRUCT(&info);
}

size_t shmemi_pmix_get_var(int pe, const char *key, void *data, size_t max, const char *routine)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    size_t len;

    PMIX_PROC_CONSTRUCT(&p);
    memcpy(p.nspace, boot.me.nspace, sizeof p.nspace);
    p.rank = (pmix_rank_t)pe;
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        shmemi_fatal(routine, "PMIx_Get(%s) from PE %d failed: %s", key, pe, PMIx_Error_string(rc));
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size > max)
        shmemi_fatal(routine, "PMIx_Get(%s) from PE %d: unexpected value (type %d, %zu bytes)", key, pe,
                     (int)v->type, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : (size_t)0);
    len = v->data.bo.size;
    memcpy(data, v->data.bo.bytes, len);
    PMIX_VALUE_RELEASE(v);
    return len;
}

void shmemi_pmix_hostname(int pe, char *out, size_t len)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;

    snprintf(out, len, "?");
    PMIX_PROC_CONSTRUCT(&p);
    memcpy(p.nspace, boot.me.nspace, sizeof p.nspace);
    p.rank = (pmix_rank_t)pe;
    if (PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return;
    if (v->type == PMIX_STRING && v->data.string)
        snprintf(out, len, "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
}

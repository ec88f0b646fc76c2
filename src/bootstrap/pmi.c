/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/pmi.c — the bootstrap over a PMI-1 or PMI-2 key/value store
 * (backend.h). What those lack and PMIx gives, derived here:
 *  - blobs: values are text of limited length, so a blob is hex split
 *    over numbered keys (kvs_text.h); keys are per PE ("KEY.<pe>"),
 *    since the store is one namespace for the whole job;
 *  - node-local ranks: at start-up each PE publishes its node identity
 *    (the host name the launcher uses, and the kernel's boot id, which
 *    tells apart two machines both called "localhost") and reads every
 *    PE's after one fence;
 *  - host names for error messages: the first part of that identity;
 *  - node-only puts: put for the job (the store has no node scope).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/abort.h"
#include "bootstrap/backend.h"
#include "bootstrap/kvs_text.h"
#include "shmemi.h"

#define NODE_KEY "shoal.node"
#define NODE_ID_MAX 320

static struct {
    const struct shmemi_pmi_ops *ops;
    int rank;
    size_t per;  /* blob bytes per value */
    char *value; /* one value's text: vallen + 1 */
} pmi;

static void pmi_abort(int status, const char *msg)
{
    if (pmi.ops)
        pmi.ops->abort(status, msg);
}

static void key_of(char *out, size_t max, const char *key, int pe, size_t i, const char *routine)
{
    if (shmemi_kvs_key(out, max, key, pe, i) != 0 || strlen(out) > pmi.ops->keylen)
        shmemi_fatal(routine, "bootstrap key %s of PE %d (chunk %zu) is longer than %s's limit of %zu", key, pe, i,
                     pmi.ops->name, pmi.ops->keylen);
}

void shmemi_pmi_put(const char *key, const void *data, size_t len, const char *routine)
{
    size_t n = shmemi_kvs_chunks(len, pmi.per);
    char k[128];

    for (size_t i = 0; i < n; i++) {
        key_of(k, sizeof k, key, pmi.rank, i, routine);
        shmemi_kvs_encode(pmi.value, data, len, pmi.per, i);
        pmi.ops->put(k, pmi.value, routine);
    }
}

void shmemi_pmi_exchange(const char *routine)
{
    pmi.ops->fence(routine);
}

/* One chunk's text, or -1 if the key is not there. */
static int get_text(int pe, const char *key, size_t i, const char *routine)
{
    char k[128];

    key_of(k, sizeof k, key, pe, i, routine);
    return pmi.ops->get(pe, k, pmi.value, pmi.ops->vallen + 1, routine);
}

size_t shmemi_pmi_get_var(int pe, const char *key, void *data, size_t max, const char *routine)
{
    size_t len, n;

    if (get_text(pe, key, 0, routine) != 0)
        shmemi_fatal(routine, "bootstrap key %s of PE %d not found in %s's store", key, pe, pmi.ops->name);
    if (shmemi_kvs_decode_head(pmi.value, data, max, pmi.per, &len) != 0)
        shmemi_fatal(routine, "bootstrap key %s of PE %d: malformed or more than %zu bytes", key, pe, max);
    n = shmemi_kvs_chunks(len, pmi.per);
    for (size_t i = 1; i < n; i++)
        if (get_text(pe, key, i, routine) != 0 || shmemi_kvs_decode(pmi.value, data, len, pmi.per, i) != 0)
            shmemi_fatal(routine, "bootstrap key %s of PE %d: part %zu of %zu missing or malformed", key, pe, i, n);
    return len;
}

/* "HOST\nBOOT_ID": HOST as the launcher names the node where it says
 * (Slurm, Flux), else gethostname. */
static size_t node_identity(char *out, size_t max)
{
    const char *named = getenv("SLURMD_NODENAME");
    char boot[64] = "";
    FILE *f;
    int n;

    if (named && *named) {
        n = snprintf(out, max, "%s", named);
    } else {
        if (gethostname(out, max / 2) != 0)
            snprintf(out, max / 2, "?");
        out[max / 2 - 1] = '\0';
        n = (int)strlen(out);
    }
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    n += snprintf(out + n, max - (size_t)n, "\n%s", boot);
    return (size_t)n + 1;
}

void shmemi_pmi_init(const struct shmemi_pmi_ops *ops, struct shmemi_boot_info *bi, const char *routine)
{
    char mine[NODE_ID_MAX], theirs[NODE_ID_MAX];
    size_t len;

    pmi.ops = ops;
    pmi.rank = bi->rank;
    pmi.per = shmemi_kvs_per_chunk(ops->vallen);
    if (pmi.per == 0)
        shmemi_fatal(routine, "%s stores values of at most %zu characters: too few", ops->name, ops->vallen);
    pmi.value = malloc(ops->vallen + 1 > 2 * pmi.per + SHMEMI_KVS_HEAD + 1 ? ops->vallen + 1
                                                                            : 2 * pmi.per + SHMEMI_KVS_HEAD + 1);
    bi->local_pes = calloc((size_t)bi->size, sizeof(int));
    if (!pmi.value || !bi->local_pes)
        shmemi_fatal(routine, "out of memory");
    shmemi_abort_hook_set(pmi_abort);

    len = node_identity(mine, sizeof mine);
    shmemi_pmi_put(NODE_KEY, mine, len, routine);
    shmemi_pmi_exchange(routine);
    /* Ascending, as bootstrap.h promises. */
    for (int pe = 0; pe < bi->size; pe++) {
        if (pe != bi->rank) {
            size_t n = shmemi_pmi_get_var(pe, NODE_KEY, theirs, sizeof theirs, routine);
            if (n != len || memcmp(mine, theirs, len) != 0)
                continue;
        }
        bi->local_pes[bi->n_local++] = pe;
    }
}

void shmemi_pmi_fini(void)
{
    if (!pmi.ops)
        return;
    shmemi_abort_hook_set(NULL);
    pmi.ops->fini();
    pmi.ops = NULL;
    free(pmi.value);
    pmi.value = NULL;
}

void shmemi_pmi_hostname(int pe, char *out, size_t len)
{
    char id[NODE_ID_MAX];
    size_t n;

    snprintf(out, len, "?");
    if (!pmi.ops || get_text(pe, NODE_KEY, 0, "hostname") != 0)
        return;
    /* Not through get_var: a malformed value here must not end the job. */
    if (shmemi_kvs_decode_head(pmi.value, id, sizeof id - 1, pmi.per, &n) != 0)
        return;
    id[n < pmi.per ? n : pmi.per] = '\0'; /* the host name is in the first part */
    id[strcspn(id, "\n")] = '\0';
    snprintf(out, len, "%s", id);
}

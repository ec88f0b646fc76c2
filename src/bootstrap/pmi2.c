/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/pmi2.c — PMI-2 through the launcher's own client library,
 * libpmi2 (Slurm's, for srun --mpi=pmi2; Cray PMI's), loaded at run time
 * so that a build or a machine without it still runs. The few PMI-2 API
 * calls Shoal needs are declared here from the PMI-2 API specification.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "bootstrap/backend.h"
#include "shmemi.h"

#define PMI2_OK 0
/* The PMI-2 API's limits (PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN), terminators
 * included. */
#define PMI2_KEYLEN 64
#define PMI2_VALLEN 1024

static struct {
    void *lib;
    char jobid[256];
    int (*init)(int *spawned, int *size, int *rank, int *appnum);
    int (*finalize)(void);
    int (*abort)(int flag, const char msg[]);
    int (*job_getid)(char jobid[], int jobid_size);
    int (*put)(const char key[], const char value[]);
    int (*fence)(void);
    int (*get)(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue, int *vallen);
} p2;

static struct shmemi_pmi_ops ops;
static char name[64];

static void p2_put(const char *key, const char *value, const char *routine)
{
    int rc = p2.put(key, value);
    if (rc != PMI2_OK)
        shmemi_fatal(routine, "PMI2_KVS_Put(%s) failed: error %d", key, rc);
}

static void p2_fence(const char *routine)
{
    int rc = p2.fence();
    if (rc != PMI2_OK)
        shmemi_fatal(routine, "PMI2_KVS_Fence failed: error %d", rc);
}

static int p2_get(int pe, const char *key, char *value, size_t max, const char *routine)
{
    int len = 0;

    (void)routine;
    return p2.get(p2.jobid, pe, key, value, (int)max, &len) == PMI2_OK && len >= 0 ? 0 : -1;
}

static void p2_abort(int status, const char *msg)
{
    (void)status; /* PMI2_Abort takes none: the launcher reports its own */
    p2.abort(1, msg);
}

static void p2_fini(void)
{
    int rc = p2.finalize();
    if (rc != PMI2_OK)
        shmemi_warn("shmem_finalize", "PMI2_Finalize failed: error %d", rc);
}

#define SYM(field, sym)                                                                   \
    do {                                                                                  \
        *(void **)&p2.field = dlsym(p2.lib, sym);                                         \
        if (!p2.field) {                                                                  \
            snprintf(why, why_len, "%s has no %s", lib, sym);                             \
            dlclose(p2.lib);                                                              \
            p2.lib = NULL;                                                                \
            return NULL;                                                                  \
        }                                                                                 \
    } while (0)

const struct shmemi_pmi_ops *shmemi_pmi2_open(int *rank, int *size, char *why, size_t why_len,
                                              const char *routine)
{
    static const char *const libs[] = {"libpmi2.so.0", "libpmi2.so"};
    const char *lib = libs[0];
    int spawned, appnum, rc;

    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !p2.lib; i++) {
        lib = libs[i];
        p2.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    }
    if (!p2.lib) {
        snprintf(why, why_len, "libpmi2 not found (%s)", dlerror());
        return NULL;
    }
    SYM(init, "PMI2_Init");
    SYM(finalize, "PMI2_Finalize");
    SYM(abort, "PMI2_Abort");
    SYM(job_getid, "PMI2_Job_GetId");
    SYM(put, "PMI2_KVS_Put");
    SYM(fence, "PMI2_KVS_Fence");
    SYM(get, "PMI2_KVS_Get");
    rc = p2.init(&spawned, size, rank, &appnum);
    if (rc != PMI2_OK)
        shmemi_fatal(routine, "PMI2_Init (%s) failed: error %d", lib, rc);
    /* Slurm's libpmi2 with no server to talk to makes a job of one. */
    if (*size == 1) {
        snprintf(why, why_len, "%s found no PMI-2 server", lib);
        p2.finalize();
        return NULL;
    }
    rc = p2.job_getid(p2.jobid, (int)sizeof p2.jobid);
    if (rc != PMI2_OK)
        shmemi_fatal(routine, "PMI2_Job_GetId failed: error %d", rc);
    if (*size < 1 || *rank < 0 || *rank >= *size)
        shmemi_fatal(routine, "PMI2_Init reports rank %d of a job of %d", *rank, *size);
    snprintf(name, sizeof name, "PMI-2 (%s)", lib);
    ops.name = name;
    ops.keylen = PMI2_KEYLEN - 1;
    ops.vallen = PMI2_VALLEN - 1;
    ops.put = p2_put;
    ops.fence = p2_fence;
    ops.get = p2_get;
    ops.abort = p2_abort;
    ops.fini = p2_fini;
    return &ops;
}

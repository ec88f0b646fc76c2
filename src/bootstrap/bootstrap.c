/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bootstrap/bootstrap.c — which launcher protocol a run uses, chosen
 * from the environment the launcher sets (nothing for the user to
 * configure), and the API of bootstrap.h over it:
 *   PMIX_NAMESPACE            PMIx      mpirun (Open MPI), prterun, srun --mpi=pmix
 *   PMI_FD under srun         PMI-2     srun --mpi=pmi2, through Slurm's libpmi2;
 *                                       PMI-1 on the same socket without it
 *   PMI_FD                    PMI-1     mpiexec (MPICH's Hydra, Intel MPI), Flux
 *   PMI_RANK, no PMI_FD       PMI-2     Cray PMI (its libpmi2)
 *   none of these             singleton one PE, a local table as the store
 * A launcher whose environment says the job has more than one process
 * but whose PMI does not answer is an error, not a job of singletons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "bootstrap/backend.h"
#include "shmemi.h"

static enum { BOOT_NONE, BOOT_SINGLETON, BOOT_PMIX, BOOT_PMI } kind;
static char boot_name[96];

/* The singleton's store: one PE, so one value per key. */
static struct {
    char key[32];
    void *data;
    size_t len;
} local[8];

/* A number from the environment, or 0. */
static long env_long(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long r;

    if (!v || !*v)
        return 0;
    r = strtol(v, &end, 10);
    return *end ? 0 : r;
}

/* The launcher that started more than one process of this job, by its
 * environment, with the fix; NULL if none did (a program run alone).
 * *lead: whether this process is the one to say so (its launcher rank
 * is 0 or unknown), so a job prints one line, not one per process. */
static const char *orphaned_launcher(long *n, int *lead, const char **fix)
{
    struct {
        const char *size, *rank, *who, *fix;
    } const tab[] = {
        /* srun with no PMI plugin (MpiDefault=none, Slurm's default) */
        {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "srun", "run srun --mpi=pmix or srun --mpi=pmi2"},
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI's mpirun",
         "its PMIx server did not answer: check that Open MPI is built with PMIx"},
        {"PMI_SIZE", "PMI_RANK", "a PMI launcher", "it set no PMI_FD: run with mpiexec.hydra or srun --mpi=pmi2"},
        {"FLUX_JOB_SIZE", "FLUX_TASK_RANK", "flux run", "run flux run -o pmi=simple"},
        {"MPI_LOCALNRANKS", "MPI_LOCALRANKID", "mpiexec (Hydra)", "it set no PMI_FD: check that it is MPICH's mpiexec.hydra"},
        {"PALS_NRANKS", "PALS_RANKID", "Cray PALS", "install Cray PMI (libpmi2)"},
    };

    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        *n = env_long(tab[i].size);
        if (*n > 1) {
            *lead = env_long(tab[i].rank) == 0;
            *fix = tab[i].fix;
            return tab[i].who;
        }
    }
    return NULL;
}

static void init_singleton(struct shmemi_boot_info *bi, const char *why, const char *routine)
{
    const char *who, *fix;
    long n;
    int lead;

    who = orphaned_launcher(&n, &lead, &fix);
    if (who) {
        if (!lead) { /* the lead process prints the line */
            shmemi_cleanup_run();
            _exit(1);
        }
        shmemi_fatal(routine, "%s started %ld processes, but no PMI answers%s%s%s, so each would be a job of one PE: %s",
                     who, n, *why ? " (" : "", why, *why ? ")" : "", fix);
    }
    bi->rank = 0;
    bi->size = 1;
    bi->singleton = 1;
    bi->n_local = 1;
    bi->local_pes = calloc(1, sizeof(int));
    if (!bi->local_pes)
        shmemi_fatal(routine, "out of memory");
    kind = BOOT_SINGLETON;
    snprintf(boot_name, sizeof boot_name, "singleton (no launcher)");
}

/* PMI-2 or PMI-1: the first of `order` (2, 1) that starts. */
static int init_pmi(struct shmemi_boot_info *bi, const int *order, int n, char *why, size_t why_len,
                    const char *routine)
{
    for (int i = 0; i < n; i++) {
        const struct shmemi_pmi_ops *ops =
            order[i] == 2 ? shmemi_pmi2_open(&bi->rank, &bi->size, why, why_len, routine)
                          : shmemi_pmi1_open(&bi->rank, &bi->size, why, why_len, routine);
        if (ops) {
            kind = BOOT_PMI;
            snprintf(boot_name, sizeof boot_name, "%s", ops->name);
            shmemi_pmi_init(ops, bi, routine);
            return 0;
        }
    }
    return -1;
}

void shmemi_boot_init(struct shmemi_boot_info *bi, const char *routine)
{
    static const int slurm[] = {2, 1}, wire[] = {1}, cray[] = {2};
    char why[160] = "";

    memset(bi, 0, sizeof *bi);
    if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK")) {
        if (shmemi_pmix_init(bi, routine) == 0) {
            kind = BOOT_PMIX;
            snprintf(boot_name, sizeof boot_name, "PMIx");
            return;
        }
        snprintf(why, sizeof why, "PMIx_Init: no server");
    } else if (getenv("PMI_FD")) {
        /* Slurm's pmi2 plugin speaks both; its libpmi2 is PMI-2. */
        if (getenv("SLURM_STEP_ID") ? init_pmi(bi, slurm, 2, why, sizeof why, routine) == 0
                                    : init_pmi(bi, wire, 1, why, sizeof why, routine) == 0)
            return;
    } else if (getenv("PMI_RANK") && getenv("PMI_SIZE")) {
        if (init_pmi(bi, cray, 1, why, sizeof why, routine) == 0)
            return;
    }
    init_singleton(bi, why, routine);
}

void shmemi_boot_fini(struct shmemi_boot_info *bi)
{
    free(bi->local_pes);
    bi->local_pes = NULL;
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        free(local[i].data);
        local[i].data = NULL;
        local[i].key[0] = '\0';
    }
    if (kind == BOOT_PMIX)
        shmemi_pmix_fini();
    else if (kind == BOOT_PMI)
        shmemi_pmi_fini();
    kind = BOOT_NONE;
}

const char *shmemi_boot_name(void)
{
    return kind == BOOT_NONE ? "none" : boot_name;
}

const char *shmemi_boot_expected(void)
{
    if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK"))
        return "PMIx (PMIX_NAMESPACE is set)";
    if (getenv("PMI_FD"))
        return getenv("SLURM_STEP_ID") ? "PMI-2 through libpmi2 (srun --mpi=pmi2), else PMI-1 on PMI_FD"
                                       : "PMI-1 (PMI_FD is set: mpiexec.hydra, Flux)";
    if (getenv("PMI_RANK") && getenv("PMI_SIZE"))
        return "PMI-2 through libpmi2 (PMI_RANK set, no PMI_FD: Cray PMI)";
    return "singleton (no launcher in the environment)";
}

static void local_put(const char *key, const void *data, size_t len, const char *routine)
{
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (!local[i].key[0]) {
            local[i].data = malloc(len ? len : 1);
            if (!local[i].data)
                shmemi_fatal(routine, "out of memory");
            memcpy(local[i].data, data, len);
            local[i].len = len;
            snprintf(local[i].key, sizeof local[i].key, "%s", key);
            return;
        }
    shmemi_fatal(routine, "singleton key store full");
}

void shmemi_boot_put(const char *key, const void *data, size_t len, const char *routine)
{
    switch (kind) {
    case BOOT_PMIX: shmemi_pmix_put(0, key, data, len, routine); break;
    case BOOT_PMI: shmemi_pmi_put(key, data, len, routine); break;
    default: local_put(key, data, len, routine);
    }
}

void shmemi_boot_put_node(const char *key, const void *data, size_t len, const char *routine)
{
    switch (kind) {
    case BOOT_PMIX: shmemi_pmix_put(1, key, data, len, routine); break;
    case BOOT_PMI: shmemi_pmi_put(key, data, len, routine); break;
    default: local_put(key, data, len, routine);
    }
}

void shmemi_boot_exchange(const char *routine)
{
    if (kind == BOOT_PMIX)
        shmemi_pmix_exchange(routine);
    else if (kind == BOOT_PMI)
        shmemi_pmi_exchange(routine);
}

size_t shmemi_boot_get_var(int pe, const char *key, void *data, size_t max, const char *routine)
{
    if (kind == BOOT_PMIX)
        return shmemi_pmix_get_var(pe, key, data, max, routine);
    if (kind == BOOT_PMI)
        return shmemi_pmi_get_var(pe, key, data, max, routine);
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (!strcmp(local[i].key, key) && local[i].len <= max) {
            memcpy(data, local[i].data, local[i].len);
            return local[i].len;
        }
    shmemi_fatal(routine, "bootstrap key %s not found", key);
}

void shmemi_boot_get(int pe, const char *key, void *data, size_t len, const char *routine)
{
    if (shmemi_boot_get_var(pe, key, data, len, routine) != len)
        shmemi_fatal(routine, "bootstrap key %s from PE %d: not %zu bytes", key, pe, len);
}

void shmemi_boot_hostname(int pe, char *out, size_t len)
{
    if (kind == BOOT_PMIX) {
        shmemi_pmix_hostname(pe, out, len);
    } else if (kind == BOOT_PMI) {
        shmemi_pmi_hostname(pe, out, len);
    } else {
        if (gethostname(out, len - 1) != 0)
            snprintf(out, len, "?");
        out[len - 1] = '\0';
    }
}

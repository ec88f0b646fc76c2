/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenSHMEM 1.6 reference-counted initialisation: shmem_query_initialized is
 * 0 before any init; shmem_init_thread(SHMEM_THREAD_MULTIPLE) then shmem_init
 * nest; the first shmem_finalize leaves the library initialised and usable;
 * the last one ends it.  Also shmem_query_thread and the info routines. */
#include "check.h"

#include <string.h>

static long cell;

int main(void)
{
    int initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL: shmem_query_initialized before init gave %d, want 0\n", initialized);
        return 1;
    }

    int provided = -1;
    int ret = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (ret != 0) {
        fprintf(stderr, "FAIL: shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d\n", ret);
        return 1;
    }
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
          provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE,
          "provided = %d is not a thread level", provided);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread = %d, init_thread provided %d", queried, provided);
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "query_initialized after init_thread = 0");

    /* second (nested) initialisation */
    shmem_init();
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "query_initialized after nested init = 0");
    CHECK(shmem_my_pe() == me && shmem_n_pes() == npes, "my_pe/n_pes changed by nested init");
    shmem_query_thread(&queried);
    CHECK(queried == provided, "thread level changed by nested init: %d -> %d", provided, queried);

    /* info routines */
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "info_get_version = %d.%d, header says %d.%d", major, minor,
          SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    CHECK(major == 1 && minor >= 5, "info_get_version = %d.%d, want 1.5 or later", major, minor);
    char name[SHMEM_MAX_NAME_LEN + 8];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, sizeof name);
    CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "info_get_name length %zu (max %d)", len,
          SHMEM_MAX_NAME_LEN);
    CHECK(len < sizeof name && strcmp(name, SHMEM_VENDOR_STRING) == 0,
          "info_get_name = \"%.*s\", SHMEM_VENDOR_STRING = \"%s\"", (int)len, name,
          SHMEM_VENDOR_STRING);

    /* first finalize: still initialised, still usable */
    shmem_barrier_all();
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "query_initialized after one of two finalizes = 0");
    shmem_long_atomic_add(&cell, me + 1, 0);
    shmem_barrier_all();
    long total = shmem_long_atomic_fetch(&cell, 0);
    CHECK(total == (long)npes * (npes + 1) / 2, "AMO total after first finalize = %ld, want %ld",
          total, (long)npes * (npes + 1) / 2);
    long *heap = shmem_malloc(64);
    CHECK(heap != NULL, "shmem_malloc after first finalize = NULL");
    shmem_free(heap);

    long failed = check_collect();
    int rc = failed != 0;
    if (me == 0 && failed)
        fprintf(stderr, "FAILED: %ld check(s) failed across %d PE(s)\n", failed, npes);

    /* last finalize ends the library */
    shmem_finalize();
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "PE %d: FAIL query_initialized after the last finalize = %d, want 0\n",
                me, initialized);
        rc = 1;
    }
    if (rc == 0 && me == 0)
        printf("OK\n");
    return rc;
}

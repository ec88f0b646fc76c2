/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_lib.c — libfabric's exported functions, resolved from
 * libfabric.so.1 on first use (why: ofi_lib.h). Each is asked for at the
 * symbol version a link against libfabric 1.5 or later binds it to (the
 * layout of struct fi_info that version fills), the plain name where the
 * library has no versions.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "transport/ofi_lib.h"
#include "shmemi.h"

static struct {
    void *handle;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void *resolve(const char *name, const char *version)
{
    void *f = dlvsym(lib.handle, name, version);

    /* A libfabric built without symbol versions has only the plain name. */
    if (!f)
        f = dlsym(lib.handle, name);
    if (!f)
        shmemi_fatal("shmem_init", "%s has no %s (%s): the network path cannot start", SHMEMI_OFI_LIB_NAME, name,
                     version);
    return f;
}

static void load(void)
{
    /* Loaded after base/cleanup.c armed its handlers, libinfinipath's
     * constructor would replace them (a killed PE would exit 1): this
     * variable tells it not to (a program linked with libfabric loads it
     * first, and the arming step replaces its handlers instead). */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    lib.handle = dlopen(SHMEMI_OFI_LIB_NAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle)
        shmemi_fatal("shmem_init",
                     "cannot load %s (%s): the network path (PEs on other nodes, or SHMEM_TRANSPORT=ofi) needs "
                     "libfabric (Debian: libfabric1)",
                     SHMEMI_OFI_LIB_NAME, dlerror());
    *(void **)&lib.getinfo = resolve("fi_getinfo", "FABRIC_1.3");
    *(void **)&lib.freeinfo = resolve("fi_freeinfo", "FABRIC_1.3");
    *(void **)&lib.dupinfo = resolve("fi_dupinfo", "FABRIC_1.3");
    *(void **)&lib.fabric = resolve("fi_fabric", "FABRIC_1.1");
    *(void **)&lib.strerror = resolve("fi_strerror", "FABRIC_1.0");
    *(void **)&lib.version = resolve("fi_version", "FABRIC_1.0");
}

static void need(void)
{
    pthread_once(&lib_once, load);
}

int shmemi_ofi_lib_loaded(void)
{
    return __atomic_load_n(&lib.handle, __ATOMIC_ACQUIRE) != NULL;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags, const struct fi_info *hints,
               struct fi_info **info)
{
    need();
    return lib.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    need();
    lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    need();
    return lib.dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    need();
    return lib.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    need();
    return lib.strerror(errnum);
}

uint32_t fi_version(void)
{
    need();
    return lib.version();
}

/*
 * shoal-info — what this build is and how it is configured right now:
 * version, build options, the communication paths, and every environment
 * variable with its value in force. SHMEM_INFO prints the same table at
 * start-up.
 */
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "transport/ofi.h"
#include "shmem.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: shoal-info [--version | --help]\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("%s\n", SHMEM_VENDOR_STRING);
        return 0;
    }
    if (argc > 1) {
        usage(strcmp(argv[1], "--help") ? stderr : stdout);
        return strcmp(argv[1], "--help") != 0;
    }
    printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    printf("Build:\n");
    printf("  version     %s\n", SHOAL_VERSION);
    printf("  buildtype   %s\n", SHOAL_BUILDTYPE);
    printf("  compiler    %s\n", SHOAL_COMPILER);
    printf("  prefix      %s\n", SHOAL_PREFIX);
    printf("Paths:\n");
    printf("  node-local  shm (shared mappings of heap and global data; CPU atomics when every peer is\n"
           "              node-local)\n");
    printf("  network     libfabric (SHMEM_TRANSPORT; provider atomics for every AMO once any peer is remote)\n");
    printf("  bootstrap   PMIx (singleton when no PMIx server is present)\n");
    shmemi_env_load("shoal-info");
    shmemi_ofi_print_providers(stdout);
    shmemi_env_print(stdout);
    return 0;
}

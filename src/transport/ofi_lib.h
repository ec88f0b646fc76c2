/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport/ofi_lib.h — libfabric, loaded when the network path opens.
 *
 * Debian's libfabric links the psm and psm2 providers, whose libraries
 * each spend 0.1 s at load calibrating the CPU clock (usleep loops in
 * their constructors). A job whose PEs all share a node never opens
 * libfabric, so it is not linked: the six functions libfabric exports
 * (everything else is an inline call through the objects they return)
 * are renamed here to ofi_lib.c's, which dlopen libfabric on first use.
 * Every file that includes a libfabric header includes this one first
 * (transport/ofi.h does); the link has no libfabric, so a stray call
 * cannot build.
 */
#ifndef SHMEMI_OFI_LIB_H
#define SHMEMI_OFI_LIB_H

#ifdef _RDMA_FABRIC_H_
#error "transport/ofi_lib.h must come before any libfabric header"
#endif

#define fi_getinfo shmemi_fi_getinfo
#define fi_freeinfo shmemi_fi_freeinfo
#define fi_dupinfo shmemi_fi_dupinfo
#define fi_fabric shmemi_fi_fabric
#define fi_strerror shmemi_fi_strerror
#define fi_version shmemi_fi_version

#include <rdma/fabric.h>

/* The library's file name, and whether it is loaded (shoal-info). */
#define SHMEMI_OFI_LIB_NAME "libfabric.so.1"
int shmemi_ofi_lib_loaded(void);

#endif

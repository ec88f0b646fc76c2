/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fortran/query.c — SHMEM_INFO_GET_VERSION and SHMEM_INFO_GET_NAME for
 * Fortran: default INTEGER results, and a name blank-padded to the length of
 * the CHARACTER argument (Fortran strings carry no terminating NUL; gfortran
 * passes the length as a hidden trailing size_t).
 */
#include <string.h>

#include "shmemi_fortran.h"

void shmemi_f_info_get_version(shmemi_fint *major, shmemi_fint *minor)
{
    int maj, min;

    shmemi_info_get_version(&maj, &min);
    *major = (shmemi_fint)maj;
    *minor = (shmemi_fint)min;
}

void shmemi_f_info_get_name(char *name, size_t name_len)
{
    char buf[SHMEM_MAX_NAME_LEN];
    size_t n;

    memset(buf, 0, sizeof buf);
    shmemi_info_get_name(buf);
    n = strnlen(buf, sizeof buf);
    if (n > name_len)
        n = name_len;
    memcpy(name, buf, n);
    memset(name + n, ' ', name_len - n);
}

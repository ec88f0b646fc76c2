/* SPDX-License-Identifier: BSD-3-Clause */
/* Deprecated header location (OpenSHMEM 1.1); use <shmemx.h>. */
#include <shmemx.h>

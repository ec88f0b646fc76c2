/* Deprecated header location (OpenSHMEM 1.1); use <shmemx.h>. */
#include <shmemx.h>

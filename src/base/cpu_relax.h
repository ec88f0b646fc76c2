/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * base/cpu_relax.h — one turn of a spin: tells the core this thread is
 * waiting (cheaper for its sibling, kinder to the line it polls).
 */
#ifndef SHMEMI_CPU_RELAX_H
#define SHMEMI_CPU_RELAX_H

static inline void shmemi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif /* SHMEMI_CPU_RELAX_H */

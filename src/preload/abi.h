/* SPDX-License-Identifier: Apache-2.0 */
/* The stable interface between libebprof-alloc.so (the preloaded allocation sampler)
 * and ebprof: the environment the library reads and the two marker functions ebprof
 * places uprobes on. Changing a name or an argument here breaks running agents. */
#ifndef EBPROF_PRELOAD_ABI_H
#define EBPROF_PRELOAD_ABI_H

/* Mean distance in allocated bytes between two samples (a decimal number of bytes);
 * unset: ALLOC_DEFAULT_MEAN; 0: the library samples nothing. */
#define ALLOC_ENV_MEAN "EBPROF_ALLOC_MEAN"
#define ALLOC_DEFAULT_MEAN (512u * 1024)
#define ALLOC_LIB_NAME "libebprof-alloc.so"

/*
 * void ebprof_alloc_sample(void *ptr, size_t size, uint64_t weight_bytes)
 *   Called once per sampled allocation, after the real allocator returned ptr (for
 *   realloc: the new block). size is what the program asked for (nmemb * size for
 *   calloc). weight_bytes is size / (1 - exp(-size / mean)): the bytes this sample
 *   stands for, so summing weights gives an unbiased estimate of the bytes allocated;
 *   weight_bytes / size is the number of allocations it stands for. ptr is NULL when
 *   the library could not track the block (its table of live samples was full): its
 *   free will not be reported.
 *
 * void ebprof_alloc_free(void *ptr)
 *   Called when a block reported by ebprof_alloc_sample is freed (free, realloc to
 *   another block, or to size 0), before the real allocator may reuse the address.
 *
 * Both start with a 5-byte nop (0f 1f 44 00 00), an instruction the kernel's x86-64
 * uprobes emulate (and 6.17+ kernels can turn into a call), so a probe there needs no
 * single-step. Arguments are in the System V registers: rdi, rsi, rdx.
 */
#define ALLOC_SAMPLE_SYMBOL "ebprof_alloc_sample"
#define ALLOC_FREE_SYMBOL "ebprof_alloc_free"

#endif

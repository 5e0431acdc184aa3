/*
 * dispatch.c - choice of the compression kernel. Probed once per process; each context records the
 * kernel at init and keeps it for its whole life (DESIGN.md section 3). Only the portable kernel
 * exists so far; accelerated kernels are added to the table below, fastest first.
 */
#include "internal.h"

typedef struct kernel_entry {
	const char *name;
	sha1kit_blocks_fn blocks;
} kernel_entry;

static const kernel_entry kernels[] = {
    {"portable", sha1kit_blocks_portable},
};

uint32_t sha1kit_select_fast_kernel(void)
{
	return 0;
}

sha1kit_blocks_fn sha1kit_fast_kernel_fn(uint32_t kernel)
{
	if (kernel >= sizeof(kernels) / sizeof(kernels[0]))
		kernel = 0;
	return kernels[kernel].blocks;
}

const char *sha1kit_kernel_name(void)
{
	return kernels[sha1kit_select_fast_kernel()].name;
}

const char *sha1kit_version(void)
{
	return SHA1KIT_VERSION_STRING;
}

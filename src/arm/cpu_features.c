/*
 * cpu_features.c - arm64 CPU feature probe (Linux): the SHA1 instructions are present when the
 * kernel reports HWCAP_SHA1 in the auxiliary vector entry AT_HWCAP.
 */
#include "../internal.h"

#if SHA1KIT_ARM64
#include <sys/auxv.h>
#ifndef HWCAP_SHA1
#define HWCAP_SHA1 (1 << 5) /* arch/arm64/include/uapi/asm/hwcap.h */
#endif

uint32_t sha1kit_arm_probe(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_SHA1) ? SHA1KIT_CPU_ARM_SHA1 : 0;
}
#endif

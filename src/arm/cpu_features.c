/*
 * cpu_features.c - arm64 CPU feature probe (Linux): the SHA1 and the SHA256 instructions are present
 * when the kernel reports HWCAP_SHA1 and HWCAP_SHA2 in the auxiliary vector entry AT_HWCAP.
 */
#include "../internal.h"

#if SHA1KIT_ARM64
#include <sys/auxv.h>
#ifndef HWCAP_SHA1
#define HWCAP_SHA1 (1 << 5) /* arch/arm64/include/uapi/asm/hwcap.h */
#endif
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6) /* arch/arm64/include/uapi/asm/hwcap.h */
#endif

uint32_t sha1kit_arm_probe(void)
{
	unsigned long hw = getauxval(AT_HWCAP);
	return ((hw & HWCAP_SHA1) ? SHA1KIT_CPU_ARM_SHA1 : 0) |
	       ((hw & HWCAP_SHA2) ? SHA1KIT_CPU_ARM_SHA2 : 0);
}
#endif

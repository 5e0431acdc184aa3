/*
 * cpu_features.c - x86 CPU feature probe, run once per process (the library's only global state).
 *
 * CPUID leaf 1: EDX bit 26 SSE2; ECX bit 9 SSSE3, bit 19 SSE4.1, bit 27 OSXSAVE, bit 28 AVX. Leaf 7 subleaf
 * 0: EBX bit 3 BMI1, bit 5 AVX2, bit 8 BMI2, bit 16 AVX512F, bit 29 SHA, bit 30 AVX512BW. AVX/AVX2 are
 * trusted only when the OS saves the YMM state: OSXSAVE set and XGETBV(0) has bits 1 (SSE) and 2 (AVX) (Intel
 * SDM vol. 1, 14.3); AVX-512 only when it also saves the opmask and ZMM state, bits 5-7 (SDM vol. 1, 15.2).
 * SHA-NI is reported only together with SSSE3 and SSE4.1, which the SHA-NI kernel also uses.
 * sha1kit_x86_cpu_id gives vendor, family and model for the kernel preferences of src/dispatch.c.
 */
#include "../internal.h"

#if SHA1KIT_X86
#include <cpuid.h>

static uint32_t xgetbv0(void)
{
	uint32_t eax, edx;
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0)); /* xgetbv */
	return eax;
}

uint32_t sha1kit_x86_probe(void)
{
	unsigned int eax, ebx, ecx, edx, max;
	uint32_t f = 0;
	int os_avx = 0, os_avx512 = 0;

	if (!__get_cpuid(0, &max, &ebx, &ecx, &edx) || max < 1)
		return 0;
	__cpuid(1, eax, ebx, ecx, edx);
	if (edx & (1u << 26))
		f |= SHA1KIT_CPU_SSE2;
	if (ecx & (1u << 9))
		f |= SHA1KIT_CPU_SSSE3;
	if (ecx & (1u << 19))
		f |= SHA1KIT_CPU_SSE41;
	if ((ecx & (1u << 27)) && (ecx & (1u << 28))) {
		uint32_t xcr0 = xgetbv0();
		os_avx = (xcr0 & 0x06) == 0x06;
		os_avx512 = (xcr0 & 0xe6) == 0xe6;
	}
	if (max >= 7) {
		__cpuid_count(7, 0, eax, ebx, ecx, edx);
		if (os_avx && (ebx & (1u << 5)))
			f |= SHA1KIT_CPU_AVX2;
		if ((ebx & (1u << 3)) && (ebx & (1u << 8)))
			f |= SHA1KIT_CPU_BMI2; /* both BMI1 (ANDN) and BMI2 (RORX) */
		if (os_avx512 && (ebx & (1u << 16)) && (ebx & (1u << 30)))
			f |= SHA1KIT_CPU_AVX512;
		if ((ebx & (1u << 29)) && (f & SHA1KIT_CPU_SSSE3) && (f & SHA1KIT_CPU_SSE41))
			f |= SHA1KIT_CPU_SHA;
	}
	return f;
}

/*
 * Vendor (leaf 0: EBX, EDX, ECX spell "GenuineIntel" / "AuthenticAMD"), family and model (leaf 1
 * EAX: model bits 4-7, family 8-11, extended model 16-19, extended family 20-27). The family is the
 * base family plus the extended family when the base is 0xF; the model takes the extended model as
 * its high nibble when the base family is 0x6 or 0xF (Intel SDM vol. 2A, CPUID "Version Information";
 * AMD APM vol. 3, CPUID Fn0000_0001_EAX, which only uses the 0xF case: AMD has no family 6 with an
 * extended model).
 */
void sha1kit_x86_cpu_id(sha1kit_cpu_id *id)
{
	unsigned int eax, ebx, ecx, edx, max;
	char v[12];

	id->vendor = SHA1KIT_VENDOR_OTHER;
	id->family = id->model = 0;
	if (!__get_cpuid(0, &max, &ebx, &ecx, &edx) || max < 1)
		return;
	memcpy(v, &ebx, 4);
	memcpy(v + 4, &edx, 4);
	memcpy(v + 8, &ecx, 4);
	if (memcmp(v, "GenuineIntel", 12) == 0)
		id->vendor = SHA1KIT_VENDOR_INTEL;
	else if (memcmp(v, "AuthenticAMD", 12) == 0)
		id->vendor = SHA1KIT_VENDOR_AMD;
	__cpuid(1, eax, ebx, ecx, edx);
	uint32_t base = (eax >> 8) & 0xf;
	id->family = base == 0xf ? base + ((eax >> 20) & 0xff) : base;
	id->model = (eax >> 4) & 0xf;
	if (base == 0x6 || base == 0xf)
		id->model |= ((eax >> 16) & 0xf) << 4;
}
#endif

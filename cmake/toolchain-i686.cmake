# Cross toolchain: 32-bit x86 (i686, little-endian, ILP32), tests under qemu-i386.
# Needs: gcc-i686-linux-gnu libc6-dev-i386-cross qemu-user (scripts/install-deps.sh) and the target
# libraries from scripts/cross-sysroot.sh i686 (Debian's i386 packages: lib dir usr/lib/i386-linux-gnu).
# Not gcc-multilib: it removes the cross compilers. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-i686.cmake
set(CMAKE_SYSTEM_PROCESSOR i686)
set(SHA1KIT_CROSS_TRIPLE i686-linux-gnu)
set(SHA1KIT_CROSS_MULTIARCH i386-linux-gnu)
set(SHA1KIT_CROSS_QEMU qemu-i386)
# Pin the emulated CPU, and tell tests/test_kernels.c what it offers: under qemu-user the guest reads
# the HOST's /proc/cpuinfo (which may list sha_ni), while CPUID is qemu's. Debian 12's qemu 7.2 'max'
# x86 CPU has SSSE3, AVX2 and BMI2 but no SHA-NI, so the probe must pick avx2 and reject shani.
# (Named models such as Haswell print TCG feature warnings on every run.)
set(SHA1KIT_CROSS_QEMU_ARGS -cpu max)
set(SHA1KIT_CROSS_TEST_ENV SHA1KIT_EXPECT_KERNELS=avx2,ssse3)
include("${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake")

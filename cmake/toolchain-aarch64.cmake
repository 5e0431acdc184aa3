# Cross toolchain: 64-bit Arm (aarch64, little-endian), tests under qemu-aarch64 -cpu max, which has
# the ARMv8 SHA1 and SHA256 instructions, so the armv8 kernels must be chosen (SHA1KIT_EXPECT_KERNELS
# tells tests/test_kernels.c and tests/test_sha256.c; under qemu-user the guest's /proc/cpuinfo is
# the host's).
# Needs: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user (scripts/install-deps.sh) and the target
# libraries from scripts/cross-sysroot.sh aarch64. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
# A build with -DSHA1KIT_NO_ARMV8=ON -DSHA1KIT_CROSS_EXPECT=portable tests the portable kernels there.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SHA1KIT_CROSS_TRIPLE aarch64-linux-gnu)
set(SHA1KIT_CROSS_MULTIARCH aarch64-linux-gnu)
set(SHA1KIT_CROSS_QEMU qemu-aarch64)
set(SHA1KIT_CROSS_QEMU_ARGS -cpu max)
if(NOT SHA1KIT_CROSS_EXPECT)
  set(SHA1KIT_CROSS_EXPECT armv8)
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SHA1KIT_CROSS_EXPECT)
set(SHA1KIT_CROSS_TEST_ENV SHA1KIT_EXPECT_KERNELS=${SHA1KIT_CROSS_EXPECT})
include("${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake")

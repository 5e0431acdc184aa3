# Cross toolchain: Linux on IBM Z (s390x, 64-bit big-endian), tests under qemu-s390x.
# Needs: gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user (scripts/install-deps.sh) and the target
# libraries from scripts/cross-sysroot.sh s390x. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-s390x.cmake
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(SHA1KIT_CROSS_TRIPLE s390x-linux-gnu)
set(SHA1KIT_CROSS_MULTIARCH s390x-linux-gnu)
set(SHA1KIT_CROSS_QEMU qemu-s390x)
include("${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake")

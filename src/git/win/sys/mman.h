/* sys/mman.h (src/git/win/) - Windows has none: mmap, munmap and madvise come from os_win.h. */
#include "os_win.h"

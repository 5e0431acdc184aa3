/*
 * bench.h - `sha1kit bench` (bench.c): options, then the measurement of every implementation
 * (bench_impl.h) and the Git workloads (bench_git.h), then the output (bench_output.h). Run by
 * sha1kit-bench (bench_main.c), which `sha1kit bench` runs (programs/sha1kit/bench_exec.c).
 */
#ifndef SHA1KIT_BENCH_H
#define SHA1KIT_BENCH_H

/* `sha1kit bench ARG...`, argv[0] the program's name; returns the exit status. */
int bench_command(int argc, char **argv);

#endif /* SHA1KIT_BENCH_H */

/*
 * bench_machine.c - the machine and build that `sha1kit bench` results were measured on: the CPU
 * (/proc/cpuinfo: model, vendor, family, model, stepping, the flags that decide which SHA-1 code
 * runs), the OS (uname), the compiler and flags, sha1kit's kernels (which this process runs, which
 * it picks), the peers' versions and the date. Every output prints it in its header.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench_output.h"
#include "bench_peers.h"
#include "bench_sha1kit.h"
#include "cli.h"
#include "sha1kit.h"

#ifndef SK_BENCH_C_FLAGS
#define SK_BENCH_C_FLAGS "unknown"
#endif
#ifndef SK_BENCH_BUILD_TYPE
#define SK_BENCH_BUILD_TYPE "unknown"
#endif

static void chomp_value(const char *line, char *out, size_t outsize)
{
	const char *v = strchr(line, ':');
	v = v ? v + 1 : line;
	while (*v == ' ' || *v == '\t')
		v++;
	size_t len = strcspn(v, "\n");
	snprintf(out, outsize, "%.*s", (int)len, v);
	/* A control character (a tab, a stray CR) would reach the terminal and the gnuplot title. */
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

static void read_cpuinfo(struct bench_machine *m)
{
	/* The CPU flags that decide which SHA-1 code runs (here, in OpenSSL, nettle and libgcrypt). */
	static const char *const relevant[] = {"sse2",  "ssse3", "sse4_1", "avx",     "avx2",
	                                       "bmi1",  "bmi2",  "sha_ni", "avx512f", "avx512vl",
	                                       "asimd", "sha1",  "sha2",   "sha3",    "sve"};
	char line[8192], vendor[32] = "", family[16] = "", model[16] = "", stepping[16] = "";
	char impl[16] = "", part[16] = "";
	bool flags_done = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	m->cpu_flags[0] = '\0';
	m->cpu_id[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "model name", 10) == 0 && strcmp(m->cpu_model, "unknown") == 0)
			chomp_value(line, m->cpu_model, sizeof(m->cpu_model));
		else if (strncmp(line, "vendor_id", 9) == 0 && !vendor[0])
			chomp_value(line, vendor, sizeof(vendor));
		else if (strncmp(line, "cpu family", 10) == 0 && !family[0])
			chomp_value(line, family, sizeof(family));
		else if (strncmp(line, "model\t", 6) == 0 && !model[0])
			chomp_value(line, model, sizeof(model));
		else if (strncmp(line, "stepping", 8) == 0 && !stepping[0])
			chomp_value(line, stepping, sizeof(stepping));
		else if (strncmp(line, "CPU implementer", 15) == 0 && !impl[0])
			chomp_value(line, impl, sizeof(impl));
		else if (strncmp(line, "CPU part", 8) == 0 && !part[0])
			chomp_value(line, part, sizeof(part));
		else if (!flags_done &&
		         (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0)) {
			for (size_t i = 0; i < sizeof(relevant) / sizeof(relevant[0]); i++) {
				if (has_word(strchr(line, ':') ? strchr(line, ':') + 1 : line, relevant[i])) {
					size_t used = strlen(m->cpu_flags);
					snprintf(m->cpu_flags + used, sizeof(m->cpu_flags) - used, "%s%s",
					         used ? " " : "", relevant[i]);
				}
			}
			flags_done = true;
		}
	}
	if (f != NULL)
		fclose(f);
	if (vendor[0])
		snprintf(m->cpu_id, sizeof(m->cpu_id), "%s family %s model %s stepping %s", vendor, family,
		         model, stepping);
	else if (impl[0])
		snprintf(m->cpu_id, sizeof(m->cpu_id), "implementer %s part %s", impl, part);
}

void bench_describe_machine(struct bench_machine *m)
{
	struct utsname u;
	memset(m, 0, sizeof(*m));
	read_cpuinfo(m);
	m->logical_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u) == 0)
		snprintf(m->os, sizeof(m->os), "%.60s %.120s %.60s", u.sysname, u.release, u.machine);
	else
		snprintf(m->os, sizeof(m->os), "unknown");
	m->compiler = sk_compiler_name();
	m->c_flags = SK_BENCH_C_FLAGS;
	m->build_type = SK_BENCH_BUILD_TYPE;
	m->n_fast_kernels = bench_sha1kit_kernels(false, m->fast_kernels, BENCH_MAX_KERNELS);
	m->n_dc_kernels = bench_sha1kit_kernels(true, m->dc_kernels, BENCH_MAX_KERNELS);
	m->kernel = sha1kit_kernel_name();
	m->dc_kernel = sha1kit_dc_kernel_name();
	m->library_version = sha1kit_version();
	m->n_peers = bench_peers_versions(m->peers, BENCH_MAX_PEERS);
	m->openssl_ia32cap = getenv("OPENSSL_ia32cap");
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) != NULL)
		strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

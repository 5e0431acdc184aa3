/*
 * bench_output.c - the outputs of `sha1kit bench`: a table for people, CSV, Markdown, JSON (through
 * jansson, when CMake found it: SK_BENCH_HAVE_JANSSON) and an SVG chart drawn by gnuplot.
 *
 * Results are stored for each alignment, for each size, for each implementation (bench_output.h). GB/s is
 * message bytes per nanosecond of the median (decimal gigabytes); ratios are the baseline's median
 * divided by the implementation's, at the same size and alignment, from the same run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(SK_BENCH_HAVE_JANSSON)
#include <jansson.h>
#endif

#include "bench_output.h"
#include "cli.h"

#define JSON_SCHEMA_ID "sha1kit-bench/1"

const char *bench_size_label(size_t size, char *buf, size_t bufsize)
{
	if (size >= ((size_t)1 << 30) && size % ((size_t)1 << 30) == 0)
		snprintf(buf, bufsize, "%zu GiB", size >> 30);
	else if (size >= ((size_t)1 << 20) && size % ((size_t)1 << 20) == 0)
		snprintf(buf, bufsize, "%zu MiB", size >> 20);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, bufsize, "%zu KiB", size >> 10);
	else
		snprintf(buf, bufsize, "%zu B", size);
	return buf;
}

static double gbps(size_t size, double ns)
{
	return ns > 0 ? (double)size / ns : 0.0;
}

static const struct bench_result *result_at(const struct bench_report *r, size_t a, size_t z, size_t i)
{
	return &r->results[(a * r->settings->n_sizes + z) * r->n_impls + i];
}

static const char *align_name(int misalignment)
{
	return misalignment ? "misaligned (+1)" : "aligned";
}

/* A time per message for people: 4 significant digits in ns, us or ms. */
static void fmt_ns(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.1f ns", ns);
	else if (ns < 1e4)
		snprintf(buf, n, "%.3f us", ns / 1e3);
	else if (ns < 1e5)
		snprintf(buf, n, "%.2f us", ns / 1e3);
	else if (ns < 1e6)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else
		snprintf(buf, n, "%.3f ms", ns / 1e6);
}

static void kernel_list(char *buf, size_t n, const struct bench_kernel_info *k, size_t count)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < count; i++)
		if (k[i].supported && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " " : "", k[i].name);
}

static void peer_list(char *buf, size_t n, const struct bench_machine *m)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < m->n_peers && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s %s", used ? "; " : "",
		                         m->peers[i].library, m->peers[i].version);
	if (m->n_peers == 0)
		snprintf(buf, n, "none linked");
}

/* The machine header, one "label: value" per line, each prefixed with `prefix`. */
static void print_header(FILE *out, const struct bench_report *r, const char *prefix, const char *sep)
{
	const struct bench_machine *m = r->machine;
	const struct bench_settings *s = r->settings;
	char fk[256], dk[256], peers[512];
	kernel_list(fk, sizeof(fk), m->fast_kernels, m->n_fast_kernels);
	kernel_list(dk, sizeof(dk), m->dc_kernels, m->n_dc_kernels);
	peer_list(peers, sizeof(peers), m);
	fprintf(out, "%sCPU:%s %s (%s), %ld logical CPUs\n", prefix, sep, m->cpu_model, m->cpu_id,
	        m->logical_cpus);
	fprintf(out, "%sCPU flags:%s %s\n", prefix, sep, m->cpu_flags);
	fprintf(out, "%sCPU mask:%s %s\n", prefix, sep, sk_cpu_mask_text());
	fprintf(out, "%sOS:%s %s\n", prefix, sep, m->os);
	fprintf(out, "%sCompiler:%s %s; %s; flags: %s\n", prefix, sep, m->compiler, m->build_type,
	        m->c_flags);
	fprintf(out, "%sLibrary:%s libsha1kit %s; kernel %s (runs: %s); dc kernel %s (runs: %s)\n", prefix,
	        sep, m->library_version, m->kernel, fk, m->dc_kernel, dk);
	fprintf(out, "%sPeers:%s %s; OPENSSL_ia32cap=%s\n", prefix, sep, peers,
	        m->openssl_ia32cap ? m->openssl_ia32cap : "(unset)");
	if (bench_peers_not_linked() != NULL)
		fprintf(out, "%sNot linked:%s %s\n", prefix, sep, bench_peers_not_linked());
	fprintf(out,
	        "%sMethod:%s one-shot per message (batch row: %zu messages per call), %s, thread CPU "
	        "time, median of %d samples of >= %g ms interleaved round-robin after %d warm-up, data seed "
	        "0x%016llx; %s\n",
	        prefix, sep, s->batch,
	        s->fixed_message ? "one fixed message per size"
	                         : "distinct random messages in turn (1 MiB, at most 4096, per size)",
	        s->reps, s->sample_ms, s->warmup, (unsigned long long)s->seed, m->date);
	if (s->baseline != NULL && s->baseline_sha256 != NULL)
		fprintf(out,
		        "%sRatio:%s %s median (SHA-256 rows: %s median) / implementation median, same run "
		        "(> 1: faster)\n",
		        prefix, sep, s->baseline, s->baseline_sha256);
	else if (s->baseline != NULL)
		fprintf(out, "%sRatio:%s %s median / implementation median, same run (> 1: faster)\n", prefix,
		        sep, s->baseline);
	else
		fprintf(out, "%sRatio:%s none (no baseline implementation: built without OpenSSL?)\n", prefix,
		        sep);
	if (s->note != NULL)
		fprintf(out, "%sNote:%s %s\n", prefix, sep, s->note);
}

/*
 * A default kernel that is not the fastest: for the default sha1kit row `i` at alignment `a` and size
 * `z`, the fastest sha1kit row of the same flavour and shape measured in this run, when the default's
 * median is more than DEFAULT_SLACK above that row's (the tolerance of the kernel choice, issue 16);
 * otherwise r->n_impls. *slower_by gets the default's median / the fastest's - 1.
 */
#define DEFAULT_SLACK 0.03
static size_t faster_than_default(const struct bench_report *r, size_t a, size_t z, size_t i,
                                  double *slower_by)
{
	const struct bench_impl *d = &r->impls[i];
	const struct bench_result *x = result_at(r, a, z, i);
	size_t best = r->n_impls;
	if (!d->is_default || strcmp(d->library, "sha1kit") != 0 || x->skipped || x->median <= 0)
		return r->n_impls;
	double best_ns = x->median;
	for (size_t j = 0; j < r->n_impls; j++) {
		const struct bench_impl *o = &r->impls[j];
		const struct bench_result *y = result_at(r, a, z, j);
		/* (the same kernel through another call, sha1kit-dc-oneshot, is not another kernel) */
		if (j == i || strcmp(o->library, "sha1kit") != 0 || strcmp(o->flavour, d->flavour) != 0 ||
		    strcmp(o->shape, d->shape) != 0 || strcmp(o->kernel, d->kernel) == 0 || y->skipped ||
		    y->median <= 0)
			continue;
		if (y->median < best_ns) {
			best_ns = y->median;
			best = j;
		}
	}
	if (best == r->n_impls || x->median <= best_ns * (1 + DEFAULT_SLACK))
		return r->n_impls;
	*slower_by = x->median / best_ns - 1;
	return best;
}

/* The notes on defaults that are not the fastest at alignment a, size z, each line after `prefix`;
 * returns how many. */
static int print_slow_defaults(FILE *out, const struct bench_report *r, size_t a, size_t z,
                               const char *prefix)
{
	int n = 0;
	char label[32];
	for (size_t i = 0; i < r->n_impls; i++) {
		double by;
		size_t j = faster_than_default(r, a, z, i, &by);
		if (j == r->n_impls)
			continue;
		fprintf(out, "%s%s, %s: the default %s is %.1f%% slower than %s\n", prefix,
		        bench_size_label(r->settings->sizes[z], label, sizeof(label)),
		        align_name(r->settings->alignments[a]), r->impls[i].id, 100 * by, r->impls[j].id);
		n++;
	}
	return n;
}

static bool faster_than_default_any(const struct bench_report *r, size_t a, size_t z)
{
	double by;
	for (size_t i = 0; i < r->n_impls; i++)
		if (faster_than_default(r, a, z, i, &by) != r->n_impls)
			return true;
	return false;
}

static bool any_default(const struct bench_report *r)
{
	for (size_t i = 0; i < r->n_impls; i++)
		if (r->impls[i].is_default)
			return true;
	return false;
}

int bench_print_table(FILE *out, const struct bench_report *r)
{
	const struct bench_settings *s = r->settings;
	char label[32], med[32], lo[32], hi[32];
	size_t w = 14;
	for (size_t i = 0; i < r->n_impls; i++)
		w = strlen(r->impls[i].id) + 2 > w ? strlen(r->impls[i].id) + 2 : w;

	fprintf(out, "sha1kit bench (libsha1kit %s)\n", r->machine->library_version);
	print_header(out, r, "", "");
	for (size_t a = 0; a < s->n_alignments; a++)
		for (size_t z = 0; z < s->n_sizes; z++) {
			fprintf(out, "\n%s messages, %s\n",
			        bench_size_label(s->sizes[z], label, sizeof(label)),
			        align_name(s->alignments[a]));
			fprintf(out, "%-*s %10s  %-23s %7s %7s\n", (int)w, "implementation", "time/msg",
			        "[min - max]", "GB/s", "ratio");
			for (size_t i = 0; i < r->n_impls; i++) {
				const struct bench_result *x = result_at(r, a, z, i);
				char range[80], ratio[16];
				if (x->skipped) {
					fprintf(out, "%-*s %10s  %-23s\n", (int)w, r->impls[i].id, "-",
					        "(above its message limit)");
					continue;
				}
				fmt_ns(med, sizeof(med), x->median);
				fmt_ns(lo, sizeof(lo), x->min);
				fmt_ns(hi, sizeof(hi), x->max);
				snprintf(range, sizeof(range), "[%s - %s]", lo, hi);
				if (x->ratio > 0)
					snprintf(ratio, sizeof(ratio), "%.2fx", x->ratio);
				else
					snprintf(ratio, sizeof(ratio), "-");
				char name[BENCH_ID_MAX + 4];
				snprintf(name, sizeof(name), "%s%s", r->impls[i].id,
				         r->impls[i].is_default ? " *" : "");
				fprintf(out, "%-*s %10s  %-23s %7.3f %7s\n", (int)w, name, med, range,
				        gbps(x->size, x->median), ratio);
			}
			print_slow_defaults(out, r, a, z, "! ");
		}
	if (any_default(r))
		fprintf(out,
		        "\n* = the kernel sha1kit chooses on this CPU; ! = a default more than %.0f%% "
		        "slower than another kernel of its kind in this run.\n",
		        100 * DEFAULT_SLACK);
	if (r->git != NULL)
		bench_git_print(out, r->git, false);
	return 0;
}

/* CSV: one row per alignment, size and implementation (RFC 4180 quoting where needed). */
static void csv_field(FILE *out, const char *v, bool last)
{
	if (v == NULL)
		v = "";
	if (strpbrk(v, ",\"\n\r") != NULL) {
		putc('"', out);
		for (const char *p = v; *p; p++) {
			if (*p == '"')
				putc('"', out);
			putc(*p, out);
		}
		putc('"', out);
	} else {
		fputs(v, out);
	}
	putc(last ? '\n' : ',', out);
}

int bench_print_csv(FILE *out, const struct bench_report *r)
{
	const struct bench_settings *s = r->settings;
	fputs(
	    "implementation,library,flavour,kernel,shape,messages_per_call,default,size,misalignment,"
	    "messages_per_sample,repetitions,ns_median,ns_min,ns_q1,ns_q3,ns_max,gb_per_s,ratio_to_baseline,"
	    "baseline\n",
	    out);
	for (size_t a = 0; a < s->n_alignments; a++)
		for (size_t z = 0; z < s->n_sizes; z++)
			for (size_t i = 0; i < r->n_impls; i++) {
				const struct bench_impl *im = &r->impls[i];
				const struct bench_result *x = result_at(r, a, z, i);
				if (x->skipped)
					continue; /* not measured: no row */
				csv_field(out, im->id, false);
				csv_field(out, im->library, false);
				csv_field(out, im->flavour, false);
				csv_field(out, im->kernel, false);
				csv_field(out, im->shape, false);
				fprintf(out, "%zu,%d,%zu,%d,%zu,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,",
				        im->per_call, im->is_default ? 1 : 0, x->size, x->misalignment,
				        x->iterations, x->reps, x->median, x->min, x->q1, x->q3, x->max,
				        gbps(x->size, x->median));
				if (x->ratio > 0)
					fprintf(out, "%.6f,", x->ratio);
				else
					fputs(",", out);
				csv_field(out, s->baseline, true);
			}
	return 0;
}

int bench_print_markdown(FILE *out, const struct bench_report *r)
{
	const struct bench_settings *s = r->settings;
	char label[32], med[32];
	fprintf(out, "#### sha1kit bench (libsha1kit %s)\n\n", r->machine->library_version);
	print_header(out, r, "- **", "**");
	for (size_t a = 0; a < s->n_alignments; a++) {
		fprintf(out, "\nMedian time per message, GB/s and ratio to %s; %s buffers.\n\n",
		        s->baseline ? s->baseline : "(none)", align_name(s->alignments[a]));
		fputs("| implementation |", out);
		for (size_t z = 0; z < s->n_sizes; z++)
			fprintf(out, " %s |", bench_size_label(s->sizes[z], label, sizeof(label)));
		fputs("\n|---|", out);
		for (size_t z = 0; z < s->n_sizes; z++)
			fputs("---:|", out);
		fputc('\n', out);
		for (size_t i = 0; i < r->n_impls; i++) {
			fprintf(out, "| %s%s |", r->impls[i].id, r->impls[i].is_default ? " \\*" : "");
			for (size_t z = 0; z < s->n_sizes; z++) {
				const struct bench_result *x = result_at(r, a, z, i);
				if (x->skipped) {
					fputs(" — |", out);
					continue;
				}
				fmt_ns(med, sizeof(med), x->median);
				fprintf(out, " %s · %.2f GB/s", med, gbps(x->size, x->median));
				if (x->ratio > 0)
					fprintf(out, " · **%.2fx**", x->ratio);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
	}
	if (any_default(r))
		fputs("\n\\* the kernel sha1kit chooses on this CPU.\n", out);
	int slow = 0;
	for (size_t a = 0; a < s->n_alignments; a++)
		for (size_t z = 0; z < s->n_sizes; z++) {
			if (slow == 0 && faster_than_default_any(r, a, z))
				fprintf(out,
				        "\nDefaults more than %.0f%% slower than another kernel of their "
				        "kind:\n\n",
				        100 * DEFAULT_SLACK);
			slow += print_slow_defaults(out, r, a, z, "- ");
		}
	if (r->git != NULL)
		bench_git_print(out, r->git, true);
	return 0;
}

void bench_print_git_only(FILE *out, const struct bench_machine *m, const struct bench_git *g, bool markdown)
{
	const char *prefix = markdown ? "- **" : "", *sep = markdown ? "**" : "";
	fprintf(out, "%ssha1kit bench: Git workloads (libsha1kit %s)\n%s", markdown ? "#### " : "",
	        m->library_version, markdown ? "\n" : "");
	fprintf(out, "%sCPU:%s %s (%s), %ld logical CPUs\n", prefix, sep, m->cpu_model, m->cpu_id,
	        m->logical_cpus);
	fprintf(out, "%sOS:%s %s\n", prefix, sep, m->os);
	fprintf(out, "%sLibrary:%s libsha1kit %s; dc kernel %s; %s\n", prefix, sep, m->library_version,
	        m->dc_kernel, m->date);
	double load[3];
	if (getloadavg(load, 3) == 3)
		fprintf(out, "%sLoad average at the end:%s %.2f %.2f %.2f\n", prefix, sep, load[0], load[1],
		        load[2]);
	bench_git_print(out, g, markdown);
}

/* ---- JSON -------------------------------------------------------------------------------------- */

bool bench_have_json(void)
{
#if defined(SK_BENCH_HAVE_JANSSON)
	return true;
#else
	return false;
#endif
}

#if defined(SK_BENCH_HAVE_JANSSON)
static json_t *str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static json_t *kernels_json(const struct bench_kernel_info *k, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(
		    arr, json_pack("{s:s, s:b}", "name", k[i].name, "supported", k[i].supported));
	return arr;
}

static json_t *machine_json(const struct bench_machine *m)
{
	json_t *flags = json_array();
	char *copy = strdup(m->cpu_flags), *save = NULL;
	for (char *t = copy ? strtok_r(copy, " ", &save) : NULL; t != NULL; t = strtok_r(NULL, " ", &save))
		json_array_append_new(flags, json_string(t));
	free(copy);
	json_t *peers = json_array();
	for (size_t i = 0; i < m->n_peers; i++)
		json_array_append_new(peers, json_pack("{s:s, s:s}", "library", m->peers[i].library,
		                                       "version", m->peers[i].version));
	json_t *o = json_object();
	json_object_set_new(o, "cpu_model", json_string(m->cpu_model));
	json_object_set_new(o, "cpu_id", json_string(m->cpu_id));
	json_object_set_new(o, "cpu_flags", flags);
	json_object_set_new(o, "logical_cpus", json_integer(m->logical_cpus));
	json_object_set_new(o, "os", json_string(m->os));
	json_object_set_new(o, "compiler", json_string(m->compiler));
	json_object_set_new(o, "c_flags", json_string(m->c_flags));
	json_object_set_new(o, "build_type", json_string(m->build_type));
	json_object_set_new(o, "library_version", json_string(m->library_version));
	json_object_set_new(o, "kernel", json_string(m->kernel));
	json_object_set_new(o, "dc_kernel", json_string(m->dc_kernel));
	json_object_set_new(o, "fast_kernels", kernels_json(m->fast_kernels, m->n_fast_kernels));
	json_object_set_new(o, "dc_kernels", kernels_json(m->dc_kernels, m->n_dc_kernels));
	json_object_set_new(o, "peers", peers);
	json_object_set_new(o, "openssl_ia32cap", str_or_null(m->openssl_ia32cap));
	json_object_set_new(o, "date", json_string(m->date));
	return o;
}

static json_t *settings_json(const struct bench_settings *s)
{
	char seed[32];
	json_t *sizes = json_array(), *align = json_array();
	for (size_t i = 0; i < s->n_sizes; i++)
		json_array_append_new(sizes, json_integer((json_int_t)s->sizes[i]));
	for (size_t i = 0; i < s->n_alignments; i++)
		json_array_append_new(align, json_integer(s->alignments[i]));
	snprintf(seed, sizeof(seed), "0x%016llx", (unsigned long long)s->seed);
	json_t *o = json_object();
	json_object_set_new(o, "sizes", sizes);
	json_object_set_new(o, "misalignments", align);
	json_object_set_new(o, "repetitions", json_integer(s->reps));
	json_object_set_new(o, "warmup", json_integer(s->warmup));
	json_object_set_new(o, "sample_ms", json_real(s->sample_ms));
	json_object_set_new(o, "seed", json_string(seed));
	json_object_set_new(o, "clock", json_string("CLOCK_THREAD_CPUTIME_ID"));
	json_object_set_new(o, "mode", json_string("one-shot per message"));
	json_object_set_new(o, "messages", json_string(s->fixed_message ? "fixed" : "distinct"));
	json_object_set_new(o, "quick", json_boolean(s->quick));
	json_object_set_new(o, "baseline", str_or_null(s->baseline));
	if (s->all_hashes)
		json_object_set_new(o, "baseline_sha256", str_or_null(s->baseline_sha256));
	json_object_set_new(o, "only", str_or_null(s->only));
	json_object_set_new(o, "batch", json_integer((json_int_t)s->batch));
	return o;
}

/* The result at index `at` of r->results (for each alignment, for each size, for each impl). */
static json_t *result_json(const struct bench_report *r, size_t at)
{
	const struct bench_result *x = &r->results[at];
	size_t per_alignment = r->settings->n_sizes * r->n_impls;
	json_t *samples = json_array();
	for (int k = 0; k < x->reps; k++)
		json_array_append_new(samples, json_real(x->samples[k]));
	json_t *ns = json_pack("{s:f, s:f, s:f, s:f, s:f}", "median", x->median, "min", x->min, "q1", x->q1,
	                       "q3", x->q3, "max", x->max);
	json_t *gb =
	    json_pack("{s:f, s:f}", "median", gbps(x->size, x->median), "best", gbps(x->size, x->min));
	json_t *o = json_object();
	json_object_set_new(o, "implementation", json_string(r->impls[x->impl].id));
	json_object_set_new(o, "size", json_integer((json_int_t)x->size));
	json_object_set_new(o, "misalignment", json_integer(x->misalignment));
	json_object_set_new(o, "messages_per_sample", json_integer((json_int_t)x->iterations));
	json_object_set_new(o, "distinct_messages", json_integer((json_int_t)x->messages));
	json_object_set_new(o, "repetitions", json_integer(x->reps));
	json_object_set_new(o, "ns_per_message", ns);
	json_object_set_new(o, "samples_ns_per_message", samples);
	json_object_set_new(o, "gb_per_s", gb);
	json_object_set_new(o, "ratio_to_baseline", x->ratio > 0 ? json_real(x->ratio) : json_null());
	double by;
	size_t j =
	    faster_than_default(r, at / per_alignment, at % per_alignment / r->n_impls, at % r->n_impls, &by);
	if (j != r->n_impls)
		json_object_set_new(o, "default_not_fastest",
		                    json_pack("{s:s, s:f}", "fastest", r->impls[j].id, "slower_by", by));
	return o;
}
#endif

int bench_print_json(FILE *out, const struct bench_report *r)
{
#if defined(SK_BENCH_HAVE_JANSSON)
	json_t *impls = json_array();
	for (size_t i = 0; i < r->n_impls; i++) {
		const struct bench_impl *im = &r->impls[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(im->id));
		json_object_set_new(o, "library", json_string(im->library));
		json_object_set_new(o, "flavour", json_string(im->flavour));
		json_object_set_new(o, "kernel", str_or_null(im->kernel));
		json_object_set_new(o, "shape", json_string(im->shape));
		json_object_set_new(o, "messages_per_call", json_integer((json_int_t)im->per_call));
		json_object_set_new(o, "default", json_boolean(im->is_default));
		json_object_set_new(o, "note", json_string(im->note));
		json_array_append_new(impls, o);
	}
	json_t *results = json_array();
	for (size_t k = 0; k < r->n_results; k++)
		if (!r->results[k].skipped) /* not measured: no entry */
			json_array_append_new(results, result_json(r, k));
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string(JSON_SCHEMA_ID));
	json_object_set_new(root, "tool", json_string("sha1kit bench"));
	json_object_set_new(root, "machine", machine_json(r->machine));
	json_object_set_new(root, "settings", settings_json(r->settings));
	json_object_set_new(root, "implementations", impls);
	json_object_set_new(root, "results", results);
	if (r->settings->note != NULL)
		json_object_set_new(root, "note", json_string(r->settings->note));
	if (r->git != NULL) /* the Git workloads (bench_git.c) */
		json_object_set_new(root, "git", bench_git_json(r->git));
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(7));
	json_decref(root);
	if (rc != 0) {
		if (!ferror(out)) { /* a failed write is told once, by the exit's check of stdout */
			sk_error(0, "bench: cannot write the JSON output");
		}
		return -1;
	}
	fputc('\n', out);
	return 0;
#else
	(void)out;
	(void)r;
	sk_error(0, "bench: built without jansson: no JSON output");
	return -1;
#endif
}

/* ---- SVG chart through gnuplot ---------------------------------------------------------------- */

bool bench_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path != NULL && *path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;
	for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char file[4096];
		snprintf(file, sizeof(file), "%s/gnuplot", dir);
		found = access(file, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* Control characters end a gnuplot command (\n, \r) or garble the chart: never put into the script. */
static bool has_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A gnuplot single-quoted string: a quote inside is doubled; nothing else is special there (no
 * backslash escapes, no `command` or @macro substitution). Returns false, writing nothing, for a
 * string with a control character (bench_plot_check rules them out before measuring). */
static bool gp_quote(FILE *out, const char *s)
{
	if (has_control_char(s))
		return false;
	putc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			putc('\'', out);
		putc(*s, out);
	}
	putc('\'', out);
	return true;
}

static void plot_title(char *buf, size_t n, const struct bench_machine *m)
{
	snprintf(buf, n, "SHA-1 throughput, one-shot per message (median) - %s - libsha1kit %s", m->cpu_model,
	         m->library_version);
}

/* The directory part of `file`: "." when it has none. False if it does not fit. */
static bool plot_dir(const char *file, char *dir, size_t n)
{
	const char *slash = strrchr(file, '/');
	int len = snprintf(dir, n, "%.*s",
	                   slash == NULL   ? 1
	                   : slash == file ? 1
	                                   : (int)(slash - file),
	                   slash == NULL ? "." : file);
	return len >= 0 && (size_t)len < n;
}

int bench_plot_check(const char *file, const struct bench_machine *m)
{
	char dir[PATH_MAX], title[512];
	struct stat st;

	if (*file == '\0') {
		sk_error(0, "bench: --plot: empty file name");
		return -1;
	}
	if (has_control_char(file)) {
		sk_error(0, "bench: --plot: file name %s has a control character (newline, CR, tab, ...)",
		         sk_quote(file));
		return -1;
	}
	plot_title(title, sizeof(title), m);
	if (has_control_char(title)) {
		sk_error(0, "bench: --plot: the CPU model or library version has a control character");
		return -1;
	}
	const char *base = strrchr(file, '/');
	base = base != NULL ? base + 1 : file;
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		sk_error(0, "bench: --plot: %s is a directory name, not a file name", sk_quote(file));
		return -1;
	}
	if (strlen(file) + 32 > PATH_MAX || !plot_dir(file, dir, sizeof(dir))) {
		sk_error(ENAMETOOLONG, "bench: --plot: %s", sk_quote(file));
		return -1;
	}
	if (stat(dir, &st) != 0) {
		sk_error(errno, "bench: --plot: cannot write a chart into %s", sk_quote(dir));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sk_error(ENOTDIR, "bench: --plot: cannot write a chart into %s", sk_quote(dir));
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		sk_error(errno, "bench: --plot: cannot write a chart into %s", sk_quote(dir));
		return -1;
	}
	long name_max = pathconf(dir, _PC_NAME_MAX);
	if (name_max > 0 && strlen(base) > (size_t)name_max) {
		sk_error(ENAMETOOLONG, "bench: --plot: %s", sk_quote(file));
		return -1;
	}
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
		sk_error(0, "bench: --plot: %s exists and is %s", sk_quote(file),
		         S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		return -1;
	}
	return 0;
}

/* The gnuplot script, data included (a datablock: no data file). False if a string is unsafe. */
static bool write_script(FILE *gp, const char *out_file, const struct bench_report *r)
{
	const struct bench_settings *s = r->settings;
	char label[32], title[512];
	bool ok = true;

	/* One data block (gnuplot "index") per alignment and implementation, by increasing size:
	 * size, GB/s of the median, of the slowest and of the fastest sample. */
	size_t *order = malloc((s->n_sizes + 1) * sizeof(*order));
	if (order == NULL) {
		sk_error(errno, "bench: out of memory");
		return false;
	}
	for (size_t z = 0; z < s->n_sizes; z++) {
		size_t k = z;
		for (; k > 0 && s->sizes[order[k - 1]] > s->sizes[z]; k--)
			order[k] = order[k - 1];
		order[k] = z;
	}
	fputs("$data << EOD\n", gp);
	for (size_t a = 0; a < s->n_alignments; a++)
		for (size_t i = 0; i < r->n_impls; i++) {
			fprintf(gp, "# %s %s\n", r->impls[i].id, align_name(s->alignments[a]));
			for (size_t k = 0; k < s->n_sizes; k++) {
				const struct bench_result *x = result_at(r, a, order[k], i);
				if (x->size > 0 && !x->skipped)
					fprintf(gp, "%zu %.6f %.6f %.6f\n", x->size, gbps(x->size, x->median),
					        gbps(x->size, x->max), gbps(x->size, x->min));
			}
			fputs("\n\n", gp);
		}
	fputs("EOD\n", gp);
	free(order);

	fputs("set terminal svg size 1000,620 dynamic noenhanced font 'sans,11' background rgb 'white'\n",
	      gp);
	fputs("set output ", gp);
	ok &= gp_quote(gp, out_file);
	fputs("\nset title ", gp);
	plot_title(title, sizeof(title), r->machine);
	ok &= gp_quote(gp, title);
	fputs("\nset logscale x 2\nset xlabel 'message size'\nset ylabel 'GB/s'\nset yrange [0:*]\n"
	      "set grid\nset key outside right top\nset xtics (",
	      gp);
	bool first = true;
	for (size_t z = 0; z < s->n_sizes; z++) {
		if (s->sizes[z] == 0)
			continue;
		fprintf(gp, "%s", first ? "" : ", ");
		ok &= gp_quote(gp, bench_size_label(s->sizes[z], label, sizeof(label)));
		fprintf(gp, " %zu", s->sizes[z]);
		first = false;
	}
	fputs(")\nplot ", gp);
	size_t block = 0;
	for (size_t a = 0; a < s->n_alignments; a++)
		for (size_t i = 0; i < r->n_impls; i++, block++) {
			const struct bench_impl *im = &r->impls[i];
			char name[BENCH_ID_MAX + 8];
			snprintf(name, sizeof(name), "%s%s", im->id, s->alignments[a] ? " +1" : "");
			/* Plain SHA-1 of sha1kit solid, SHA-1DC dashed, other libraries dotted. */
			int dash = strcmp(im->library, "sha1kit") != 0 ? 3
			           : strcmp(im->flavour, "dc") == 0    ? 2
			                                               : 1;
			fprintf(gp, "%s$data index %zu using 1:2 with linespoints lw 2 dt %d title ",
			        block ? ", \\\n  " : "", block, dash);
			ok &= gp_quote(gp, name);
		}
	fputs("\nset output\n", gp);
	if (!ok)
		sk_error(0, "bench: --plot: a control character in a string for gnuplot; no chart");
	return ok;
}

/* The gist of gnuplot's messages, on one line: its "line N: ..." error and a "system error: ..."
 * that follows, else its last line; at most `n` - 1 printable characters. */
static void gnuplot_gist(FILE *msgs, char *out, size_t n)
{
	char line[512], last[512] = "";
	size_t used = 0;
	bool found = false;
	out[0] = '\0';
	rewind(msgs);
	while (fgets(line, sizeof(line), msgs) != NULL) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || strncmp(p, "gnuplot>", 8) == 0)
			continue; /* the echo of the failed command */
		snprintf(last, sizeof(last), "%s", p);
		char *err = strstr(p, "line ");
		bool is_error = !found && err != NULL && strchr(err, ':') != NULL;
		bool is_sys = found && strncmp(p, "system error:", 13) == 0;
		if (is_error || is_sys) {
			if (is_error)
				p = strchr(err, ':') + 1 + strspn(strchr(err, ':') + 1, " \t");
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "; " : "", p);
			if (used >= n)
				used = n - 1;
			found = true;
		}
	}
	if (!found)
		snprintf(out, n, "%s", last);
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

int bench_plot_svg(const char *file, const struct bench_report *r)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64], gist[200];
	FILE *script = NULL, *msgs = NULL;
	struct stat sb;
	pid_t pid;
	mode_t mask;
	int st, status = -1;

	if (bench_plot_check(file, r->machine) != 0 || !plot_dir(file, dir, sizeof(dir)))
		return -1;
	/* gnuplot writes a temporary file beside FILE, renamed to FILE once complete. Its name starts
	 * with '/' or "./": gnuplot reads a leading '|' as a pipe to a command. */
	if (strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0)
		snprintf(tmp, sizeof(tmp), "%s/.sha1kit-bench-plot-XXXXXX", strcmp(dir, "/") ? "." : "");
	else
		snprintf(tmp, sizeof(tmp), "%s%s/.sha1kit-bench-plot-XXXXXX", dir[0] == '/' ? "" : "./", dir);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sk_error(errno, "bench: --plot: cannot create a temporary file in %s", sk_quote(dir));
		return -1;
	}
	close(fd);
	script = tmpfile();
	msgs = tmpfile();
	if (script == NULL || msgs == NULL) {
		sk_error(errno, "bench: --plot: cannot create a temporary file for gnuplot");
		goto out;
	}
	if (!write_script(script, tmp, r))
		goto out;
	if (fflush(script) != 0 || ferror(script) || lseek(fileno(script), 0, SEEK_SET) != 0) {
		sk_error(errno, "bench: --plot: cannot write the gnuplot script");
		goto out;
	}

	/* gnuplot reads the script on its standard input; its output and messages go to `msgs`. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		sk_error(errno, "bench: --plot: cannot run gnuplot");
		goto out;
	}
	if (pid == 0) {
		if (dup2(fileno(script), STDIN_FILENO) >= 0 && dup2(fileno(msgs), STDOUT_FILENO) >= 0 &&
		    dup2(fileno(msgs), STDERR_FILENO) >= 0)
			execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			sk_error(errno, "bench: --plot: waiting for gnuplot");
			goto out;
		}
	if (WIFSIGNALED(st)) {
		sk_error(0, "bench: gnuplot was killed by signal %d; no chart written to %s", WTERMSIG(st),
		         sk_quote(file));
		goto out;
	}
	if (WEXITSTATUS(st) == 127) {
		sk_error(0, "bench: cannot run gnuplot (exit status 127); no chart written to %s",
		         sk_quote(file));
		goto out;
	}
	if (WEXITSTATUS(st) != 0) {
		gnuplot_gist(msgs, gist, sizeof(gist));
		sk_error(0, "bench: gnuplot failed with exit status %d%s%s%s; no chart written to %s",
		         WEXITSTATUS(st), gist[0] ? " (" : "", gist, gist[0] ? ")" : "", sk_quote(file));
		goto out;
	}
	if (stat(tmp, &sb) != 0 || sb.st_size == 0) {
		sk_error(0, "bench: gnuplot wrote no chart; nothing written to %s", sk_quote(file));
		goto out;
	}
	/* mkstemp made the file 0600: give it the mode a new file gets (0666 less the umask). */
	mask = umask(0);
	umask(mask);
	if (chmod(tmp, 0666 & ~mask) != 0 || rename(tmp, file) != 0) {
		sk_error(errno, "bench: --plot: cannot write %s", sk_quote(file));
		goto out;
	}
	status = 0;
out:
	if (status != 0)
		unlink(tmp);
	if (script != NULL)
		fclose(script);
	if (msgs != NULL)
		fclose(msgs);
	return status;
}

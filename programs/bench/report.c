/*
 * report.c - `sha1kit report FILE.json... -o DIR`: a static results site from the JSON documents of
 * `sha1kit bench --json` (bench/schema.json), one per machine: DIR/index.html and one SVG chart per
 * machine (DIR/chart-N.svg), with no script, no font and no address outside DIR.
 *
 * index.html has, with the machines as columns: one table per message size (and alignment) of
 * GB/s with the ratio to the baseline (OpenSSL's EVP SHA-1) measured on the same machine, one table
 * per Git workload (index-pack, verify-pack, fsck: wall time, ratio to the git on PATH of that
 * machine, CPU time, peak RSS), the machines in full, and how to add one. Part of the program
 * sha1kit-bench (which links jansson): `sha1kit report` runs it as `sha1kit-bench report ...`.
 *
 * Every input is read (jansson) and checked before anything is written: not JSON, not a bench
 * result (a member missing or of the wrong type where the schema says otherwise, an unknown member
 * at the top level, a result for an implementation that is not listed) and the same run given twice
 * (same CPU, OS, library version and date) are refused in one line naming the file. Every string
 * taken from a file is escaped for HTML (and SVG). Each output file is written to a temporary file
 * in DIR and renamed into place.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(SK_BENCH_HAVE_JANSSON)
#include <jansson.h>
#endif

#include "bench_output.h"
#include "cli.h"
#include "report.h"

#define REPORT_CMD "report"

static void report_usage(void)
{
	fputs("Usage: sha1kit report [OPTION]... FILE.json... -o DIR\n"
	      "Make a static results site in DIR from results of `sha1kit bench --json`\n"
	      "(one file per machine): DIR/index.html and one SVG chart per machine\n"
	      "(chart-1.svg, ...), no scripts, fonts or network addresses. Machines are the\n"
	      "columns of one table per message size (GB/s and the ratio to the baseline,\n"
	      "OpenSSL's EVP SHA-1, measured on the same machine) and per Git workload\n"
	      "(bench --git, --git-repo: wall time, ratio to git, CPU time, peak RSS).\n"
	      "\n"
	      "  -o, --output=DIR        write the site into DIR (created if missing; files of\n"
	      "                            the same names are replaced)\n"
	      "      --title=TEXT        the page title (default \"sha1kit benchmark results\")\n"
	      "      --help              display this help and exit\n"
	      "      --version           output version information and exit\n"
	      "\n"
	      "A file that is not JSON, not a bench result (bench/schema.json), or the same\n"
	      "run as another file (same CPU, OS, library version and date) is refused with\n"
	      "one line naming it, and nothing is written. Exit status: 0, or 1 on an error.\n",
	      stdout);
}

#if defined(SK_BENCH_HAVE_JANSSON)

struct machine {
	const char *file;
	json_t *root;
	const char *cpu_model, *cpu_id, *os, *compiler, *c_flags, *build_type, *library_version, *kernel,
	    *dc_kernel, *date, *note, *baseline;
	json_int_t logical_cpus;
	json_t *cpu_flags, *peers, *impls, *results, *settings, *git;
};

/* ---- reading and checking ---------------------------------------------------------------------- */

static int refuse(const char *file, const char *fmt, ...) SK_PRINTF(2, 3);
static int refuse(const char *file, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	sk_error(0, "report: %s: %s", sk_quote(file), msg);
	return -1;
}

static bool is_number(const json_t *v)
{
	return json_is_integer(v) || json_is_real(v);
}

static bool is_date(const char *s)
{
	static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
	if (strlen(s) != sizeof(pattern) - 1)
		return false;
	for (size_t i = 0; pattern[i]; i++)
		if (pattern[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pattern[i])
			return false;
	return true;
}

/* The members report.c reads, with the types bench/schema.json gives them. */
static int check_git(const char *file, json_t *git)
{
	json_error_t e;
	json_t *tools, *rows, *pack, *repo;
	json_int_t runs, warmup;
	const char *order, *clock;
	if (json_unpack_ex(git, &e, 0, "{s:I, s:I, s:s, s:s, s:o, s:o, s:o, s:o!}", "runs", &runs, "warmup",
	                   &warmup, "order", &order, "clock", &clock, "pack", &pack, "repository", &repo,
	                   "tools", &tools, "workloads", &rows) != 0)
		return refuse(file, "not a bench result: git: %s", e.text);
	if (!json_is_array(tools) || json_array_size(tools) < 2 || !json_is_array(rows) ||
	    json_array_size(rows) == 0)
		return refuse(file, "not a bench result: git: tools and workloads must be non-empty arrays");
	size_t i;
	json_t *v;
	json_array_foreach(tools, i, v)
	{
		const char *id, *kind, *path, *version;
		json_t *backend, *opts;
		if (json_unpack_ex(v, &e, 0, "{s:s, s:s, s:s, s:s, s:o, s:o!}", "id", &id, "kind", &kind,
		                   "path", &path, "version", &version, "sha1_backend", &backend,
		                   "build_options", &opts) != 0)
			return refuse(file, "not a bench result: git.tools[%zu]: %s", i, e.text);
		if (!json_is_string(backend) && !json_is_null(backend))
			return refuse(file, "not a bench result: git.tools[%zu].sha1_backend: not a string",
			              i);
		if (strcmp(kind, "sha1kit") != 0 && strcmp(kind, "git") != 0)
			return refuse(file,
			              "not a bench result: git.tools[%zu].kind: neither sha1kit nor git", i);
	}
	json_array_foreach(rows, i, v)
	{
		const char *workload, *tool;
		double wall, wmin, wmax, cpu, rss;
		json_t *ratio, *other;
		if (json_unpack_ex(v, &e, 0, "{s:s, s:s, s:{s:F, s:F, s:F}, s:{s:F}, s:{s:F}, s:{s:o}, s:o}",
		                   "workload", &workload, "tool", &tool, "wall_s", "median", &wall, "min",
		                   &wmin, "max", &wmax, "cpu_s", "median", &cpu, "max_rss_kib", "median",
		                   &rss, "ratio_to_git", "wall", &ratio, "samples", &other) != 0)
			return refuse(file, "not a bench result: git.workloads[%zu]: %s", i, e.text);
		bool named = false;
		for (size_t w = 0; w < BENCH_GIT_N_WORKLOADS; w++)
			named |= strcmp(workload, bench_git_workload_names[w]) == 0;
		if (!named)
			return refuse(file, "not a bench result: git.workloads[%zu]: unknown workload", i);
		if (!is_number(ratio) && !json_is_null(ratio))
			return refuse(
			    file, "not a bench result: git.workloads[%zu].ratio_to_git.wall: not a number",
			    i);
		if (wall < 0 || cpu < 0 || rss < 0)
			return refuse(file, "not a bench result: git.workloads[%zu]: a negative time or size",
			              i);
		bool known = false;
		size_t k;
		json_t *t;
		json_array_foreach(tools, k, t) known |=
		    strcmp(json_string_value(json_object_get(t, "id")), tool) == 0;
		if (!known)
			return refuse(file,
			              "not a bench result: git.workloads[%zu]: tool '%s' is not in git.tools",
			              i, tool);
	}
	return 0;
}

static int check_machine(struct machine *m)
{
	json_error_t e;
	const char *schema, *tool;
	json_t *ia32cap, *fast, *dc;
	const char *file = m->file;
	m->note = NULL;
	m->git = NULL;
	if (!json_is_object(m->root))
		return refuse(file, "not a bench result: the document is not a JSON object");
	if (json_unpack_ex(m->root, &e, 0, "{s:s, s:s, s:o, s:o, s:o, s:o, s?s, s?o!}", "schema", &schema,
	                   "tool", &tool, "machine", &ia32cap, "settings", &m->settings, "implementations",
	                   &m->impls, "results", &m->results, "note", &m->note, "git", &m->git) != 0)
		return refuse(file, "not a bench result: %s", e.text);
	if (strcmp(schema, "sha1kit-bench/1") != 0)
		return refuse(file, "not a bench result: schema '%s' (this report reads sha1kit-bench/1)",
		              schema);
	if (strcmp(tool, "sha1kit bench") != 0)
		return refuse(file, "not a bench result: tool '%s'", tool);
	json_t *mach = ia32cap;
	if (json_unpack_ex(
	        mach, &e, 0,
	        "{s:s, s:s, s:o, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s!}",
	        "cpu_model", &m->cpu_model, "cpu_id", &m->cpu_id, "cpu_flags", &m->cpu_flags, "logical_cpus",
	        &m->logical_cpus, "os", &m->os, "compiler", &m->compiler, "c_flags", &m->c_flags,
	        "build_type", &m->build_type, "library_version", &m->library_version, "kernel", &m->kernel,
	        "dc_kernel", &m->dc_kernel, "fast_kernels", &fast, "dc_kernels", &dc, "peers", &m->peers,
	        "openssl_ia32cap", &ia32cap, "date", &m->date) != 0)
		return refuse(file, "not a bench result: machine: %s", e.text);
	if (m->cpu_model[0] == '\0')
		return refuse(file, "not a bench result: machine.cpu_model is empty");
	if (!is_date(m->date))
		return refuse(file, "not a bench result: machine.date '%s' is not YYYY-MM-DDTHH:MM:SSZ",
		              m->date);
	if (!json_is_array(m->cpu_flags) || !json_is_array(m->peers) || !json_is_array(fast) ||
	    !json_is_array(dc))
		return refuse(
		    file,
		    "not a bench result: machine: cpu_flags, peers and the kernel lists must be arrays");
	size_t i;
	json_t *v;
	json_array_foreach(m->peers, i, v)
	{
		const char *lib, *ver;
		if (json_unpack_ex(v, &e, 0, "{s:s, s:s!}", "library", &lib, "version", &ver) != 0)
			return refuse(file, "not a bench result: machine.peers[%zu]: %s", i, e.text);
	}
	json_t *baseline;
	if (json_unpack_ex(m->settings, &e, 0, "{s:o}", "baseline", &baseline) != 0)
		return refuse(file, "not a bench result: settings: %s", e.text);
	if (!json_is_string(baseline) && !json_is_null(baseline))
		return refuse(file, "not a bench result: settings.baseline: not a string");
	m->baseline = json_string_value(baseline);
	if (!json_is_array(m->impls) || json_array_size(m->impls) == 0)
		return refuse(file, "not a bench result: implementations: not a non-empty array");
	json_array_foreach(m->impls, i, v)
	{
		const char *id, *lib, *flavour, *shape, *note;
		json_t *kernel;
		json_int_t per_call;
		int def;
		if (json_unpack_ex(v, &e, 0, "{s:s, s:s, s:s, s:o, s:s, s:I, s:b, s:s!}", "id", &id,
		                   "library", &lib, "flavour", &flavour, "kernel", &kernel, "shape", &shape,
		                   "messages_per_call", &per_call, "default", &def, "note", &note) != 0)
			return refuse(file, "not a bench result: implementations[%zu]: %s", i, e.text);
		if (id[0] == '\0')
			return refuse(file, "not a bench result: implementations[%zu].id is empty", i);
	}
	if (!json_is_array(m->results) || json_array_size(m->results) == 0)
		return refuse(file, "not a bench result: results: not a non-empty array");
	json_array_foreach(m->results, i, v)
	{
		const char *impl;
		json_int_t size, mis;
		double median, gb;
		json_t *ratio;
		if (json_unpack_ex(v, &e, 0, "{s:s, s:I, s:I, s:{s:F}, s:{s:F}, s:o}", "implementation",
		                   &impl, "size", &size, "misalignment", &mis, "ns_per_message", "median",
		                   &median, "gb_per_s", "median", &gb, "ratio_to_baseline", &ratio) != 0)
			return refuse(file, "not a bench result: results[%zu]: %s", i, e.text);
		if (size < 0 || (mis != 0 && mis != 1) || median < 0 || gb < 0)
			return refuse(
			    file, "not a bench result: results[%zu]: size, misalignment or time out of range",
			    i);
		if (!is_number(ratio) && !json_is_null(ratio))
			return refuse(file,
			              "not a bench result: results[%zu].ratio_to_baseline: not a number", i);
		bool known = false;
		size_t k;
		json_t *im;
		json_array_foreach(m->impls, k, im) known |=
		    strcmp(json_string_value(json_object_get(im, "id")), impl) == 0;
		if (!known)
			return refuse(file,
			              "not a bench result: results[%zu]: implementation '%s' is not listed",
			              i, impl);
	}
	if (m->git != NULL && check_git(file, m->git) != 0)
		return -1;
	return 0;
}

static int load_machine(struct machine *m, const char *file)
{
	json_error_t e;
	struct stat st;
	m->file = file;
	if (stat(file, &st) == 0 && S_ISDIR(st.st_mode))
		return refuse(file, "%s", strerror(EISDIR)); /* jansson reads a directory as empty */
	m->root = json_load_file(file, JSON_REJECT_DUPLICATES, &e);
	if (m->root == NULL) {
		if (e.line < 0) /* could not be read at all */
			return refuse(file, "%s", e.text);
		return refuse(file, "not valid JSON (line %d, column %d): %s", e.line, e.column, e.text);
	}
	return check_machine(m);
}

static bool same_run(const struct machine *a, const struct machine *b)
{
	return strcmp(a->cpu_model, b->cpu_model) == 0 && strcmp(a->cpu_id, b->cpu_id) == 0 &&
	       strcmp(a->os, b->os) == 0 && strcmp(a->library_version, b->library_version) == 0 &&
	       strcmp(a->date, b->date) == 0;
}

/* ---- HTML -------------------------------------------------------------------------------------- */

/* `s` as HTML (or XML) text or attribute value: & < > " ' escaped, control characters as spaces. */
static void esc(FILE *out, const char *s)
{
	for (; s != NULL && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			putc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
		}
	}
}

static const char *str_member(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s != NULL ? s : "";
}

static double num_member(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* The result of implementation `id` at `size` and `mis` in machine `m`, or NULL. */
static const json_t *find_result(const struct machine *m, const char *id, json_int_t size, json_int_t mis)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->results, i, v)
	{
		if (json_integer_value(json_object_get(v, "size")) == size &&
		    json_integer_value(json_object_get(v, "misalignment")) == mis &&
		    strcmp(str_member(v, "implementation"), id) == 0)
			return v;
	}
	return NULL;
}

static const json_t *find_impl(const struct machine *m, const char *id)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->impls, i, v)
	{
		if (strcmp(str_member(v, "id"), id) == 0)
			return v;
	}
	return NULL;
}

/* A growing list of distinct strings (borrowed from the documents), in order of first appearance. */
struct names {
	const char **v;
	size_t n, cap;
};

static bool names_add(struct names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		const char **v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			return false;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
	return true;
}

struct cell_key {
	json_int_t size, mis;
};

static int cmp_key(const void *a, const void *b)
{
	const struct cell_key *x = a, *y = b;
	if (x->mis != y->mis)
		return x->mis < y->mis ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

static void size_label(char *buf, size_t n, json_int_t size)
{
	bench_size_label((size_t)size, buf, n);
}

static void machine_header(FILE *out, const struct machine *m, size_t index)
{
	fprintf(out, "<th scope=\"col\" class=\"machine\"><span class=\"cpu\">");
	esc(out, m->cpu_model);
	fprintf(out, "</span><br><span class=\"sub\">");
	esc(out, m->cpu_id);
	fputs("<br>kernels: ", out);
	esc(out, m->kernel);
	fputs(", dc ", out);
	esc(out, m->dc_kernel);
	fputs("<br>", out);
	esc(out, m->os);
	fputs("<br>", out);
	esc(out, m->compiler);
	fputs(" (", out);
	esc(out, m->build_type);
	fputs(")<br>", out);
	esc(out, m->date);
	fprintf(out, " &middot; <a href=\"#machine-%zu\">details</a></span></th>", index + 1);
}

static void table_head(FILE *out, const struct machine *ms, size_t n, const char *first)
{
	fprintf(out, "<thead><tr><th scope=\"col\">%s</th>", first);
	for (size_t i = 0; i < n; i++)
		machine_header(out, &ms[i], i);
	fputs("</tr></thead>\n", out);
}

static void throughput_tables(FILE *out, const struct machine *ms, size_t n)
{
	struct cell_key *keys = NULL;
	size_t n_keys = 0, cap = 0;
	struct names ids = {0};
	for (size_t i = 0; i < n; i++) {
		size_t k;
		json_t *v;
		json_array_foreach(ms[i].impls, k, v) names_add(&ids, str_member(v, "id"));
		json_array_foreach(ms[i].results, k, v)
		{
			struct cell_key key = {json_integer_value(json_object_get(v, "size")),
			                       json_integer_value(json_object_get(v, "misalignment"))};
			bool seen = false;
			for (size_t j = 0; j < n_keys && !seen; j++)
				seen = keys[j].size == key.size && keys[j].mis == key.mis;
			if (seen)
				continue;
			if (n_keys == cap) {
				cap = cap ? 2 * cap : 16;
				struct cell_key *nk = realloc(keys, cap * sizeof(*nk));
				if (nk == NULL)
					break;
				keys = nk;
			}
			keys[n_keys++] = key;
		}
	}
	qsort(keys, n_keys, sizeof(*keys), cmp_key);
	fputs(
	    "<h2 id=\"throughput\">Throughput by message size</h2>\n"
	    "<p>Median GB/s (decimal) of one-shot hashing, thread CPU time, from <code>sha1kit bench</code>; "
	    "in parentheses the ratio to the baseline implementation (OpenSSL&rsquo;s "
	    "<code>EVP_Digest</code> "
	    "SHA-1, <code>openssl-evp</code>, unless the machine&rsquo;s details say otherwise; for the "
	    "SHA-256 rows its SHA-256, <code>openssl-evp-sha256</code>) measured in the "
	    "same run on the same machine (&gt; 1: faster). <strong>Bold</strong>: the kernel sha1kit "
	    "chooses on that machine. Ratios compare across machines; absolute GB/s less so.</p>\n",
	    out);
	for (size_t k = 0; k < n_keys; k++) {
		char label[32];
		size_label(label, sizeof(label), keys[k].size);
		fprintf(out, "<h3 id=\"size-%lld-%lld\">%s messages%s</h3>\n", (long long)keys[k].size,
		        (long long)keys[k].mis, label, keys[k].mis ? ", misaligned (+1)" : "");
		fprintf(
		    out,
		    "<table class=\"results throughput\" data-size=\"%lld\" data-misalignment=\"%lld\">\n",
		    (long long)keys[k].size, (long long)keys[k].mis);
		table_head(out, ms, n, "implementation");
		fputs("<tbody>\n", out);
		for (size_t r = 0; r < ids.n; r++) {
			bool any = false;
			for (size_t i = 0; i < n && !any; i++)
				any = find_result(&ms[i], ids.v[r], keys[k].size, keys[k].mis) != NULL;
			if (!any)
				continue;
			fputs("<tr><th scope=\"row\">", out);
			esc(out, ids.v[r]);
			fputs("</th>", out);
			for (size_t i = 0; i < n; i++) {
				const json_t *x = find_result(&ms[i], ids.v[r], keys[k].size, keys[k].mis);
				if (x == NULL) {
					fputs("<td class=\"none\">&mdash;</td>", out);
					continue;
				}
				const json_t *im = find_impl(&ms[i], ids.v[r]);
				bool def = json_is_true(json_object_get(im, "default"));
				double gb = num_member(json_object_get(x, "gb_per_s"), "median");
				const json_t *ratio = json_object_get(x, "ratio_to_baseline");
				fprintf(out, "<td%s>%s%.3f%s", def ? " class=\"default\"" : "",
				        def ? "<strong>" : "", gb, def ? "</strong>" : "");
				if (is_number(ratio))
					fprintf(out, " <span class=\"ratio\">(%.2f&times;)</span>",
					        json_number_value(ratio));
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
		fputs("</tbody></table>\n", out);
	}
	free(keys);
	free(ids.v);
}

/* The row of the Git tables that tool `t` of a machine belongs to: "sha1kit", "git (on PATH)", or
 * for another git its version and SHA-1 backend. Writes into buf. */
static const char *git_row_key(char *buf, size_t n, const json_t *t)
{
	const char *id = str_member(t, "id");
	if (strcmp(id, "sha1kit") == 0 || strcmp(id, "git") == 0)
		snprintf(buf, n, "%s", id);
	else
		snprintf(buf, n, "git %s, SHA-1 %s", str_member(t, "version"),
		         json_is_string(json_object_get(t, "sha1_backend")) ? str_member(t, "sha1_backend")
		                                                            : "not reported");
	return buf;
}

static const json_t *git_tool(const json_t *git, const char *id)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(git, "tools"), i, v)
	{
		if (strcmp(str_member(v, "id"), id) == 0)
			return v;
	}
	return NULL;
}

static const json_t *git_cell(const struct machine *m, const char *workload, const char *key)
{
	char buf[512];
	size_t i;
	json_t *v;
	if (m->git == NULL)
		return NULL;
	json_array_foreach(json_object_get(m->git, "workloads"), i, v)
	{
		const json_t *t = git_tool(m->git, str_member(v, "tool"));
		if (strcmp(str_member(v, "workload"), workload) == 0 && t != NULL &&
		    strcmp(git_row_key(buf, sizeof(buf), t), key) == 0)
			return v;
	}
	return NULL;
}

static void git_tables(FILE *out, const struct machine *ms, size_t n)
{
	const char *const *workloads = bench_git_workload_names;
	static const char *const what[BENCH_GIT_N_WORKLOADS] = {
	    "<code>index-pack -o OUT.idx PACK</code> (each tool&rsquo;s default thread count)",
	    "<code>index-pack --threads=1 -o OUT.idx PACK</code>",
	    "<code>index-pack --verify PACK</code> (each tool&rsquo;s default thread count)",
	    "<code>index-pack --verify --threads=1 PACK</code>",
	    "<code>verify-pack PACK.idx</code>",
	    ("<code>sha1kit fsck --no-dangling --no-progress</code> against <code>git fsck --full "
	     "--no-dangling --no-progress</code>, in the repository"),
	    ("<code>sha1kit fsck --threads=1 --no-dangling --no-progress</code> against <code>git fsck "
	     "--full --no-dangling --no-progress</code>, in the repository"),
	    "as fsck, in a repository holding the same history as loose objects",
	};
	bool any_git = false;
	for (size_t i = 0; i < n; i++)
		any_git |= ms[i].git != NULL;
	fputs("<h2 id=\"git\">Git workloads</h2>\n", out);
	if (!any_git) {
		fputs("<p>No machine has Git workloads yet (<code>sha1kit bench --git=PACK "
		      "--git-repo=DIR</code>).</p>\n",
		      out);
		return;
	}
	fputs("<p>Whole processes (<code>sha1kit bench --git</code>, <code>--git-repo</code>): median wall "
	      "time of alternating runs after a warm-up, in parentheses the ratio to the git on "
	      "<code>PATH</code> of the same machine (its median wall time divided by this one: &gt; 1 is "
	      "faster than git), then the median CPU time (user + system) and peak RSS. Every idx sha1kit "
	      "wrote was git&rsquo;s byte for byte, and fsck printed what git fsck printed. The pack and "
	      "repository are named in each machine&rsquo;s details.</p>\n",
	      out);
	for (size_t w = 0; w < BENCH_GIT_N_WORKLOADS; w++) {
		struct names keys = {0};
		char buf[512];
		for (size_t i = 0; i < n; i++) {
			size_t k;
			json_t *v;
			if (ms[i].git == NULL)
				continue;
			json_array_foreach(json_object_get(ms[i].git, "workloads"), k, v)
			{
				const json_t *t = git_tool(ms[i].git, str_member(v, "tool"));
				if (strcmp(str_member(v, "workload"), workloads[w]) == 0 && t != NULL) {
					char *key = strdup(git_row_key(buf, sizeof(buf), t));
					if (key == NULL)
						continue;
					size_t before = keys.n;
					names_add(&keys, key);
					if (keys.n == before)
						free(key);
				}
			}
		}
		if (keys.n == 0)
			continue;
		fprintf(out, "<h3 id=\"git-%s\">%s</h3>\n<p>%s</p>\n", workloads[w], workloads[w], what[w]);
		fprintf(out, "<table class=\"results git\" data-workload=\"%s\">\n", workloads[w]);
		table_head(out, ms, n, "tool");
		fputs("<tbody>\n", out);
		for (size_t r = 0; r < keys.n; r++) {
			fputs("<tr><th scope=\"row\">", out);
			esc(out, strcmp(keys.v[r], "git") == 0 ? "git (on PATH)" : keys.v[r]);
			fputs("</th>", out);
			for (size_t i = 0; i < n; i++) {
				const json_t *x = git_cell(&ms[i], workloads[w], keys.v[r]);
				if (x == NULL) {
					fputs("<td class=\"none\">&mdash;</td>", out);
					continue;
				}
				const json_t *t = git_tool(ms[i].git, str_member(x, "tool"));
				const json_t *ratio =
				    json_object_get(json_object_get(x, "ratio_to_git"), "wall");
				fprintf(out, "<td>%.3f s",
				        num_member(json_object_get(x, "wall_s"), "median"));
				if (is_number(ratio))
					fprintf(out, " <span class=\"ratio\">(%.2f&times;)</span>",
					        json_number_value(ratio));
				fprintf(out, "<br><span class=\"sub\">CPU %.3f s &middot; %.1f MB",
				        num_member(json_object_get(x, "cpu_s"), "median"),
				        num_member(json_object_get(x, "max_rss_kib"), "median") * 1024 / 1e6);
				if (strcmp(keys.v[r], "sha1kit") != 0) {
					fputs(" &middot; ", out);
					esc(out, str_member(t, "version"));
				}
				fputs("</span></td>", out);
			}
			fputs("</tr>\n", out);
		}
		fputs("</tbody></table>\n", out);
		for (size_t r = 0; r < keys.n; r++)
			free((char *)keys.v[r]);
		free(keys.v);
	}
}

static void machine_details(FILE *out, const struct machine *m, size_t index)
{
	size_t i;
	json_t *v;
	fprintf(out, "<section class=\"machine-details\" id=\"machine-%zu\">\n<h3>", index + 1);
	esc(out, m->cpu_model);
	fputs("</h3>\n<dl>\n<dt>CPU</dt><dd>", out);
	esc(out, m->cpu_id);
	fprintf(out, "; %lld logical CPUs</dd>\n<dt>CPU flags</dt><dd>", (long long)m->logical_cpus);
	json_array_foreach(m->cpu_flags, i, v)
	{
		if (i)
			fputs(" ", out);
		esc(out, json_string_value(v));
	}
	fputs("</dd>\n<dt>OS</dt><dd>", out);
	esc(out, m->os);
	fputs("</dd>\n<dt>Compiler</dt><dd>", out);
	esc(out, m->compiler);
	fputs("; ", out);
	esc(out, m->build_type);
	fputs("; ", out);
	esc(out, m->c_flags);
	fputs("</dd>\n<dt>Library</dt><dd>libsha1kit ", out);
	esc(out, m->library_version);
	fputs("; kernel ", out);
	esc(out, m->kernel);
	fputs(", dc kernel ", out);
	esc(out, m->dc_kernel);
	fputs("</dd>\n<dt>Peers</dt><dd>", out);
	json_array_foreach(m->peers, i, v)
	{
		if (i)
			fputs("; ", out);
		esc(out, str_member(v, "library"));
		fputs(" ", out);
		esc(out, str_member(v, "version"));
	}
	if (json_array_size(m->peers) == 0)
		fputs("none", out);
	fputs("</dd>\n<dt>Baseline</dt><dd>", out);
	esc(out, m->baseline != NULL ? m->baseline : "none (no ratios)");
	if (json_is_string(json_object_get(m->settings, "baseline_sha256"))) {
		fputs("; SHA-256 rows: ", out);
		esc(out, str_member(m->settings, "baseline_sha256"));
	}
	/* "messages" came with the distinct messages (2026-12): files without it hashed one message */
	const char *msgs = str_member(m->settings, "messages");
	fprintf(
	    out, "</dd>\n<dt>Method</dt><dd>%lld repetitions of &ge; %g ms, batch %lld per call, %s%s</dd>\n",
	    (long long)json_integer_value(json_object_get(m->settings, "repetitions")),
	    num_member(m->settings, "sample_ms"),
	    (long long)json_integer_value(json_object_get(m->settings, "batch")),
	    strcmp(msgs, "distinct") == 0 ? "distinct random messages in turn" : "one fixed message per size",
	    json_is_true(json_object_get(m->settings, "quick")) ? " (--quick)" : "");
	fputs("<dt>Date</dt><dd>", out);
	esc(out, m->date);
	fputs("</dd>\n", out);
	if (m->note != NULL) {
		fputs("<dt>Note</dt><dd class=\"note\">", out);
		esc(out, m->note);
		fputs("</dd>\n", out);
	}
	if (m->git != NULL) {
		const json_t *pack = json_object_get(m->git, "pack"),
		             *repo = json_object_get(m->git, "repository");
		fprintf(out, "<dt>Git workloads</dt><dd>%lld runs each",
		        (long long)json_integer_value(json_object_get(m->git, "runs")));
		if (json_is_object(pack)) {
			fputs("; pack ", out);
			esc(out, str_member(pack, "path"));
			fprintf(out, " (%.1f MiB, %lld objects)", num_member(pack, "bytes") / 1048576.0,
			        (long long)json_integer_value(json_object_get(pack, "objects")));
		}
		if (json_is_object(repo)) {
			fputs("; repository ", out);
			esc(out, str_member(repo, "path"));
		}
		fputs("<br>", out);
		json_array_foreach(json_object_get(m->git, "tools"), i, v)
		{
			fputs(i ? "<br>" : "", out);
			esc(out, str_member(v, "id"));
			fputs(": ", out);
			esc(out, str_member(v, "kind"));
			fputs(" ", out);
			esc(out, str_member(v, "version"));
			fputs(", SHA-1: ", out);
			esc(out, json_is_string(json_object_get(v, "sha1_backend"))
			             ? str_member(v, "sha1_backend")
			             : "not reported by this git");
			fputs(" (", out);
			esc(out, str_member(v, "path"));
			fputs(")", out);
		}
		fputs("</dd>\n", out);
	}
	fputs("<dt>File</dt><dd><code>", out);
	const char *base = strrchr(m->file, '/');
	esc(out, base != NULL ? base + 1 : m->file);
	fprintf(out, "</code></dd>\n</dl>\n<p><img src=\"chart-%zu.svg\" width=\"960\" alt=\"", index + 1);
	fputs("SHA-1 throughput against message size on ", out);
	esc(out, m->cpu_model);
	fputs("\"></p>\n</section>\n", out);
}

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:100em}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
    "th,td{border:1px solid #bbb;padding:0.25em 0.5em;vertical-align:top}"
    "td{text-align:right;font-variant-numeric:tabular-nums}"
    "th[scope=row]{text-align:left;font-weight:normal;font-family:monospace}"
    "th.machine{text-align:left;min-width:14em}.cpu{font-weight:bold}"
    ".sub{font-size:85%;font-weight:normal;color:#555}.ratio{color:#555}"
    "td.none{color:#aaa;text-align:center}dt{font-weight:bold}dd{margin:0 0 0.4em 1.5em}"
    "code{background:#f3f3f3;padding:0 0.2em}";

static int write_index(FILE *out, const struct machine *ms, size_t n, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' "
	      "data:; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>",
	      out);
	esc(out, title);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	esc(out, title);
	fprintf(out,
	        "</h1>\n<p>%zu machine%s. Made by <code>sha1kit report</code> from the results of "
	        "<code>sha1kit bench --json</code> in <code>bench/results/</code>; each machine is a "
	        "column, its details are <a href=\"#machines\">below</a>.</p>\n",
	        n, n == 1 ? "" : "s");
	fputs("<nav><a href=\"#throughput\">Throughput</a> &middot; <a href=\"#git\">Git workloads</a> "
	      "&middot; <a href=\"#machines\">Machines</a> &middot; <a href=\"#add\">Add your "
	      "machine</a></nav>\n",
	      out);
	throughput_tables(out, ms, n);
	git_tables(out, ms, n);
	fputs("<h2 id=\"machines\">Machines</h2>\n", out);
	for (size_t i = 0; i < n; i++)
		machine_details(out, &ms[i], i);
	fputs("<h2 id=\"add\">How to add your machine</h2>\n"
	      "<p>Build a release tree (<code>make release</code>), then run, on a machine otherwise "
	      "idle, <code>make bench-result</code> (or by hand <code>build/release/programs/sha1kit/sha1kit "
	      "bench --json --git=PACK --git-repo=DIR &gt; bench/results/CPU.json</code>, naming the file "
	      "after the CPU, with <code>--note=TEXT</code> for anything the numbers do not say, such as a "
	      "shared virtual machine). Add that one file to <code>bench/results/</code>, check the page "
	      "with <code>make results</code> (it writes <code>build/results/index.html</code>) and send "
	      "the file in a pull request.</p>\n</body>\n</html>\n",
	      out);
	return ferror(out) ? -1 : 0;
}

/* ---- SVG chart --------------------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"};

static int write_chart(FILE *out, const struct machine *m)
{
	const double W = 960, L = 70, R = 300, T = 50, B = 60;
	size_t i;
	json_t *v;
	/* Tall enough for the legend: one line of 15 px per implementation. */
	const double H = fmax(560, T + 16 + 15 * (double)json_array_size(m->impls) + B / 2);
	const double pw = W - L - R, ph = H - T - B;
	json_int_t smin = -1, smax = -1;
	double gmax = 0;
	json_array_foreach(m->results, i, v)
	{
		json_int_t size = json_integer_value(json_object_get(v, "size"));
		double gb = num_member(json_object_get(v, "gb_per_s"), "median");
		if (size <= 0 || json_integer_value(json_object_get(v, "misalignment")) != 0)
			continue;
		smin = smin < 0 || size < smin ? size : smin;
		smax = size > smax ? size : smax;
		gmax = gb > gmax ? gb : gmax;
	}
	fprintf(out,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
	        "font-family=\"sans-serif\" font-size=\"12\">\n<title>",
	        W, H, W, H);
	esc(out, m->cpu_model);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	fprintf(out,
	        "<text x=\"%g\" y=\"24\" font-size=\"15\" font-weight=\"bold\">SHA-1 throughput (median "
	        "GB/s), aligned, ",
	        L);
	esc(out, m->cpu_model);
	fputs("</text>\n", out);
	if (smin <= 0 || gmax <= 0) {
		fprintf(out, "<text x=\"%g\" y=\"%g\">no aligned results above 0 bytes</text>\n</svg>\n", L,
		        T + 20);
		return ferror(out) ? -1 : 0;
	}
	double lmin = log2((double)smin), lmax = log2((double)smax);
	if (lmax - lmin < 1) {
		lmin -= 0.5;
		lmax += 0.5;
	}
	/* y axis: 0 to a round step above the maximum. */
	double step = pow(10, floor(log10(gmax / 5)));
	if (gmax / step > 25)
		step *= 5;
	else if (gmax / step > 10)
		step *= 2;
	double ymax = ceil(gmax / step) * step;
#define XP(s) (L + (log2((double)(s)) - lmin) / (lmax - lmin) * pw)
#define YP(g) (T + ph - (g) / ymax * ph)
	fprintf(out, "<g stroke=\"#ddd\">\n");
	for (double y = 0; y <= ymax + step / 2; y += step)
		fprintf(out, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\"/>\n", L, YP(y), L + pw,
		        YP(y));
	fputs("</g>\n<g text-anchor=\"end\">\n", out);
	for (double y = 0; y <= ymax + step / 2; y += step)
		fprintf(out, "<text x=\"%g\" y=\"%.1f\">%g</text>\n", L - 6, YP(y) + 4, y);
	fputs("</g>\n", out);
	/* x ticks: the sizes measured. */
	char labels[64][32];
	size_t n_labels = 0;
	json_array_foreach(m->results, i, v)
	{
		json_int_t size = json_integer_value(json_object_get(v, "size"));
		if (size <= 0 || n_labels >= 64)
			continue;
		char buf[32];
		size_label(buf, sizeof(buf), size);
		bool seen = false;
		for (size_t k = 0; k < n_labels && !seen; k++)
			seen = strcmp(labels[k], buf) == 0;
		if (seen)
			continue;
		snprintf(labels[n_labels], sizeof(labels[0]), "%s", buf);
		fprintf(out, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", XP(size),
		        T + ph + 18, buf);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#ddd\"/>\n",
		        XP(size), T, XP(size), T + ph);
		n_labels++;
	}
	fprintf(out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#444\"/>\n",
	        L, T, pw, ph);
	fprintf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">message size (log scale)</text>\n",
	        L + pw / 2, H - 18);
	fprintf(out, "<text transform=\"translate(18 %g) rotate(-90)\" text-anchor=\"middle\">GB/s</text>\n",
	        T + ph / 2);
	/* One line per implementation: sha1kit plain solid, SHA-1DC dashed, other libraries dotted. */
	size_t line = 0;
	json_array_foreach(m->impls, i, v)
	{
		const char *id = str_member(v, "id");
		const char *lib = str_member(v, "library"), *flavour = str_member(v, "flavour");
		const char *dash = strcmp(lib, "sha1kit") != 0  ? " stroke-dasharray=\"2 3\""
		                   : strcmp(flavour, "dc") == 0 ? " stroke-dasharray=\"7 4\""
		                                                : "";
		const char *color = palette[line % (sizeof(palette) / sizeof(palette[0]))];
		/* Points by increasing size. */
		json_int_t last = 0;
		bool any = false;
		fputs("<polyline fill=\"none\" stroke-width=\"2\"", out);
		fprintf(out, " stroke=\"%s\"%s points=\"", color, dash);
		for (;;) {
			const json_t *best = NULL;
			size_t k;
			json_t *x;
			json_array_foreach(m->results, k, x)
			{
				json_int_t size = json_integer_value(json_object_get(x, "size"));
				if (size <= last ||
				    json_integer_value(json_object_get(x, "misalignment")) != 0 ||
				    strcmp(str_member(x, "implementation"), id) != 0)
					continue;
				if (best == NULL || size < json_integer_value(json_object_get(best, "size")))
					best = x;
			}
			if (best == NULL)
				break;
			last = json_integer_value(json_object_get(best, "size"));
			fprintf(out, "%s%.1f,%.1f", any ? " " : "", XP(last),
			        YP(num_member(json_object_get(best, "gb_per_s"), "median")));
			any = true;
		}
		fputs("\"/>\n", out);
		if (!any)
			continue;
		double ly = T + 6 + (double)line * 15;
		fprintf(out,
		        "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2\"%s/>\n",
		        L + pw + 12, ly, L + pw + 40, ly, color, dash);
		fprintf(out, "<text x=\"%g\" y=\"%.1f\">", L + pw + 46, ly + 4);
		esc(out, id);
		fputs(json_is_true(json_object_get(v, "default")) ? " (default)" : "", out);
		fputs("</text>\n", out);
		line++;
	}
#undef XP
#undef YP
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}

/* ---- files ------------------------------------------------------------------------------------- */

struct pending {
	char tmp[4096 + 64], final[4096 + 64];
};

/* Write one file through a temporary file in `dir`; the rename happens in commit_all. */
static int write_temp(struct pending *p, const char *dir, const char *name,
                      int (*fn)(FILE *, const struct machine *, size_t, const char *),
                      const struct machine *ms, size_t n, const char *title)
{
	snprintf(p->final, sizeof(p->final), "%s/%s", dir, name);
	snprintf(p->tmp, sizeof(p->tmp), "%s/.%s.XXXXXX", dir, name);
	int fd = mkstemp(p->tmp);
	if (fd < 0) {
		sk_error(errno, "report: cannot create a file in %s", sk_quote(dir));
		p->tmp[0] = '\0';
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (f == NULL) {
		sk_error(errno, "report: %s", sk_quote(p->tmp));
		close(fd);
		return -1;
	}
	int rc = fn(f, ms, n, title);
	int e = errno;
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc != 0) {
		sk_error(e, "report: cannot write %s", sk_quote(p->final));
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (chmod(p->tmp, 0666 & ~mask) != 0) {
		sk_error(errno, "report: %s", sk_quote(p->tmp));
		return -1;
	}
	return 0;
}

static int index_fn(FILE *out, const struct machine *ms, size_t n, const char *title)
{
	return write_index(out, ms, n, title);
}

static int chart_fn(FILE *out, const struct machine *ms, size_t n, const char *title)
{
	(void)n;
	(void)title;
	return write_chart(out, ms);
}

static int make_dir(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	sk_error(errno == EEXIST ? ENOTDIR : errno, "report: -o %s", sk_quote(dir));
	return -1;
}

static int generate(const char *dir, struct machine *ms, size_t n, const char *title)
{
	struct pending *p = calloc(n + 1, sizeof(*p));
	int status = -1;
	size_t done = 0;
	if (p == NULL) {
		sk_error(errno, "report: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++, done++) {
		char name[32];
		snprintf(name, sizeof(name), "chart-%zu.svg", i + 1);
		if (write_temp(&p[i], dir, name, chart_fn, &ms[i], 1, NULL) != 0)
			goto out;
	}
	if (write_temp(&p[n], dir, "index.html", index_fn, ms, n, title) != 0)
		goto out;
	done++;
	/* All written: rename them into place, the page last. */
	for (size_t i = 0; i <= n; i++) {
		if (rename(p[i].tmp, p[i].final) != 0) {
			sk_error(errno, "report: cannot write %s", sk_quote(p[i].final));
			goto out;
		}
		p[i].tmp[0] = '\0';
	}
	status = 0;
out:
	for (size_t i = 0; i < done + 1 && i <= n; i++)
		if (p[i].tmp[0])
			unlink(p[i].tmp);
	free(p);
	return status;
}

int report_command(int argc, char **argv)
{
	enum { OPT_TITLE = 256, OPT_HELP, OPT_VERSION };
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"title", required_argument, NULL, OPT_TITLE},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = NULL, *title = "sha1kit benchmark results";
	int c;
	static char getopt_name[] = SK_PROGRAM ": " REPORT_CMD;
	argv[0] = getopt_name;
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case OPT_TITLE:
			title = optarg;
			break;
		case OPT_HELP:
			report_usage();
			return sk_finish(SK_EXIT_OK, false);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish(SK_EXIT_OK, false);
		default:
			sk_usage_error(REPORT_CMD, NULL);
		}
	}
	if (dir == NULL)
		sk_usage_error(REPORT_CMD, "report: no output directory (-o DIR)");
	if (*dir == '\0')
		sk_usage_error(REPORT_CMD, "report: -o: empty directory name");
	if (optind >= argc)
		sk_usage_error(REPORT_CMD, "report: no result file (FILE.json from sha1kit bench --json)");

	size_t n = (size_t)(argc - optind);
	struct machine *ms = calloc(n, sizeof(*ms));
	int status = SK_EXIT_FAILURE;
	if (ms == NULL) {
		sk_error(errno, "report: out of memory");
		return SK_EXIT_FAILURE;
	}
	size_t loaded = 0;
	for (; loaded < n; loaded++) {
		if (load_machine(&ms[loaded], argv[optind + (int)loaded]) != 0) {
			loaded++;
			goto out;
		}
		for (size_t k = 0; k < loaded; k++)
			if (same_run(&ms[k], &ms[loaded])) {
				refuse(ms[loaded].file,
				       "the same run as %s (CPU '%s', date %s): give each run once",
				       ms[k].file, ms[k].cpu_model, ms[k].date);
				loaded++;
				goto out;
			}
	}
	if (make_dir(dir) != 0 || generate(dir, ms, n, title) != 0)
		goto out;
	status = SK_EXIT_OK;
out:
	for (size_t i = 0; i < loaded; i++)
		json_decref(ms[i].root);
	free(ms);
	return sk_finish(status, false);
}

#else /* no jansson */

int report_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0) {
			report_usage();
			return sk_finish(SK_EXIT_OK, false);
		}
	sk_error(0, "report: not available: built without jansson (Debian: libjansson-dev)");
	return SK_EXIT_FAILURE;
}

#endif

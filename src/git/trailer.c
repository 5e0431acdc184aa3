/*
 * trailer.c - headers and trailing checksums of commit-graph, multi-pack-index and .rev files
 * (trailer.h).
 *
 * Files are read whole into memory. Where git reads a field of a damaged file beyond its end (a
 * chunk table longer than the file, pack names running off the end), it reads from its mapping
 * the zero bytes that fill the last page; this module reads zeros there too.
 */
#include "trailer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#include "cgraph.h"
#include "midx.h"
#include "sha1kit.h"

#define TOC_ENTRY 12 /* chunk id (4) + offset (8) */

/* ---- Files ------------------------------------------------------------------------------------- */

struct file {
	const uint8_t *data;
	size_t len;
	uint8_t *owned; /* what to free (NULL for the caller's buffer) */
	unsigned rawsz; /* the repository's object IDs and checksums: 20 (SHA-1) or 32 (SHA-256) bytes */
};

static uint8_t byte_at(const struct file *f, uint64_t off)
{
	return skg_byte_padded(f->data, f->len, off);
}

static uint32_t be32_at(const struct file *f, uint64_t off)
{
	return skg_be32_padded(f->data, f->len, off);
}

static uint64_t be64_at(const struct file *f, uint64_t off)
{
	return (uint64_t)be32_at(f, off) << 32 | be32_at(f, off + 4);
}

enum open_result {
	OPENED = 0,
	NOT_OPENED = 1,  /* open failed: *err has errno */
	STAT_FAILED = 2, /* fstat failed: *err has errno */
	READ_FAILED = 3  /* *err has errno */
};

/*
 * Open path; *size receives its size, *regular whether it is a regular file. When `min` is
 * reached and the file is regular, its contents are read into f (with one NUL byte after them).
 */
static enum open_result open_file(const char *path, unsigned rawsz, size_t min, struct file *f,
                                  uint64_t *size, bool *regular, int *err)
{
	f->data = NULL;
	f->len = 0;
	f->owned = NULL;
	f->rawsz = rawsz;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err = errno;
		return NOT_OPENED;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = errno;
		close(fd);
		return STAT_FAILED;
	}
	*size = (uint64_t)st.st_size;
	*regular = S_ISREG(st.st_mode);
	if (!*regular || *size < min) {
		close(fd);
		return OPENED;
	}
	if (*size > SIZE_MAX - 1) {
		close(fd);
		*err = ENOMEM;
		return READ_FAILED;
	}
	size_t len = (size_t)*size;
	f->owned = malloc(len + 1);
	if (f->owned == NULL) {
		close(fd);
		*err = ENOMEM;
		return READ_FAILED;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t k = read(fd, f->owned + got, len - got);
		if (k < 0 && errno == EINTR) {
			continue;
		}
		if (k <= 0) {
			*err = k < 0 ? errno : EIO;
			close(fd);
			free(f->owned);
			f->owned = NULL;
			return READ_FAILED;
		}
		got += (size_t)k;
	}
	close(fd);
	f->owned[len] = 0;
	f->data = f->owned;
	f->len = len;
	return OPENED;
}

bool skg_trailer_checksum_ok(const uint8_t *data, size_t len, unsigned rawsz)
{
	if (len < rawsz) {
		return false;
	}
	uint8_t sum[SKG_MAX_RAWSZ];
	skg_checksum(rawsz, data, len - rawsz, sum);
	return memcmp(sum, data + len - rawsz, rawsz) == 0;
}

/* git's oid_version() of the format whose IDs are rawsz bytes: the hash version byte of
 * commit-graph and multi-pack-index headers (1 SHA-1, 2 SHA-256). */
static unsigned oid_version(unsigned rawsz)
{
	return rawsz == SKG_MAX_RAWSZ ? 2u : 1u;
}

/* ---- The chunk table (gitformat-chunk) --------------------------------------------------------- */

struct chunk {
	uint32_t id;
	uint64_t off, size;
};

struct chunks {
	unsigned n;
	struct chunk c[256];
};

/* Read `n` entries at toc as git's read_table_of_contents(); 0 when fine, else lines say why. */
static int read_toc(const struct file *f, uint64_t toc, unsigned n, unsigned align, struct chunks *out,
                    struct skg_lines *lines)
{
	out->n = 0;
	for (unsigned k = 0; k < n; k++) {
		uint32_t id = be32_at(f, toc);
		uint64_t off = be64_at(f, toc + 4);
		if (id == 0) {
			skg_lines_add(lines, "error: ", "terminating chunk id appears earlier than expected");
			return -1;
		}
		if (off % align != 0) {
			/* git 2.55.0's read_table_of_contents(..., expected_alignment) */
			skg_lines_add(lines, "error: ", "chunk id %" PRIx32 " not %u-byte aligned", id,
			              align);
			return -1;
		}
		toc += TOC_ENTRY;
		uint64_t next = be64_at(f, toc + 4);
		if (next < off || next > f->len - f->rawsz) {
			skg_lines_add(lines, "error: ", "improper chunk offset(s) %" PRIx64 " and %" PRIx64,
			              off, next);
			return -1;
		}
		for (unsigned j = 0; j < out->n; j++) {
			if (out->c[j].id == id) {
				skg_lines_add(lines, "error: ", "duplicate chunk ID %" PRIx32 " found", id);
				return -1;
			}
		}
		out->c[out->n].id = id;
		out->c[out->n].off = off;
		out->c[out->n].size = next - off;
		out->n++;
	}
	uint32_t id = be32_at(f, toc);
	if (id != 0) {
		skg_lines_add(lines, "error: ", "final chunk has non-zero id %" PRIx32, id);
		return -1;
	}
	return 0;
}

static const struct chunk *find_chunk(const struct chunks *cs, uint32_t id)
{
	for (unsigned i = 0; i < cs->n; i++) {
		if (cs->c[i].id == id) {
			return &cs->c[i];
		}
	}
	return NULL;
}

#define ID4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* ---- commit-graph ---------------------------------------------------------------------------------- */

#define GRAPH_SIGNATURE       ID4('C', 'G', 'P', 'H')
#define GRAPH_HEADER          8
#define GRAPH_FANOUT          (4 * 256)
#define GRAPH_MIN_SIZE(rawsz) (GRAPH_HEADER + 4 * TOC_ENTRY + GRAPH_FANOUT + (size_t)(rawsz))

struct graph {
	struct file f;
	uint8_t oid[SKG_MAX_RAWSZ]; /* its last f.rawsz bytes */
	bool has_base;              /* a BASE chunk */
	uint64_t base_off, base_size;
	struct graph *base; /* the next layer down in a chain */
	/* the chunks verify reads (gitformat-commit-graph) */
	uint64_t fanout, lookup, cdat, edges, gdat, gdo2;
	uint64_t edges_size;
	bool has_edges, has_gdat, has_gdo2;
	uint32_t num_commits, num_in_base;
	/* both changed-path chunks (BIDX, BDAT) read, and BDAT's header: hash version, number of
	 * hashes, bits per entry (git 2.55's reading) */
	bool has_bloom;
	uint32_t bloom[3];
};

enum load_result {
	LOADED = 0,
	ABSENT = 1, /* could not be opened (git says nothing); *err has errno */
	FAILED = 2, /* reported */
	DIED = 3    /* reported with a "fatal: " line */
};

static void graph_free(struct graph *g)
{
	while (g != NULL) {
		struct graph *b = g->base;
		free(g->f.owned);
		free(g);
		g = b;
	}
}

/*
 * Git 2.43+'s reading of the required chunks (commit-graph.c graph_read_oid_fanout,
 * graph_read_oid_lookup, graph_read_commit_data; e3c9600397, 4169d89645 and their series): each
 * one's size against the count the fan-out gives, the fan-out in order, and "commit-graph required
 * ... chunk missing or corrupted" when one is missing or fails; the optional chunks' sizes
 * (generation data: an error, the chunk ignored; changed-path index and data: warnings). Fills
 * g's chunk fields; false when the file does not load (lines say why).
 */
static bool graph_chunks_243(const struct file *f, const struct chunks *cs, struct graph *g,
                             struct skg_lines *lines)
{
	const struct chunk *fan = find_chunk(cs, ID4('O', 'I', 'D', 'F'));
	bool ok = fan != NULL;
	if (ok && fan->size != GRAPH_FANOUT) {
		skg_lines_add(lines, "error: ", "commit-graph oid fanout chunk is wrong size");
		ok = false;
	}
	for (unsigned i = 0; ok && i < 255; i++) {
		if (be32_at(f, fan->off + 4 * i) > be32_at(f, fan->off + 4 * (i + 1))) {
			skg_lines_add(lines, "error: ", "commit-graph fanout values out of order");
			ok = false;
		}
	}
	if (!ok) {
		skg_lines_add(lines,
		              "error: ", "commit-graph required OID fanout chunk missing or corrupted");
		return false;
	}
	g->fanout = fan->off;
	g->num_commits = be32_at(f, fan->off + 4 * 255);
	const struct chunk *lookup = find_chunk(cs, ID4('O', 'I', 'D', 'L'));
	if (lookup != NULL && lookup->size / f->rawsz != g->num_commits) {
		skg_lines_add(lines, "error: ", "commit-graph OID lookup chunk is the wrong size");
	}
	if (lookup == NULL || lookup->size / f->rawsz != g->num_commits) {
		skg_lines_add(lines,
		              "error: ", "commit-graph required OID lookup chunk missing or corrupted");
		return false;
	}
	g->lookup = lookup->off;
	const struct chunk *cdat = find_chunk(cs, ID4('C', 'D', 'A', 'T'));
	if (cdat != NULL && cdat->size / (f->rawsz + 16) != g->num_commits) {
		skg_lines_add(lines, "error: ", "commit-graph commit data chunk is wrong size");
	}
	if (cdat == NULL || cdat->size / (f->rawsz + 16) != g->num_commits) {
		skg_lines_add(lines,
		              "error: ", "commit-graph required commit data chunk missing or corrupted");
		return false;
	}
	g->cdat = cdat->off;
	const struct chunk *gdat = find_chunk(cs, ID4('G', 'D', 'A', '2'));
	if (gdat != NULL && gdat->size / 4 != g->num_commits) {
		skg_lines_add(lines, "error: ", "commit-graph generations chunk is wrong size");
		gdat = NULL;
	}
	g->has_gdat = gdat != NULL;
	g->gdat = gdat != NULL ? gdat->off : 0;
	const struct chunk *bidx = find_chunk(cs, ID4('B', 'I', 'D', 'X'));
	if (bidx != NULL && bidx->size / 4 != g->num_commits) {
		skg_lines_add(lines, "warning: ", "commit-graph changed-path index chunk is too small");
		bidx = NULL;
	}
	const struct chunk *bdat = find_chunk(cs, ID4('B', 'D', 'A', 'T'));
	if (bdat != NULL && bdat->size < 12) {
		skg_lines_add(lines, "warning: ",
		              "ignoring too-small changed-path chunk (%" PRIu64 " < 12) in commit-graph file",
		              bdat->size);
		bdat = NULL;
	}
	/* parse_commit_graph keeps the Bloom filter settings only with both chunks */
	g->has_bloom = bidx != NULL && bdat != NULL;
	for (unsigned i = 0; g->has_bloom && i < 3; i++) {
		g->bloom[i] = be32_at(f, bdat->off + 4 * i);
	}
	return true;
}

/* Git 2.39.5's reading of the required chunks (present: graph_parse checked), and of the
 * generations chunk: the number of commits from the lookup chunk's size, no size checked. Always
 * true (the counterpart of graph_chunks_243). */
static bool graph_chunks_239(const struct file *f, const struct chunks *cs, struct graph *g)
{
	const struct chunk *lookup = find_chunk(cs, ID4('O', 'I', 'D', 'L'));
	const struct chunk *gdat = find_chunk(cs, ID4('G', 'D', 'A', '2'));
	g->fanout = find_chunk(cs, ID4('O', 'I', 'D', 'F'))->off;
	g->lookup = lookup->off;
	g->num_commits = (uint32_t)(lookup->size / f->rawsz);
	g->cdat = find_chunk(cs, ID4('C', 'D', 'A', 'T'))->off;
	g->has_gdat = gdat != NULL;
	g->gdat = gdat != NULL ? gdat->off : 0;
	return true;
}

/* git's parse_commit_graph() of a whole file of at least GRAPH_MIN_SIZE bytes (git_version: whose
 * reading of the chunks, SKG_GIT_2_39 or SKG_GIT_2_55); *out keeps f when LOADED, else f.owned is
 * freed. */
static enum load_result graph_parse(struct file f, unsigned git_version, struct graph **out,
                                    struct skg_lines *lines)
{
	struct graph *g = NULL;
	uint32_t sig = be32_at(&f, 0);
	unsigned version = f.data[4], hash_version = f.data[5], nchunks = f.data[6];
	enum load_result res = FAILED;
	struct chunks *cs = NULL;
	if (sig != GRAPH_SIGNATURE) {
		skg_lines_add(lines, "error: ", "commit-graph signature %X does not match signature %X", sig,
		              GRAPH_SIGNATURE);
	} else if (version != 1) {
		skg_lines_add(lines, "error: ", "commit-graph version %X does not match version %X", version,
		              1u);
	} else if (hash_version != oid_version(f.rawsz)) {
		skg_lines_add(lines, "error: ", "commit-graph hash version %X does not match version %X",
		              hash_version, oid_version(f.rawsz));
	} else if (f.len < GRAPH_HEADER + (nchunks + 1) * TOC_ENTRY + GRAPH_FANOUT + f.rawsz) {
		skg_lines_add(lines, "error: ", "commit-graph file is too small to hold %u chunks", nchunks);
	} else if ((cs = malloc(sizeof(*cs))) == NULL) {
		skg_lines_nomem(lines);
		res = DIED;
	} else if (read_toc(&f, GRAPH_HEADER, nchunks, 1, cs, lines) != 0) {
		/* reported */
	} else if (git_version < SKG_GIT_2_55 && find_chunk(cs, ID4('O', 'I', 'D', 'F')) == NULL) {
		skg_lines_add(lines, "error: ", "commit-graph is missing the OID Fanout chunk");
	} else if (git_version < SKG_GIT_2_55 && find_chunk(cs, ID4('O', 'I', 'D', 'L')) == NULL) {
		skg_lines_add(lines, "error: ", "commit-graph is missing the OID Lookup chunk");
	} else if (git_version < SKG_GIT_2_55 && find_chunk(cs, ID4('C', 'D', 'A', 'T')) == NULL) {
		skg_lines_add(lines, "error: ", "commit-graph is missing the Commit Data chunk");
	} else if ((g = calloc(1, sizeof(*g))) == NULL) {
		skg_lines_nomem(lines);
		res = DIED;
	} else if (git_version >= SKG_GIT_2_55 ? graph_chunks_243(&f, cs, g, lines)
	                                       : graph_chunks_239(&f, cs, g)) {
		/* the chunks both Gits take as they come */
		const struct chunk *base = find_chunk(cs, ID4('B', 'A', 'S', 'E'));
		const struct chunk *edges = find_chunk(cs, ID4('E', 'D', 'G', 'E'));
		const struct chunk *gdo2 = find_chunk(cs, ID4('G', 'D', 'O', '2'));
		g->has_edges = edges != NULL;
		g->edges = edges != NULL ? edges->off : 0;
		g->edges_size = edges != NULL ? edges->size : 0;
		g->has_gdo2 = gdo2 != NULL;
		g->gdo2 = gdo2 != NULL ? gdo2->off : 0;
		g->f = f;
		memcpy(g->oid, f.data + f.len - f.rawsz, f.rawsz);
		g->has_base = base != NULL;
		g->base_off = base != NULL ? base->off : 0;
		g->base_size = base != NULL ? base->size : 0;
		*out = g;
		free(cs);
		return LOADED;
	}
	free(g);
	free(cs);
	free(f.owned);
	return res;
}

/* git's load_commit_graph_one(): open, size, parse_commit_graph(). */
static enum load_result graph_load(const char *path, unsigned rawsz, unsigned git_version, struct graph **out,
                                   int *err, struct skg_lines *lines)
{
	*out = NULL;
	struct file f;
	uint64_t size;
	bool regular;
	enum open_result o = open_file(path, rawsz, GRAPH_MIN_SIZE(rawsz), &f, &size, &regular, err);
	if (o == NOT_OPENED || o == STAT_FAILED) {
		return ABSENT;
	}
	if (size < GRAPH_MIN_SIZE(rawsz)) {
		skg_lines_add(lines, "error: ", "commit-graph file is too small");
		return FAILED;
	}
	if (o == READ_FAILED || !regular) {
		skg_lines_add(lines, "fatal: ", "mmap failed: %s",
		              strerror(o == READ_FAILED ? *err : ENODEV));
		return DIED;
	}
	return graph_parse(f, git_version, out, lines);
}

static bool hex_to_oid(const char *s, unsigned rawsz, uint8_t *oid)
{
	for (unsigned i = 0; i < 2 * rawsz; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
			return false;
		}
	}
	return skg_from_hex_len(s, rawsz, oid);
}

/*
 * git's load_commit_graph_chain(): the layers named by info/commit-graphs/commit-graph-chain that
 * load and fit together, tip first (NULL when none). *died when a fatal line was added.
 */
static struct graph *chain_load(const char *objdir, const char *const *sources, size_t nsources,
                                unsigned rawsz, unsigned git_version, struct skg_lines *lines, bool *died,
                                bool *incomplete, bool *opened, bool *too_small)
{
	if (sources == NULL || nsources == 0) {
		sources = &objdir;
		nsources = 1;
	}
	*died = false;
	*incomplete = false;
	*opened = false;
	*too_small = false;
	char *chain_name = skg_concat3(objdir, "/info/commit-graphs/commit-graph-chain", "");
	if (chain_name == NULL) {
		*died = true;
		skg_lines_nomem(lines);
		return NULL;
	}
	FILE *fp = fopen(chain_name, "r");
	struct stat st;
	int stat_res = stat(chain_name, &st);
	free(chain_name);
	if (fp == NULL) {
		return NULL;
	}
	if (git_version >= SKG_GIT_2_55) {
		/* git 2.55's open_commit_graph_chain: empty is missing, shorter than one ID too small */
		if (stat_res != 0 || st.st_size == 0) {
			fclose(fp);
			return NULL;
		}
		if (st.st_size < 2 * (off_t)rawsz) {
			skg_lines_add(lines, "warning: ", "commit-graph chain file too small");
			*too_small = true;
			fclose(fp);
			return NULL;
		}
		*opened = true;
	} else if (stat_res != 0 || st.st_size <= 2 * (off_t)rawsz) {
		fclose(fp);
		return NULL;
	}
	uint64_t count = (uint64_t)st.st_size / (2 * rawsz + 1);
	uint8_t(*oids)[SKG_MAX_RAWSZ] = calloc((size_t)count, SKG_MAX_RAWSZ);
	if (oids == NULL) {
		fclose(fp);
		*died = true;
		skg_lines_nomem(lines);
		return NULL;
	}
	struct graph *chain = NULL;
	char *line = NULL;
	size_t line_cap = 0;
	for (uint64_t i = 0; i < count; i++) {
		ssize_t n = getline(&line, &line_cap, fp);
		if (n < 0) {
			break;
		}
		if (n > 0 && line[n - 1] == '\n') {
			line[n - 1] = '\0';
		}
		/* git keeps the line in a strbuf but uses it as a C string from here on */
		if (strlen(line) < 2 * rawsz || !hex_to_oid(line, rawsz, oids[i])) {
			skg_lines_add(lines, "warning: ", "invalid commit-graph chain: line '%s' not a hash",
			              line);
			*incomplete = true;
			break;
		}
		bool valid = false;
		struct graph *g = NULL;
		enum load_result lr = ABSENT;
		/* the first of the object directories where the layer loads (those where it does not
		 * load said why) */
		for (size_t d = 0; d < nsources && lr != LOADED && lr != DIED; d++) {
			char *graph_name = skg_concat3(sources[d], "/info/commit-graphs/graph-", line);
			char *full = graph_name != NULL ? skg_concat3(graph_name, ".graph", "") : NULL;
			free(graph_name);
			if (full == NULL) {
				skg_lines_nomem(lines);
				lr = DIED;
				break;
			}
			int err = 0;
			lr = graph_load(full, rawsz, git_version, &g, &err, lines);
			free(full);
		}
		if (lr == DIED) {
			*died = true;
			break;
		}
		if (lr == LOADED) {
			/* git's add_graph_to_chain() */
			bool fits = true;
			if (i > 0 && !g->has_base) {
				skg_lines_add(lines, "warning: ", "commit-graph has no base graphs chunk");
				fits = false;
			} else if (git_version >= SKG_GIT_2_55 && g->base_size / rawsz < i) {
				/* 2.55 (not 2.39.5): the chunk must hold an ID for each layer below */
				skg_lines_add(lines,
				              "warning: ", "commit-graph base graphs chunk is too small");
				fits = false;
			}
			const struct graph *cur = chain;
			for (uint64_t k = i; fits && k-- > 0;) {
				bool same_base = true;
				for (unsigned b = 0; b < rawsz; b++) {
					if (byte_at(&g->f, g->base_off + rawsz * k + (uint64_t)b) !=
					    oids[k][b]) {
						same_base = false;
					}
				}
				if (cur == NULL || memcmp(oids[k], cur->oid, rawsz) != 0 || !same_base) {
					skg_lines_add(lines,
					              "warning: ", "commit-graph chain does not match");
					fits = false;
					break;
				}
				cur = cur->base;
			}
			if (fits) {
				g->num_in_base = chain != NULL ? chain->num_commits + chain->num_in_base : 0;
				g->base = chain;
				chain = g;
				valid = true;
			} else {
				g->base = NULL;
				graph_free(g);
			}
		}
		if (!valid) {
			skg_lines_add(lines, "warning: ", "unable to find all commit-graph files");
			*incomplete = true;
			break;
		}
	}
	free(line);
	free(oids);
	fclose(fp);
	if (git_version >= SKG_GIT_2_55) {
		/* commit-graph.c validate_mixed_bloom_settings (git 2.55, not 2.39.5): a layer whose
		 * Bloom filter settings are not those of the first layer from the tip with some loses them */
		const struct graph *first = NULL;
		for (const struct graph *p = chain; p != NULL; p = p->base) {
			if (!p->has_bloom) {
				continue;
			}
			if (first == NULL) {
				first = p;
			} else if (memcmp(p->bloom, first->bloom, sizeof(p->bloom)) != 0) {
				char hex[SKG_MAX_HEXSZ + 1];
				skg_to_hex_len(p->oid, rawsz, hex);
				skg_lines_add(lines, "warning: ",
				              "disabling Bloom filters for commit-graph layer '%s' due to "
				              "incompatible settings",
				              hex);
			}
		}
	}
	return chain;
}

static int status_of(const struct skg_lines *lines, bool died, bool bad, bool present)
{
	if (died) {
		return SKG_TRAILER_FATAL;
	}
	if (bad) {
		return SKG_TRAILER_BAD;
	}
	if (lines->count > 0 || lines->truncated) {
		return SKG_TRAILER_WARNED;
	}
	return present ? SKG_TRAILER_OK : SKG_TRAILER_ABSENT;
}

/* The checksum part of git's verify_commit_graph(), from g down its chain; true if all fine. */
static bool graph_verify(const struct graph *g, struct skg_lines *lines)
{
	bool ok = true;
	for (; g != NULL; g = g->base) {
		if (!skg_trailer_checksum_ok(g->f.data, g->f.len, g->f.rawsz)) {
			skg_lines_add(lines, NULL,
			              "the commit-graph file has incorrect checksum and is likely corrupt");
			ok = false;
		}
	}
	return ok;
}

static struct skg_cgraph_layer *layers_of(const struct graph *g, size_t n);

/* All of git's verify_commit_graph() from g down its chain (cgraph.h): an enum skg_cgraph_status,
 * or -1 when memory ran out. */
static int graph_verify_contents(const struct graph *g, const struct skg_cgraph_odb *odb,
                                 unsigned git_version, struct skg_lines *lines)
{
	size_t n = 0;
	for (const struct graph *p = g; p != NULL; p = p->base) {
		n++;
	}
	struct skg_cgraph_layer *layers = layers_of(g, n);
	if (layers == NULL) {
		skg_lines_nomem(lines);
		return -1;
	}
	int st = skg_cgraph_verify(layers, n, odb, git_version, lines);
	free(layers);
	return st;
}

/* The n layers of g (tip first) as cgraph.h reads them: a malloc'd array, NULL when out of memory. */
static struct skg_cgraph_layer *layers_of(const struct graph *g, size_t n)
{
	struct skg_cgraph_layer *layers = calloc(n > 0 ? n : 1, sizeof(*layers));
	if (layers == NULL) {
		return NULL;
	}
	/* commit-graph.c validate_mixed_generation_chain: the generation data is read from no layer
	 * when one of the chain has none (a layer written with commitGraph.generationVersion=1) */
	bool all_gdat = true;
	for (const struct graph *p = g; p != NULL; p = p->base) {
		all_gdat = all_gdat && p->has_gdat;
	}
	size_t k = 0;
	for (const struct graph *p = g; p != NULL; p = p->base, k++) {
		struct skg_cgraph_layer *l = &layers[k];
		l->data = p->f.data;
		l->len = p->f.len;
		l->checksum_ok = skg_trailer_checksum_ok(p->f.data, p->f.len, p->f.rawsz);
		l->rawsz = p->f.rawsz;
		l->fanout = p->fanout;
		l->lookup = p->lookup;
		l->cdat = p->cdat;
		l->edges = p->edges;
		l->edges_size = p->edges_size;
		l->gdat = p->gdat;
		l->gdo2 = p->gdo2;
		l->has_edges = p->has_edges;
		l->has_gdat = p->has_gdat && all_gdat;
		l->has_gdo2 = p->has_gdo2;
		l->num_commits = p->num_commits;
		l->num_in_base = p->num_in_base;
	}
	return layers;
}

int skg_trailer_graph_file(const char *path, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                           struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct graph *g;
	int err = 0;
	enum load_result lr = graph_load(path, rawsz, git_version, &g, &err, lines);
	if (lr != LOADED) {
		return lr == ABSENT ? SKG_TRAILER_ABSENT : lr == DIED ? SKG_TRAILER_FATAL : SKG_TRAILER_BAD;
	}
	bool ok = mode == SKG_TRAILER_LOAD || graph_verify(g, lines);
	graph_free(g);
	return status_of(lines, false, !ok, true);
}

int skg_trailer_graph_buf(const uint8_t *data, size_t len, enum skg_trailer_mode mode, unsigned rawsz,
                          unsigned git_version, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	if (len < GRAPH_MIN_SIZE(rawsz)) {
		skg_lines_add(lines, "error: ", "commit-graph file is too small");
		return SKG_TRAILER_BAD;
	}
	struct file f = {data, len, NULL, rawsz};
	struct graph *g = NULL;
	enum load_result lr = graph_parse(f, git_version, &g, lines);
	if (lr != LOADED) {
		return lr == DIED ? SKG_TRAILER_FATAL : SKG_TRAILER_BAD;
	}
	bool ok = mode == SKG_TRAILER_LOAD || graph_verify(g, lines);
	graph_free(g);
	return status_of(lines, false, !ok, true);
}

/* skg_trailer_commit_graph(), the contents compared with odb when it is not NULL (VERIFY). */
static int commit_graph(const char *objdir, const char *const *sources, size_t nsources,
                        enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                        const struct skg_cgraph_odb *odb, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	char *v1 = skg_concat3(objdir, "/info/commit-graph", "");
	if (v1 == NULL) {
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	struct graph *g;
	int err = 0;
	enum load_result lr = graph_load(v1, rawsz, git_version, &g, &err, lines);
	if (lr == DIED) {
		free(v1);
		return SKG_TRAILER_FATAL;
	}
	if (mode == SKG_TRAILER_VERIFY) {
		if (lr == ABSENT && err != ENOENT) {
			skg_lines_add(lines, "fatal: ", "Could not open commit-graph '%s': %s", v1,
			              strerror(err));
			free(v1);
			return SKG_TRAILER_FATAL;
		}
		free(v1);
		if (lr == FAILED) {
			return SKG_TRAILER_BAD; /* a single file that does not load: verify exits 1 */
		}
	} else {
		free(v1);
	}
	bool died = false, incomplete = false, chain_opened = false, too_small = false;
	if (lr != LOADED) {
		g = chain_load(objdir, sources, nsources, rawsz, git_version, lines, &died, &incomplete,
		               &chain_opened, &too_small);
	}
	if (mode == SKG_TRAILER_VERIFY && !died && git_version >= SKG_GIT_2_55) {
		/* git 2.55's graph_verify: a chain file too small to open dies; one that opened but
		 * gave no layer fails */
		if (too_small) {
			skg_lines_add(lines, "fatal: ",
			              "could not open commit-graph chain "
			              "'%s/info/commit-graphs/commit-graph-chain': %s",
			              objdir, strerror(EINVAL));
			return SKG_TRAILER_FATAL;
		}
		if (g == NULL && chain_opened) {
			return SKG_TRAILER_BAD;
		}
	}
	bool present = g != NULL;
	bool ok = true;
	if (mode == SKG_TRAILER_VERIFY && !died && odb != NULL && g != NULL) {
		int st = graph_verify_contents(g, odb, git_version, lines);
		died = st < 0 || st == SKG_CGRAPH_FATAL;
		ok = st == SKG_CGRAPH_OK;
	} else if (mode == SKG_TRAILER_VERIFY && !died) {
		ok = graph_verify(g, lines);
	}
	if (mode == SKG_TRAILER_VERIFY && !died && g != NULL && incomplete && git_version >= SKG_GIT_2_55) {
		/* git 2.55's graph_verify (not 2.39.5's): a chain that did not load whole fails */
		skg_lines_add(lines, "error: ", "one or more commit-graph chain files could not be loaded");
		ok = false;
	}
	graph_free(g);
	return status_of(lines, died, !ok, present);
}

int skg_trailer_commit_graph(const char *objdir, const char *const *sources, size_t nsources,
                             enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                             struct skg_lines *lines)
{
	return commit_graph(objdir, sources, nsources, mode, rawsz, git_version, NULL, lines);
}

int skg_trailer_commit_graph_verify(const char *objdir, const char *const *sources, size_t nsources,
                                    const struct skg_cgraph_odb *odb, unsigned rawsz, unsigned git_version,
                                    struct skg_lines *lines)
{
	return commit_graph(objdir, sources, nsources, SKG_TRAILER_VERIFY, rawsz, git_version, odb, lines);
}

struct skg_cgraph_open {
	struct graph *g;
	struct skg_cgraph_layer *layers;
};

int skg_trailer_graph_open(const char *const *dirs, size_t ndirs, unsigned rawsz, unsigned git_version,
                           struct skg_cgraph_open **out, const struct skg_cgraph_layer **layers,
                           size_t *nlayers, size_t *dir)
{
	*out = NULL;
	*dir = 0;
	*layers = NULL;
	*nlayers = 0;
	struct skg_lines *quiet = calloc(1, sizeof(*quiet)); /* git prints the load's lines itself */
	struct graph *g = NULL;
	int ret = quiet != NULL ? 0 : -1;
	/* commit-graph.c prepare_commit_graph: the first object directory whose read_commit_graph_one
	 * gives a graph (info/commit-graph, else the chain) */
	for (size_t i = 0; i < ndirs && g == NULL && ret == 0; i++) {
		char *v1 = skg_concat3(dirs[i], "/info/commit-graph", "");
		if (v1 == NULL) {
			ret = -1;
			break;
		}
		int err = 0;
		enum load_result lr = graph_load(v1, rawsz, git_version, &g, &err, quiet);
		free(v1);
		if (lr != LOADED) {
			bool died = false, incomplete = false, opened = false, too_small = false;
			g = chain_load(dirs[i], dirs, ndirs, rawsz, git_version, quiet, &died, &incomplete,
			               &opened, &too_small);
			if (died) {
				graph_free(g);
				g = NULL;
			}
		}
		ret = quiet->nomem ? -1 : 0;
		skg_lines_clear(quiet);
		*dir = i;
	}
	free(quiet);
	if (g == NULL || ret != 0) {
		graph_free(g);
		return ret;
	}
	size_t n = 0;
	for (const struct graph *p = g; p != NULL; p = p->base) {
		n++;
	}
	struct skg_cgraph_open *h = malloc(sizeof(*h));
	struct skg_cgraph_layer *l = h != NULL ? layers_of(g, n) : NULL;
	if (l == NULL) {
		free(h);
		graph_free(g);
		return -1;
	}
	h->g = g;
	h->layers = l;
	*out = h;
	*layers = l;
	*nlayers = n;
	return 0;
}

void skg_trailer_graph_close(struct skg_cgraph_open *h)
{
	if (h != NULL) {
		free(h->layers);
		graph_free(h->g);
		free(h);
	}
}

/* ---- multi-pack-index ---------------------------------------------------------------------------- */

#define MIDX_SIGNATURE       ID4('M', 'I', 'D', 'X')
#define MIDX_HEADER          12
#define MIDX_MIN_SIZE(rawsz) (MIDX_HEADER + (size_t)(rawsz))

/* A NUL-terminated copy of the string at off (zeros beyond the end of the file end it). */
static char *string_at(const struct file *f, uint64_t off, uint64_t *len)
{
	uint64_t n = 0;
	while (off + n < f->len && f->data[off + n] != 0) {
		n++;
	}
	*len = n;
	char *s = malloc((size_t)n + 1);
	if (s != NULL) {
		if (n > 0) {
			memcpy(s, f->data + off, (size_t)n);
		}
		s[n] = '\0';
	}
	return s;
}

/* Where the chunks of a multi-pack-index that loaded are (its required chunks all there), for
 * the verify of git_version's Git. */
static struct skg_midx midx_info(const struct file *f, const struct chunks *cs, uint32_t npacks,
                                 unsigned git_version)
{
	const struct chunk *large = find_chunk(cs, ID4('L', 'O', 'F', 'F'));
	return (struct skg_midx){f->data,
	                         f->len,
	                         npacks,
	                         find_chunk(cs, ID4('P', 'N', 'A', 'M'))->off,
	                         find_chunk(cs, ID4('O', 'I', 'D', 'F'))->off,
	                         find_chunk(cs, ID4('O', 'I', 'D', 'L'))->off,
	                         find_chunk(cs, ID4('O', 'O', 'F', 'F'))->off,
	                         large != NULL ? large->off : 0,
	                         large != NULL,
	                         large != NULL ? large->size : 0,
	                         git_version,
	                         f->rawsz,
	                         NULL,
	                         0,
	                         0,
	                         be32_at(f, find_chunk(cs, ID4('O', 'I', 'D', 'F'))->off + 4 * 255)};
}

/* git 2.55.0's load_multi_pack_index_one from the chunks on: each required chunk read by its
 * callback (midx_read_oid_fanout, _oid_lookup, _object_offsets: their sizes, the fanout's order)
 * or it dies; the pack names within PNAM, in order in a version 1 file. */
static enum load_result midx_chunks_255(const struct file *f, const struct chunks *cs, uint32_t npacks,
                                        unsigned version, struct skg_midx *info, struct skg_lines *lines)
{
	static const char *const required = "multi-pack-index required %s chunk missing or corrupted";
	const struct chunk *pnam = find_chunk(cs, ID4('P', 'N', 'A', 'M'));
	if (pnam == NULL) {
		skg_lines_add(lines, "fatal: ", required, "pack-name");
		return DIED;
	}
	const struct chunk *oidf = find_chunk(cs, ID4('O', 'I', 'D', 'F'));
	uint32_t nobj = 0;
	if (oidf != NULL && oidf->size != 4 * 256) {
		skg_lines_add(lines, "error: ", "multi-pack-index OID fanout is of the wrong size");
		oidf = NULL;
	} else if (oidf != NULL) {
		for (unsigned i = 0; i < 255; i++) {
			uint32_t a = be32_at(f, oidf->off + 4 * i), b = be32_at(f, oidf->off + 4 * i + 4);
			if (a > b) {
				skg_lines_add(lines, "error: ",
				              "oid fanout out of order: fanout[%u] = %" PRIx32 " > %" PRIx32
				              " = fanout[%u]",
				              i, a, b, i + 1);
				oidf = NULL;
				break;
			}
		}
		nobj = oidf != NULL ? be32_at(f, oidf->off + 4 * 255) : 0;
	}
	if (oidf == NULL) {
		skg_lines_add(lines, "fatal: ", required, "OID fanout");
		return DIED;
	}
	const struct chunk *oidl = find_chunk(cs, ID4('O', 'I', 'D', 'L'));
	if (oidl != NULL && oidl->size != (uint64_t)f->rawsz * nobj) {
		skg_lines_add(lines, "error: ", "multi-pack-index OID lookup chunk is the wrong size");
		oidl = NULL;
	}
	if (oidl == NULL) {
		skg_lines_add(lines, "fatal: ", required, "OID lookup");
		return DIED;
	}
	const struct chunk *ooff = find_chunk(cs, ID4('O', 'O', 'F', 'F'));
	if (ooff != NULL && ooff->size != (uint64_t)8 * nobj) {
		skg_lines_add(lines, "error: ", "multi-pack-index object offset chunk is the wrong size");
		ooff = NULL;
	}
	if (ooff == NULL) {
		skg_lines_add(lines, "fatal: ", required, "object offsets");
		return DIED;
	}
	/* the names within the chunk (memchr over what is left of it) */
	uint64_t cur = pnam->off, end = pnam->off + pnam->size;
	const char *prev = NULL;
	for (uint32_t i = 0; i < npacks; i++) {
		const uint8_t *start = f->data + cur;
		const uint8_t *nul = cur < end ? memchr(start, 0, (size_t)(end - cur)) : NULL;
		if (nul == NULL) {
			skg_lines_add(lines, "fatal: ", "multi-pack-index pack-name chunk is too short");
			return DIED;
		}
		if (version == 1 && prev != NULL && strcmp((const char *)start, prev) <= 0) {
			skg_lines_add(lines,
			              "fatal: ", "multi-pack-index pack names out of order: '%s' before '%s'",
			              prev, (const char *)start);
			return DIED;
		}
		prev = (const char *)start;
		cur += (uint64_t)(nul - start) + 1;
	}
	if (info != NULL) {
		*info = midx_info(f, cs, npacks, SKG_GIT_2_55);
	}
	return LOADED;
}

/* git 2.39.5's: the chunks and pack names of a multi-pack-index whose header and table of
 * contents were read; where its chunks are into *info (when not NULL) when LOADED. */
static enum load_result midx_chunks(const struct file *f, const struct chunks *cs, uint32_t npacks,
                                    struct skg_midx *info, struct skg_lines *lines)
{
	const struct chunk *pnam = find_chunk(cs, ID4('P', 'N', 'A', 'M'));
	if (pnam == NULL) {
		skg_lines_add(lines, "fatal: ", "multi-pack-index missing required pack-name chunk");
		return DIED;
	}
	const struct chunk *oidf = find_chunk(cs, ID4('O', 'I', 'D', 'F'));
	if (oidf == NULL) {
		skg_lines_add(lines, "fatal: ", "multi-pack-index missing required OID fanout chunk");
		return DIED;
	}
	if (oidf->size != 4 * 256) {
		/* git reports it and goes on */
		skg_lines_add(lines, "error: ", "multi-pack-index OID fanout is of the wrong size");
	}
	if (find_chunk(cs, ID4('O', 'I', 'D', 'L')) == NULL) {
		skg_lines_add(lines, "fatal: ", "multi-pack-index missing required OID lookup chunk");
		return DIED;
	}
	if (find_chunk(cs, ID4('O', 'O', 'F', 'F')) == NULL) {
		skg_lines_add(lines, "fatal: ", "multi-pack-index missing required object offsets chunk");
		return DIED;
	}
	/* Pack names, one after the other, in strictly increasing order. */
	enum load_result res = LOADED;
	uint64_t cur = pnam->off, len;
	char *prev = NULL;
	for (uint32_t i = 0; i < npacks; i++) {
		char *name = string_at(f, cur, &len);
		if (name == NULL) {
			skg_lines_nomem(lines);
			res = DIED;
			break;
		}
		cur += len + 1;
		if (i > 0 && strcmp(name, prev) <= 0) {
			skg_lines_add(lines,
			              "fatal: ", "multi-pack-index pack names out of order: '%s' before '%s'",
			              prev, name);
			free(name);
			res = DIED;
			break;
		}
		free(prev);
		prev = name;
	}
	free(prev);
	if (res == LOADED && info != NULL) {
		*info = midx_info(f, cs, npacks, SKG_GIT_2_39);
	}
	return res;
}

/* git's load_multi_pack_index() from the signature on, of a whole file of at least MIDX_MIN_SIZE
 * bytes. */
static enum load_result midx_parse(const struct file *f, struct skg_midx *info, unsigned git_version,
                                   struct skg_lines *lines)
{
	bool v255 = git_version >= SKG_GIT_2_55;
	uint32_t sig = be32_at(f, 0);
	unsigned version = f->data[4], hash_version = f->data[5], nchunks = f->data[6];
	uint32_t npacks = be32_at(f, 8);
	enum load_result res = FAILED;
	struct chunks *cs = malloc(sizeof(*cs));
	if (cs == NULL) {
		skg_lines_nomem(lines);
		res = DIED;
	} else if (sig != MIDX_SIGNATURE) {
		skg_lines_add(lines, "fatal: ",
		              "multi-pack-index signature 0x%08" PRIx32 " does not match signature 0x%08x",
		              sig, (unsigned)MIDX_SIGNATURE);
		res = DIED;
	} else if (version != 1 && !(v255 && version == 2)) {
		skg_lines_add(lines, "fatal: ", "multi-pack-index version %u not recognized", version);
		res = DIED;
	} else if (hash_version != oid_version(f->rawsz)) {
		skg_lines_add(lines, "error: ", "multi-pack-index hash version %u does not match version %u",
		              hash_version, oid_version(f->rawsz));
	} else if (read_toc(f, MIDX_HEADER, nchunks, v255 ? 4 : 1, cs, lines) == 0) {
		res = v255 ? midx_chunks_255(f, cs, npacks, version, info, lines)
		           : midx_chunks(f, cs, npacks, info, lines);
	}
	free(cs);
	return res;
}

/* git's load_multi_pack_index(); f keeps the file when LOADED. */
static enum load_result midx_load(const char *path, struct file *f, struct skg_midx *info,
                                  unsigned git_version, struct skg_lines *lines)
{
	uint64_t size;
	bool regular;
	int err = 0;
	enum open_result o = open_file(path, f->rawsz, MIDX_MIN_SIZE(f->rawsz), f, &size, &regular, &err);
	if (o == NOT_OPENED) {
		return ABSENT;
	}
	if (o == STAT_FAILED) {
		skg_lines_add(lines, "error: ", "failed to read %s: %s", path, strerror(err));
		return FAILED;
	}
	if (size < MIDX_MIN_SIZE(f->rawsz)) {
		skg_lines_add(lines, "error: ", "multi-pack-index file %s is too small", path);
		return FAILED;
	}
	if (o == READ_FAILED || !regular) {
		skg_lines_add(lines, "fatal: ", "mmap failed: %s", strerror(o == READ_FAILED ? err : ENODEV));
		return DIED;
	}
	enum load_result res = midx_parse(f, info, git_version, lines);
	if (res != LOADED) {
		free(f->owned);
		f->owned = NULL;
	}
	return res;
}

/* A multi-pack-index as git loads it: one file, or the layers of an incremental chain. */
struct midx_layer {
	struct file f;
	struct chunks *cs;    /* its table of contents */
	struct skg_midx info; /* info.base: the layer before it in the array */
};

struct midx_set {
	struct midx_layer *l; /* the base first, the top (the one git asks first) last */
	size_t n;
	bool chain; /* from OBJDIR/pack/multi-pack-index.d */
};

static void midx_set_free(struct midx_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->l[i].f.owned);
		free(set->l[i].cs);
	}
	free(set->l);
	set->l = NULL;
	set->n = 0;
	set->chain = false;
}

/* Add a loaded file to set as its new top (git's add_midx_to_chain); false when out of memory. */
static bool midx_set_push(struct midx_set *set, const struct file *f, const struct skg_midx *info)
{
	struct midx_layer *l = realloc(set->l, (set->n + 1) * sizeof(*l));
	struct chunks *cs = malloc(sizeof(*cs));
	if (l == NULL || cs == NULL) {
		free(cs);
		if (l != NULL) {
			set->l = l;
		}
		return false;
	}
	set->l = l;
	struct skg_lines *scratch = malloc(sizeof(*scratch));
	if (scratch == NULL) {
		free(cs);
		return false;
	}
	skg_lines_clear(scratch);
	/* the load read the same table; only its places are kept here */
	(void)read_toc(f, MIDX_HEADER, f->data[6], 1, cs, scratch);
	free(scratch);
	struct midx_layer *top = &l[set->n];
	top->f = *f;
	top->cs = cs;
	top->info = *info;
	if (set->n > 0) {
		const struct skg_midx *b = &l[set->n - 1].info;
		top->info.packs_in_base = b->packs_in_base + b->num_packs;
		top->info.objects_in_base = b->objects_in_base + b->num_objects;
	}
	set->n++;
	/* the array moved: each layer's base again */
	for (size_t i = 0; i < set->n; i++) {
		l[i].info.base = i > 0 ? &l[i - 1].info : NULL;
		l[i].info.data = l[i].f.data;
	}
	return true;
}

/* A layer's load (lr) into the chain (load_midx_chain_fd_st): one that loaded is its new top; else
 * the warning, and the chain ends there. LOADED to go on, FAILED when the chain ends, DIED when the
 * load died (or memory ran out). */
static enum load_result chain_add(struct midx_set *set, enum load_result lr, struct file *f,
                                  const struct skg_midx *info, struct skg_lines *lines)
{
	if (lr == LOADED && !midx_set_push(set, f, info)) {
		free(f->owned);
		skg_lines_nomem(lines);
		return DIED;
	}
	if (lr != LOADED && lr != DIED) {
		skg_lines_add(lines, "warning: ", "unable to find all multi-pack index files");
		return FAILED;
	}
	return lr;
}

/*
 * git 2.55's load_multi_pack_index_chain() (midx.c, 2.47+): the layers OBJDIR/pack/multi-pack-index.d/
 * multi-pack-index-chain names, one hexadecimal ID a line, the base first, each the file
 * multi-pack-index-<ID>.midx beside it (gitformat-pack(5), "incremental multi-pack-index"), loaded
 * as the single file is. No chain file, or an empty one: nothing. One shorter than an ID: "warning:
 * multi-pack-index chain file too small". At most size / (hexsz + 1) lines are read; a line that
 * does not start with an ID ("warning: invalid multi-pack-index chain: line 'L' not a hash") or a
 * layer that does not load ("warning: unable to find all multi-pack index files") ends the chain,
 * the layers before it kept. DIED when a layer's load dies; else LOADED when set has a layer.
 */
static enum load_result midx_chain_load(const char *objdir, unsigned rawsz, struct midx_set *set,
                                        struct skg_lines *lines)
{
	char *path = skg_concat3(objdir, "/pack/multi-pack-index.d/multi-pack-index-chain", "");
	if (path == NULL) {
		skg_lines_nomem(lines);
		return DIED;
	}
	struct file cf;
	uint64_t size;
	bool regular;
	int err = 0;
	/* git_open, fstat; then read line by line (the whole file read here) */
	enum open_result o = open_file(path, rawsz, 0, &cf, &size, &regular, &err);
	free(path);
	if (o == NOT_OPENED || o == STAT_FAILED || size == 0) {
		free(cf.owned);
		return ABSENT;
	}
	if (size < 2 * (uint64_t)rawsz) {
		free(cf.owned);
		skg_lines_add(lines, "warning: ", "multi-pack-index chain file too small");
		return FAILED;
	}
	if (o == READ_FAILED && err == ENOMEM) {
		skg_lines_nomem(lines);
		return DIED;
	}
	if (o == READ_FAILED || !regular) {
		free(cf.owned);
		return ABSENT; /* git's reads of a directory fail at once: no line */
	}
	uint64_t count = size / (2 * (uint64_t)rawsz + 1);
	enum load_result res = LOADED;
	uint64_t at = 0;
	for (uint64_t i = 0; i < count && at < cf.len; i++) {
		const uint8_t *nl = memchr(cf.data + at, '\n', cf.len - at);
		size_t n = nl != NULL ? (size_t)(nl - (cf.data + at)) : cf.len - at;
		char *line = malloc(n + 1);
		if (line == NULL) {
			skg_lines_nomem(lines);
			res = DIED;
			break;
		}
		memcpy(line, cf.data + at, n);
		line[n] = '\0';
		at += n + (nl != NULL);
		uint8_t id[SKG_MAX_RAWSZ];
		/* git keeps the line in a strbuf but reads it as a C string from here on */
		if (strlen(line) < 2 * rawsz || !hex_to_oid(line, rawsz, id)) {
			skg_lines_add(
			    lines, "warning: ", "invalid multi-pack-index chain: line '%s' not a hash", line);
			free(line);
			break;
		}
		free(line);
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, rawsz, hex);
		char *stem = skg_concat3(objdir, "/pack/multi-pack-index.d/multi-pack-index-", hex);
		char *name = stem != NULL ? skg_concat3(stem, ".midx", "") : NULL;
		free(stem);
		if (name == NULL) {
			skg_lines_nomem(lines);
			res = DIED;
			break;
		}
		struct file lf = {NULL, 0, NULL, rawsz};
		struct skg_midx info;
		enum load_result lr = midx_load(name, &lf, &info, SKG_GIT_2_55, lines);
		free(name);
		lr = chain_add(set, lr, &lf, &info, lines);
		if (lr != LOADED) {
			res = lr == DIED ? DIED : res;
			break;
		}
	}
	free(cf.owned);
	if (res == DIED) {
		midx_set_free(set);
		return DIED;
	}
	return set->n > 0 ? LOADED : FAILED;
}

/*
 * The multi-pack-index of OBJDIR as git_version's git loads it (midx.c load_multi_pack_index):
 * OBJDIR/pack/multi-pack-index, and with 2.55, when that does not load, the chain. Lines appended.
 * LOADED (set filled), ABSENT (nothing, no line), FAILED (lines, nothing loaded) or DIED.
 * *file_lr: the single file's own result.
 */
static enum load_result midx_set_load(const char *objdir, unsigned rawsz, unsigned git_version,
                                      struct midx_set *set, struct skg_lines *lines,
                                      enum load_result *file_lr)
{
	set->l = NULL;
	set->n = 0;
	set->chain = false;
	char *path = skg_concat3(objdir, "/pack/multi-pack-index", "");
	if (path == NULL) {
		skg_lines_nomem(lines);
		return *file_lr = DIED;
	}
	struct file f = {NULL, 0, NULL, rawsz};
	struct skg_midx info;
	enum load_result lr = midx_load(path, &f, &info, git_version, lines);
	free(path);
	*file_lr = lr;
	if (lr == LOADED) {
		if (!midx_set_push(set, &f, &info)) {
			free(f.owned);
			skg_lines_nomem(lines);
			return *file_lr = DIED;
		}
		return LOADED;
	}
	if (lr == DIED || git_version < SKG_GIT_2_55) {
		return lr;
	}
	enum load_result cr = midx_chain_load(objdir, rawsz, set, lines);
	set->chain = cr == LOADED;
	return cr == ABSENT ? lr : cr;
}

/* After the load of a multi-pack-index that exists: what verify adds. */
static int midx_verify(enum load_result lr, const struct file *f, enum skg_trailer_mode mode,
                       struct skg_lines *lines)
{
	if (lr == DIED) {
		return SKG_TRAILER_FATAL;
	}
	if (lr != LOADED) {
		if (mode == SKG_TRAILER_VERIFY) {
			skg_lines_add(lines, "error: ", "multi-pack-index file exists, but failed to parse");
			return SKG_TRAILER_BAD;
		}
		return lines->count > 0 ? SKG_TRAILER_WARNED : SKG_TRAILER_ABSENT;
	}
	bool ok = mode == SKG_TRAILER_LOAD || skg_trailer_checksum_ok(f->data, f->len, f->rawsz);
	if (!ok) {
		skg_lines_add(lines, NULL, "incorrect checksum");
	}
	return status_of(lines, false, !ok, true);
}

int skg_trailer_midx_buf(const uint8_t *data, size_t len, const char *path, enum skg_trailer_mode mode,
                         unsigned rawsz, unsigned git_version, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct file f = {data, len, NULL, rawsz};
	enum load_result lr;
	if (len < MIDX_MIN_SIZE(rawsz)) {
		skg_lines_add(lines, "error: ", "multi-pack-index file %s is too small", path);
		lr = FAILED;
	} else {
		lr = midx_parse(&f, NULL, git_version, lines);
	}
	return midx_verify(lr, &f, mode, lines);
}

int skg_trailer_midx_file(const char *path, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                          struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct file f = {NULL, 0, NULL, rawsz};
	enum load_result lr = midx_load(path, &f, NULL, git_version, lines);
	struct stat st;
	if (lr == ABSENT && stat(path, &st) != 0) {
		return SKG_TRAILER_ABSENT;
	}
	int status = midx_verify(lr, &f, mode, lines);
	free(f.owned);
	return status;
}

int skg_trailer_midx(const char *objdir, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                     struct skg_lines *lines)
{
	char *path = skg_concat3(objdir, "/pack/multi-pack-index", "");
	if (path == NULL) {
		skg_lines_clear(lines);
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	int st = skg_trailer_midx_file(path, mode, rawsz, git_version, lines);
	free(path);
	return st;
}

/* The status of verify after the load and checksum (`status`) and then the contents (midx.h). */
static int midx_contents(int status, const struct skg_midx *info, const char *objdir,
                         const struct skg_midx_io *io, struct skg_lines *lines)
{
	/* verify_midx_file() goes on after the checksum line with the contents */
	int st = skg_midx_verify(info, objdir, io, lines);
	if (st < 0 || st == SKG_MIDX_FATAL) {
		return SKG_TRAILER_FATAL;
	}
	return st == SKG_MIDX_BAD ? SKG_TRAILER_BAD : status;
}

int skg_trailer_midx_verify(const char *objdir, const struct skg_midx_io *io, unsigned rawsz,
                            unsigned git_version, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct midx_set set;
	enum load_result file_lr;
	enum load_result lr = midx_set_load(objdir, rawsz, git_version, &set, lines, &file_lr);
	int status;
	if (lr == LOADED) {
		/* verify_midx_file(): the checksum of what it loaded (of a chain, its top layer's
		 * alone), then the contents */
		const struct midx_layer *top = &set.l[set.n - 1];
		status = midx_verify(LOADED, &top->f, SKG_TRAILER_VERIFY, lines);
		status = midx_contents(status, &top->info, objdir, io, lines);
	} else if (lr == DIED) {
		status = SKG_TRAILER_FATAL;
	} else {
		/* nothing loaded: "exists, but failed to parse" when the single file is there */
		char *path = skg_concat3(objdir, "/pack/multi-pack-index", "");
		struct stat st;
		if (path == NULL) {
			skg_lines_nomem(lines);
			status = SKG_TRAILER_FATAL;
		} else if (stat(path, &st) == 0) {
			struct file none = {NULL, 0, NULL, rawsz};
			status = midx_verify(FAILED, &none, SKG_TRAILER_VERIFY, lines);
		} else {
			status = status_of(lines, false, false, false);
		}
		free(path);
	}
	midx_set_free(&set);
	return status;
}

int skg_trailer_midx_chain_buf_verify(const uint8_t *const *data, const size_t *len, size_t n,
                                      const char *objdir, const struct skg_midx_io *io, unsigned rawsz,
                                      struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct midx_set set = {NULL, 0, true};
	enum load_result lr = LOADED;
	for (size_t i = 0; i < n && lr == LOADED; i++) {
		struct file f = {data[i], len[i], NULL, rawsz};
		struct skg_midx info;
		if (len[i] < MIDX_MIN_SIZE(rawsz)) {
			skg_lines_add(
			    lines, "error: ",
			    "multi-pack-index file %s/pack/multi-pack-index.d/layer-%zu is too small", objdir,
			    i);
			lr = FAILED;
		} else {
			lr = midx_parse(&f, &info, SKG_GIT_2_55, lines);
		}
		lr = chain_add(&set, lr, &f, &info, lines);
	}
	int status;
	if (lr == DIED) {
		status = SKG_TRAILER_FATAL;
	} else if (set.n == 0) {
		status = status_of(lines, false, false, false);
	} else {
		const struct midx_layer *top = &set.l[set.n - 1];
		status = midx_verify(LOADED, &top->f, SKG_TRAILER_VERIFY, lines);
		status = midx_contents(status, &top->info, objdir, io, lines);
	}
	midx_set_free(&set);
	return status;
}

int skg_trailer_midx_load(const char *objdir, unsigned rawsz, unsigned git_version, struct skg_lines *lines,
                          bool *loaded)
{
	skg_lines_clear(lines);
	struct midx_set set;
	enum load_result file_lr;
	enum load_result lr = midx_set_load(objdir, rawsz, git_version, &set, lines, &file_lr);
	midx_set_free(&set);
	*loaded = lr == LOADED;
	return lr == DIED ? SKG_TRAILER_FATAL : status_of(lines, false, false, lr == LOADED);
}

int skg_trailer_midx_buf_verify(const uint8_t *data, size_t len, const char *objdir,
                                const struct skg_midx_io *io, unsigned rawsz, unsigned git_version,
                                struct skg_lines *lines)
{
	skg_lines_clear(lines);
	struct file f = {data, len, NULL, rawsz};
	struct skg_midx info;
	enum load_result lr = FAILED;
	if (len < MIDX_MIN_SIZE(rawsz)) {
		skg_lines_add(lines, "error: ", "multi-pack-index file %s/pack/multi-pack-index is too small",
		              objdir);
	} else {
		lr = midx_parse(&f, &info, git_version, lines);
	}
	int status = midx_verify(lr, &f, SKG_TRAILER_VERIFY, lines);
	return lr == LOADED ? midx_contents(status, &info, objdir, io, lines) : status;
}

/* The objects of a loaded layer: where its OIDL and OOFF chunks are and its count, or false when
 * they do not fit in the file. */
static bool layer_objects(const struct midx_layer *l, const struct chunk **oidl, const struct chunk **ooff,
                          uint32_t *nobj)
{
	const struct file *f = &l->f;
	const struct chunk *oidf = find_chunk(l->cs, ID4('O', 'I', 'D', 'F'));
	*oidl = find_chunk(l->cs, ID4('O', 'I', 'D', 'L'));
	*ooff = find_chunk(l->cs, ID4('O', 'O', 'F', 'F'));
	if (oidf == NULL || *oidl == NULL || *ooff == NULL || oidf->off + 4 * 256 > f->len) {
		return false;
	}
	*nobj = be32_at(f, oidf->off + 4 * 255);
	return (*oidl)->off + (uint64_t)f->rawsz * *nobj <= f->len &&
	       (*ooff)->off + (uint64_t)8 * *nobj <= f->len;
}

/* Where layer l lists id (binary search within its fanout's range): its place, or false. */
static bool layer_find(const struct midx_layer *l, const uint8_t *id, uint32_t *at)
{
	const struct chunk *oidl, *ooff;
	uint32_t nobj;
	if (!layer_objects(l, &oidl, &ooff, &nobj)) {
		return false;
	}
	const struct file *f = &l->f;
	const struct chunk *oidf = find_chunk(l->cs, ID4('O', 'I', 'D', 'F'));
	uint32_t lo = id[0] > 0 ? be32_at(f, oidf->off + 4 * (uint64_t)(id[0] - 1)) : 0;
	uint32_t hi = be32_at(f, oidf->off + 4 * (uint64_t)id[0]);
	hi = hi < nobj ? hi : nobj;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(id, f->data + oidl->off + (uint64_t)f->rawsz * mid, f->rawsz);
		if (c == 0) {
			*at = mid;
			return true;
		}
		if (c < 0) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return false;
}

/* The pack-int-id of each of ids[0 .. nids) in a loaded multi-pack-index (git's bsearch_midx: the
 * top layer first, then down the chain; a layer's pack-int-ids come after those of the layers
 * below it), and its offset when off_of is not NULL; an ID it does not list keeps what the caller
 * set (skg_midx_pack_names: UINT32_MAX, UINT64_MAX). */
static void midx_packs_of(const struct midx_set *set, const uint8_t *ids, size_t nids, uint32_t *pack_of,
                          uint64_t *off_of)
{
	for (size_t k = 0; k < nids; k++) {
		const uint8_t *id = ids + k * (set->n > 0 ? set->l[0].f.rawsz : 0);
		for (size_t L = set->n; L-- > 0;) {
			const struct midx_layer *l = &set->l[L];
			const struct file *f = &l->f;
			const struct chunk *oidl, *ooff;
			const struct chunk *loff = find_chunk(l->cs, ID4('L', 'O', 'F', 'F'));
			uint32_t nobj, mid;
			if (!layer_objects(l, &oidl, &ooff, &nobj) || !layer_find(l, id, &mid)) {
				continue;
			}
			pack_of[k] = l->info.packs_in_base + be32_at(f, ooff->off + (uint64_t)8 * mid);
			uint32_t v = be32_at(f, ooff->off + (uint64_t)8 * mid + 4);
			if (off_of != NULL && (v & 0x80000000u) == 0) {
				off_of[k] = v;
			} else if (off_of != NULL && loff != NULL &&
			           loff->off + (uint64_t)8 * ((v & 0x7fffffffu) + 1ull) <= f->len) {
				uint64_t at = loff->off + (uint64_t)8 * (v & 0x7fffffffu);
				off_of[k] = (uint64_t)be32_at(f, at) << 32 | be32_at(f, at + 4);
			}
			break;
		}
	}
}

/* Whether git's lookup of id (bsearch_midx: the top layer first, the binary search of each) lands
 * on entry i of layer L. */
static bool lands_at(const struct midx_set *set, const uint8_t *id, size_t L, uint32_t i)
{
	uint32_t at = 0;
	size_t U = set->n;
	while (U-- > 0 && !layer_find(&set->l[U], id, &at)) {
	}
	return U == L && at == i;
}

/* OBJDIR's multi-pack-index as git loads it (midx_set_load, its lines dropped): 1 (set to free),
 * 0 when there is none git would load, -1 when out of memory. */
static int midx_open(const char *objdir, unsigned rawsz, unsigned git_version, struct midx_set *set)
{
	set->l = NULL;
	set->n = 0;
	set->chain = false;
	struct skg_lines *lines = malloc(sizeof(*lines));
	if (lines == NULL) {
		return -1;
	}
	skg_lines_clear(lines);
	enum load_result file_lr;
	enum load_result lr = midx_set_load(objdir, rawsz, git_version, set, lines, &file_lr);
	int ret = lines->nomem ? -1 : lr == LOADED ? 1 : 0;
	free(lines);
	if (ret != 1) {
		midx_set_free(set);
	}
	return ret;
}

/* The packs of set's layers, by pack-int-id: each layer's names follow one another in its PNAM
 * chunk, as midx_chunks read them, the base layer's first (pack-int-ids count up the chain).
 * fn(ctx, pack_int_id, name) for each, name NULL past the end of its layer's file (name is the
 * callee's to free). The packs of set, or -1 when out of memory or fn fails. */
static int64_t for_each_pack_name(const struct midx_set *set, int (*fn)(void *ctx, size_t p, char *name),
                                  void *ctx)
{
	size_t p = 0;
	for (size_t L = 0; L < set->n; L++) {
		const struct file *f = &set->l[L].f;
		uint32_t npacks = be32_at(f, 8);
		const struct chunk *pnam = find_chunk(set->l[L].cs, ID4('P', 'N', 'A', 'M'));
		uint64_t cur = pnam != NULL ? pnam->off : f->len, len = 0;
		for (uint32_t i = 0; i < npacks; i++, p++) {
			char *name = cur < f->len ? string_at(f, cur, &len) : NULL;
			if ((name == NULL && cur < f->len) || fn(ctx, p, name) != 0) {
				return -1; /* (string_at: out of memory) */
			}
			cur += name != NULL ? len + 1 : 0;
		}
	}
	return (int64_t)p;
}

struct names {
	char **v;
	size_t n;
};

/* skg_midx_pack_names' for_each_pack_name: the names there are, one after another */
static int add_name(void *ctx, size_t p, char *name)
{
	struct names *nm = ctx;
	(void)p;
	if (name != NULL) {
		nm->v[nm->n++] = name;
	}
	return 0;
}

int skg_midx_pack_names(const char *objdir, unsigned rawsz, unsigned git_version, char ***names, size_t *n,
                        const uint8_t *ids, size_t nids, uint32_t *pack_of, uint64_t *off_of)
{
	*names = NULL;
	*n = 0;
	for (size_t k = 0; k < nids; k++) {
		pack_of[k] = UINT32_MAX;
		if (off_of != NULL) {
			off_of[k] = UINT64_MAX;
		}
	}
	struct midx_set set;
	int ret = midx_open(objdir, rawsz, git_version, &set);
	if (ret != 1) {
		return ret < 0 ? -1 : 0;
	}
	uint64_t total = 0;
	for (size_t L = 0; L < set.n; L++) {
		total += be32_at(&set.l[L].f, 8);
	}
	struct names nm = {
	    total < SIZE_MAX / sizeof(**names) ? calloc(total > 0 ? (size_t)total : 1, sizeof(char *)) : NULL,
	    0};
	ret = nm.v == NULL || for_each_pack_name(&set, add_name, &nm) < 0 ? -1 : 0;
	*names = nm.v;
	*n = nm.n;
	if (ret == 0) {
		midx_packs_of(&set, ids, nids, pack_of, off_of);
	}
	midx_set_free(&set);
	return ret;
}

int skg_midx_bitmap_path(const char *objdir, unsigned rawsz, unsigned git_version, char **path)
{
	*path = NULL;
	struct midx_set set;
	int ret = midx_open(objdir, rawsz, git_version, &set);
	if (ret != 1) {
		return ret;
	}
	const struct file *top = &set.l[set.n - 1].f;
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(top->data + top->len - rawsz, rawsz, hex);
	/* pack-bitmap.c midx_bitmap_filename: a chain's beside its layers */
	struct skg_buf b = {0};
	skg_buf_addf(&b, "%s/pack/%s-%s.bitmap", objdir,
	             set.chain ? "multi-pack-index.d/multi-pack-index" : "multi-pack-index", hex);
	midx_set_free(&set);
	if (b.failed) {
		skg_buf_release(&b);
		return -1;
	}
	*path = b.p;
	return 0;
}

int skg_midx_pack_ids(const char *objdir, unsigned rawsz, unsigned git_version, uint32_t place, uint8_t **ids,
                      size_t *n)
{
	*ids = NULL;
	*n = 0;
	struct midx_set set;
	int ret = midx_open(objdir, rawsz, git_version, &set);
	if (ret != 1) {
		return ret;
	}
	/* the entries of the pack where git's lookup of their ID lands (the top layer first, the
	 * binary search of each): not those a layer above lists too, nor those it does not find */
	size_t cap = 0;
	ret = 0;
	for (size_t L = 0; L < set.n && ret == 0; L++) {
		const struct midx_layer *l = &set.l[L];
		const struct chunk *oidl, *ooff;
		uint32_t nobj;
		if (!layer_objects(l, &oidl, &ooff, &nobj)) {
			continue;
		}
		for (uint32_t i = 0; i < nobj; i++) {
			/* (a pack-int-id beyond the layer's packs: git dies there, skg_midx_bad_pack_ids) */
			uint32_t local = be32_at(&l->f, ooff->off + (uint64_t)8 * i);
			if (local >= l->info.num_packs || l->info.packs_in_base + local != place) {
				continue;
			}
			const uint8_t *id = l->f.data + oidl->off + (uint64_t)rawsz * i;
			if (!lands_at(&set, id, L, i)) {
				continue;
			}
			if (*n == cap) {
				uint8_t *v = realloc(*ids, (cap ? 2 * cap : 16) * rawsz);
				if (v == NULL) {
					ret = -1;
					break;
				}
				*ids = v;
				cap = cap ? 2 * cap : 16;
			}
			memcpy(*ids + *n * rawsz, id, rawsz);
			(*n)++;
		}
	}
	midx_set_free(&set);
	if (ret == 0 && *n > 1) { /* for a binary search, even in a multi-pack-index out of order */
		qsort(*ids, *n, rawsz, skg_id_cmp(rawsz));
	}
	if (ret == 0 && *ids == NULL) { /* none, from a multi-pack-index that loads: not NULL */
		*ids = malloc(1);
		ret = *ids == NULL ? -1 : 0;
	}
	return ret;
}

/* Bytes [off, off + n) of the file fd into buf: whether they were read whole. */
static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return off <= (uint64_t)INT64_MAX && pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/*
 * The size of the pack PACK, when git opens it with its idx IDX (packfile.c open_packed_git_1:
 * "PACK", version 2 or 3, as many objects as the idx, the trailing checksum the idx names), else
 * UINT64_MAX: git's reads of it never reach an offset.
 */
static uint64_t opening_size(const char *pack, const char *idx, unsigned rawsz)
{
	uint64_t size = UINT64_MAX;
	int pfd = open(pack, O_RDONLY | O_CLOEXEC), ifd = open(idx, O_RDONLY | O_CLOEXEC);
	struct stat ps, is;
	uint8_t head[12], ihead[8], tail[SKG_MAX_RAWSZ], want[SKG_MAX_RAWSZ], count[4];
	if (pfd >= 0 && ifd >= 0 && fstat(pfd, &ps) == 0 && fstat(ifd, &is) == 0 && S_ISREG(ps.st_mode) &&
	    (uint64_t)ps.st_size >= 12 + (uint64_t)rawsz &&
	    (uint64_t)is.st_size >= 1024 + 2 * (uint64_t)rawsz && read_at(pfd, head, sizeof(head), 0) &&
	    read_at(pfd, tail, rawsz, (uint64_t)ps.st_size - rawsz) &&
	    read_at(ifd, ihead, sizeof(ihead), 0) &&
	    read_at(ifd, want, rawsz, (uint64_t)is.st_size - 2 * (uint64_t)rawsz)) {
		/* the idx's object count: fanout[255] (after the v2 header) */
		bool v2 = memcmp(ihead, "\377tOc", 4) == 0;
		uint32_t version =
		    (uint32_t)head[4] << 24 | (uint32_t)head[5] << 16 | (uint32_t)head[6] << 8 | head[7];
		if (memcmp(head, "PACK", 4) == 0 && (version == 2 || version == 3) &&
		    read_at(ifd, count, 4, (v2 ? 8 : 0) + 255 * 4) && memcmp(count, head + 8, 4) == 0 &&
		    memcmp(tail, want, rawsz) == 0) {
			size = (uint64_t)ps.st_size;
		}
	}
	if (pfd >= 0) {
		close(pfd);
	}
	if (ifd >= 0) {
		close(ifd);
	}
	return size;
}

struct sizes {
	const char *objdir;
	unsigned rawsz;
	uint64_t *v;
};

/* pack_sizes' for_each_pack_name: the size of pack p, from OBJDIR/pack/NAME with NAME's ".idx" as
 * ".pack" (UINT64_MAX for one git does not open, opening_size, or without a name) */
static int add_size(void *ctx, size_t p, char *name)
{
	struct sizes *s = ctx;
	s->v[p] = UINT64_MAX;
	if (name == NULL) {
		return 0;
	}
	size_t nl = strlen(name);
	int stem = (int)(nl > 4 && strcmp(name + nl - 4, ".idx") == 0 ? nl - 4 : nl);
	struct skg_buf path = {0}, idx = {0};
	skg_buf_addf(&path, "%s/pack/%.*s.pack", s->objdir, stem, name);
	skg_buf_addf(&idx, "%s/pack/%.*s.idx", s->objdir, stem, name);
	free(name);
	int ret = path.failed || idx.failed ? -1 : 0;
	if (ret == 0) {
		s->v[p] = opening_size(path.p, idx.p, s->rawsz);
	}
	skg_buf_release(&path);
	skg_buf_release(&idx);
	return ret;
}

/* The size of each pack the layers of set name, by pack-int-id (add_size), *n of them. 0, or -1
 * when out of memory. */
static int pack_sizes(const char *objdir, unsigned rawsz, const struct midx_set *set, uint64_t **sizes,
                      size_t *n)
{
	size_t total = 0;
	for (size_t L = 0; L < set->n; L++) {
		total += be32_at(&set->l[L].f, 8);
	}
	struct sizes s = {objdir, rawsz, malloc((total > 0 ? total : 1) * sizeof(uint64_t))};
	int64_t got = s.v != NULL ? for_each_pack_name(set, add_size, &s) : -1;
	*sizes = s.v;
	*n = got > 0 ? (size_t)got : 0;
	return got < 0 ? -1 : 0;
}

int skg_midx_bad_id_cmp(const void *a, const void *b)
{
	return memcmp(((const struct skg_midx_bad_id *)a)->id, ((const struct skg_midx_bad_id *)b)->id,
	              SKG_MAX_RAWSZ);
}

int skg_midx_bad_pack_ids(const char *objdir, unsigned rawsz, unsigned git_version,
                          struct skg_midx_bad_id **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	struct midx_set set;
	int ret = midx_open(objdir, rawsz, git_version, &set);
	if (ret != 1) {
		return ret;
	}
	ret = 0;
	size_t cap = 0;
	uint64_t *sizes = NULL; /* each pack's file size (UINT64_MAX: not there) */
	size_t nsizes = 0;
	if (pack_sizes(objdir, rawsz, &set, &sizes, &nsizes) != 0) {
		ret = -1;
	}
	for (size_t L = 0; L < set.n && ret == 0; L++) {
		const struct midx_layer *l = &set.l[L];
		const struct chunk *oidl, *ooff;
		const struct chunk *loff = find_chunk(l->cs, ID4('L', 'O', 'F', 'F'));
		uint32_t nobj;
		if (!layer_objects(l, &oidl, &ooff, &nobj)) {
			continue;
		}
		for (uint32_t i = 0; i < nobj; i++) {
			uint32_t local = be32_at(&l->f, ooff->off + (uint64_t)8 * i);
			bool past_end = false;
			if (local < l->info.num_packs) {
				uint64_t p = l->info.packs_in_base + local, off = UINT64_MAX;
				uint32_t v = be32_at(&l->f, ooff->off + (uint64_t)8 * i + 4);
				if ((v & 0x80000000u) == 0) {
					off = v;
				} else if (loff != NULL &&
				           loff->off + (uint64_t)8 * ((v & 0x7fffffffu) + 1ull) <= l->f.len) {
					uint64_t at = loff->off + (uint64_t)8 * (v & 0x7fffffffu);
					off = (uint64_t)be32_at(&l->f, at) << 32 | be32_at(&l->f, at + 4);
				}
				past_end = p < nsizes && sizes[p] != UINT64_MAX && off != UINT64_MAX &&
				           (sizes[p] < rawsz || off >= sizes[p] - rawsz);
				if (!past_end) {
					continue;
				}
			}
			const uint8_t *id = l->f.data + oidl->off + (uint64_t)rawsz * i;
			if (!lands_at(&set, id, L, i)) {
				continue; /* git's lookup lands elsewhere */
			}
			if (*n == cap) {
				struct skg_midx_bad_id *v = realloc(*out, (cap ? 2 * cap : 16) * sizeof(*v));
				if (v == NULL) {
					ret = -1;
					break;
				}
				*out = v;
				cap = cap ? 2 * cap : 16;
			}
			struct skg_midx_bad_id *b = &(*out)[(*n)++];
			memset(b->id, 0, sizeof(b->id));
			memcpy(b->id, id, rawsz);
			b->pack_int_id = l->info.packs_in_base + local;
			b->total = l->info.packs_in_base + l->info.num_packs;
			b->past_end = past_end;
		}
	}
	free(sizes);
	midx_set_free(&set);
	if (ret == 0 && *n > 1) {
		qsort(*out, *n, sizeof(**out), skg_midx_bad_id_cmp);
	}
	return ret;
}

/* ---- .rev ------------------------------------------------------------------------------------------ */

#define RIDX_MIN_SIZE(rawsz) (SKG_RIDX_HEADER + 2 * (uint64_t)(rawsz))

/* The object count of an .idx file (version 1 or 2), or -1. */
static int64_t idx_count(const char *idx_path)
{
	int fd = open(idx_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		return -1;
	}
	uint8_t head[8 + 4 * 256];
	ssize_t got = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (got < 4 * 256) {
		return -1;
	}
	const uint8_t *fan = head;
	if (memcmp(head, "\377tOc", 4) == 0) {
		if (got < (ssize_t)sizeof(head) || head[4] != 0 || head[5] != 0 || head[6] != 0 ||
		    head[7] != 2) {
			return -1;
		}
		fan = head + 8;
	}
	const uint8_t *last = fan + 4 * 255;
	return (int64_t)((uint32_t)last[0] << 24 | (uint32_t)last[1] << 16 | (uint32_t)last[2] << 8 |
	                 last[3]);
}

/* path with its extension (from the last '.') replaced by ext; NULL when out of memory. */
static char *with_ext(const char *path, const char *ext)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	size_t stem = dot != NULL && (slash == NULL || dot > slash) ? (size_t)(dot - path) : strlen(path);
	size_t n = stem + strlen(ext) + 1;
	char *p = malloc(n);
	if (p != NULL) {
		memcpy(p, path, stem);
		strcpy(p + stem, ext);
	}
	return p;
}

/* Entry i's pack offset in an idx of n objects (git's nth_packed_object_offset, version 1 or 2), or
 * UINT64_MAX where a large offset lies outside the file. */
static uint64_t idx_offset(const struct file *idx, bool v2, uint32_t n, uint32_t i)
{
	if (!v2) {
		return be32_at(idx, 4 * 256 + (4 + (uint64_t)idx->rawsz) * i); /* v1: offset, ID */
	}
	uint64_t table = 8 + 4 * 256 + (uint64_t)n * (idx->rawsz + 4);
	uint32_t off = be32_at(idx, table + 4 * (uint64_t)i);
	if ((off & 0x80000000u) == 0) {
		return off;
	}
	uint64_t at = table + 4 * (uint64_t)n + 8 * (uint64_t)(off & 0x7fffffffu);
	return at + 8 <= idx->len ? be64_at(idx, at) : UINT64_MAX;
}

struct rev_pair {
	uint64_t offset;
	uint32_t pos;
};

static int rev_pair_cmp(const void *a, const void *b)
{
	const struct rev_pair *x = a, *y = b;
	if (x->offset != y->offset) {
		return x->offset < y->offset ? -1 : 1;
	}
	return x->pos < y->pos ? -1 : x->pos > y->pos; /* git's radix sort is stable */
}

/*
 * The entries of a .rev (whose size matched the idx's count) against the pack order the idx gives:
 * git 2.41+'s verify_pack_revindex (pack-revindex.c) after its checksum test builds that order in
 * memory (the idx positions sorted by offset) and reports "invalid rev-index position at I: WANT !=
 * GOT" for each entry that differs. An idx git would not load (check_packed_git_idx: size, version,
 * fan-out order) stops the comparison there, as git's does. git sorts with a radix sort of 16-bit
 * digits that stops at the pack's size at its load (sort_revindex, max = p->pack_size): the offsets
 * are compared on their low 16 bits per digit that size has, none when the .pack is empty, so a
 * pack shorter than its idx says gives git another order (identity for an empty one). pack: the
 * .pack's path, whose size is taken here (the full sort when it cannot be read). Returns false when
 * an entry differed, -1 when out of memory (lines say so), true otherwise.
 */
static int rev_positions(const struct file *rev, const char *idx_path, const char *pack,
                         struct skg_lines *lines, const struct skg_lines_flush *flush)
{
	struct file idx;
	uint64_t size = 0;
	bool regular = false;
	int err = 0;
	int ret = true;
	if (open_file(idx_path, rev->rawsz, 4 * 256, &idx, &size, &regular, &err) != OPENED ||
	    idx.data == NULL) {
		free(idx.owned);
		return true;
	}
	bool v2 = be32_at(&idx, 0) == 0xff744f63u;
	uint64_t fan = v2 ? 8 : 0;
	uint32_t prev = 0;
	bool loads = !v2 || be32_at(&idx, 4) == 2;
	for (unsigned k = 0; k < 256 && loads; k++) {
		uint32_t v = be32_at(&idx, fan + 4 * k);
		loads = v >= prev;
		prev = v;
	}
	uint32_t n = prev;
	uint64_t rawsz = rev->rawsz;
	uint64_t want = v2 ? 8 + 4 * 256 + (uint64_t)n * (rawsz + 8) + 2 * rawsz
	                   : 4 * 256 + (uint64_t)n * (rawsz + 4) + 2 * rawsz;
	uint64_t most = v2 && n > 0 ? want + 8 * ((uint64_t)n - 1) : want;
	loads = loads && idx.len >= want && idx.len <= most &&
	        rev->len == SKG_RIDX_HEADER + 4 * (uint64_t)n + 2 * rawsz;
	/* the digits of git's radix sort: as many 16-bit ones as the pack's size has */
	uint64_t key_mask = UINT64_MAX;
	struct stat pst;
	if (stat(pack, &pst) == 0 && pst.st_size >= 0) {
		key_mask = 0;
		for (unsigned bits = 0; bits < 64 && ((uint64_t)pst.st_size >> bits) != 0; bits += 16) {
			key_mask = bits + 16 >= 64 ? UINT64_MAX : (UINT64_C(1) << (bits + 16)) - 1;
		}
	}
	/* the order is right when (key, position) rises along it: a permutation, the stable sort's */
	bool rising = loads;
	uint64_t last = 0;
	uint32_t last_pos = 0;
	for (uint32_t i = 0; rising && i < n; i++) {
		uint32_t pos = be32_at(rev, SKG_RIDX_HEADER + 4 * (uint64_t)i);
		uint64_t off = pos < n ? idx_offset(&idx, v2, n, pos) : UINT64_MAX;
		uint64_t key = off & key_mask;
		rising = off != UINT64_MAX && (i == 0 || key > last || (key == last && pos > last_pos));
		last = key;
		last_pos = pos;
	}
	if (loads && !rising) {
		struct rev_pair *v = malloc((n > 0 ? n : 1) * sizeof(*v));
		if (v == NULL) {
			skg_lines_nomem(lines);
			free(idx.owned);
			return -1;
		}
		for (uint32_t i = 0; i < n; i++) {
			v[i].offset = idx_offset(&idx, v2, n, i) & key_mask;
			v[i].pos = i;
		}
		qsort(v, n, sizeof(*v), rev_pair_cmp);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t got = be32_at(rev, SKG_RIDX_HEADER + 4 * (uint64_t)i);
			if (got != v[i].pos) {
				if (flush != NULL && lines->len + 1024 > SKG_LINES_SIZE) {
					flush->fn(flush->ctx, lines); /* one line per entry: any number */
				}
				skg_lines_add(lines, "error: ",
				              "invalid rev-index position at %" PRIu32 ": %" PRIu32
				              " != %" PRIu32,
				              i, v[i].pos, got);
				ret = false;
			}
		}
		free(v);
	}
	free(idx.owned);
	return ret;
}

/*
 * git's load_revindex_from_disk() after the open (f: the file when it was read, size its size), then
 * the checksum and (idx_path not NULL) the entries against the idx, in git 2.41's words.
 */
static int rev_check(const struct file *f, uint64_t size, bool regular, int read_err, const char *path,
                     const char *pack, const char *idx_path, int64_t num_objects, struct skg_lines *lines,
                     const struct skg_lines_flush *flush)
{
	int status = SKG_TRAILER_BAD;
	bool load_error = true;
	if (size < RIDX_MIN_SIZE(f->rawsz)) {
		skg_lines_add(lines, "error: ", "reverse-index file %s is too small", path);
	} else if (num_objects >= 0 && size - RIDX_MIN_SIZE(f->rawsz) != 4 * (uint64_t)num_objects) {
		skg_lines_add(lines, "error: ", "reverse-index file %s is corrupt", path);
	} else if (f->data == NULL || !regular) {
		skg_lines_add(lines, "fatal: ", "mmap failed: %s",
		              strerror(f->data == NULL ? read_err : ENODEV));
		status = SKG_TRAILER_FATAL;
		load_error = false;
	} else if (be32_at(f, 0) != SKG_RIDX_SIGNATURE) {
		skg_lines_add(lines, "error: ", "reverse-index file %s has unknown signature", path);
	} else if (be32_at(f, 4) != SKG_RIDX_VERSION) {
		skg_lines_add(lines, "error: ", "reverse-index file %s has unsupported version %" PRIu32,
		              path, be32_at(f, 4));
	} else if (be32_at(f, 8) != 1 && be32_at(f, 8) != 2) {
		skg_lines_add(lines, "error: ", "reverse-index file %s has unsupported hash id %" PRIu32,
		              path, be32_at(f, 8));
	} else {
		load_error = false;
		bool sum_ok = skg_trailer_checksum_ok(f->data, f->len, f->rawsz);
		if (!sum_ok) {
			skg_lines_add(lines, "error: ", "invalid checksum");
		}
		int pos_ok = idx_path != NULL ? rev_positions(f, idx_path, pack, lines, flush) : true;
		if (pos_ok < 0) {
			return SKG_TRAILER_FATAL;
		}
		if (flush != NULL && lines->len + 1024 > SKG_LINES_SIZE) {
			flush->fn(flush->ctx, lines); /* room for the last line after the entries' */
		}
		if (sum_ok && pos_ok) {
			status = SKG_TRAILER_OK;
		} else {
			skg_lines_add(lines, "error: ", "invalid rev-index for pack '%s'", pack);
		}
	}
	if (load_error) {
		skg_lines_add(lines, "error: ", "unable to load rev-index for pack '%s'", pack);
	}
	return status;
}

int skg_trailer_rev_buf(const uint8_t *data, size_t len, const char *path, unsigned rawsz,
                        int64_t num_objects, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	char *pack = with_ext(path, ".pack");
	if (pack == NULL) {
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	static const uint8_t empty[1];
	struct file f = {len > 0 ? data : empty, len, NULL, rawsz};
	char *idx = with_ext(path, ".idx");
	int status = idx == NULL ? (skg_lines_nomem(lines), SKG_TRAILER_FATAL)
	                         : rev_check(&f, len, true, 0, path, pack, idx, num_objects, lines, NULL);
	free(idx);
	free(pack);
	return status;
}

/* Whether the file `path` with its extension replaced by `ext` is there (a regular file). */
static bool has_file(const char *path, const char *ext)
{
	char *other = with_ext(path, ext);
	struct stat st;
	bool yes = other != NULL && stat(other, &st) == 0 && S_ISREG(st.st_mode);
	free(other);
	return yes;
}

/* skg_trailer_rev_file's lines appended to `lines` (flush: as in skg_trailer_revs) */
static int rev_file(const char *path, unsigned rawsz, int64_t num_objects, struct skg_lines *lines,
                    const struct skg_lines_flush *flush)
{
	char *pack = with_ext(path, ".pack");
	if (pack == NULL) {
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	char *idx = with_ext(path, ".idx");
	if (idx == NULL) {
		free(pack);
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	if (num_objects < 0) {
		num_objects = idx_count(idx);
	}
	struct file f;
	uint64_t size = 0;
	bool regular = false;
	int err = 0;
	enum open_result o = open_file(path, rawsz, RIDX_MIN_SIZE(rawsz), &f, &size, &regular, &err);
	int status;
	if (o == NOT_OPENED) {
		status = SKG_TRAILER_ABSENT; /* git: no reverse index on disk */
	} else if (o == STAT_FAILED) {
		skg_lines_add(lines, "error: ", "failed to read %s: %s", path, strerror(err));
		skg_lines_add(lines, "error: ", "unable to load rev-index for pack '%s'", pack);
		status = SKG_TRAILER_BAD;
	} else {
		status = rev_check(&f, size, regular, err, path, pack, idx, num_objects, lines, flush);
	}
	free(f.owned);
	free(idx);
	free(pack);
	return status;
}

int skg_trailer_rev_file(const char *path, unsigned rawsz, int64_t num_objects, struct skg_lines *lines)
{
	skg_lines_clear(lines);
	return rev_file(path, rawsz, num_objects, lines, NULL);
}

/* rev_file() of the .rev at `path` when git loads its pack: X.idx and X.pack both regular files (git
 * loads a pack from its X.idx, any X, when X.pack is a file: add_packed_git, and checks the X.rev of
 * the packs it loaded; an X.rev without both belongs to none, even with its pack named in a
 * multi-pack-index, whose load's own line says that pack's). ABSENT otherwise. */
static int loaded_pack_rev(const char *path, unsigned rawsz, struct skg_lines *lines,
                           const struct skg_lines_flush *flush)
{
	if (!has_file(path, ".idx") || !has_file(path, ".pack")) {
		return SKG_TRAILER_ABSENT;
	}
	if (flush != NULL && lines->len > SKG_LINES_SIZE / 2) {
		flush->fn(flush->ctx, lines); /* room for this file's first lines */
	}
	return rev_file(path, rawsz, -1, lines, flush);
}

int skg_trailer_pack_rev(const char *idx_path, unsigned rawsz, struct skg_lines *lines,
                         const struct skg_lines_flush *flush)
{
	char *path = with_ext(idx_path, ".rev");
	if (path == NULL) {
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	int st = loaded_pack_rev(path, rawsz, lines, flush);
	free(path);
	return st;
}

int skg_trailer_revs(const char *objdir, unsigned rawsz, struct skg_lines *lines,
                     const struct skg_lines_flush *flush)
{
	skg_lines_clear(lines);
	char *dirpath = skg_concat3(objdir, "/pack", "");
	if (dirpath == NULL) {
		skg_lines_nomem(lines);
		return SKG_TRAILER_FATAL;
	}
	DIR *dir = opendir(dirpath);
	int worst = SKG_TRAILER_ABSENT;
	if (dir == NULL) {
		free(dirpath);
		return worst;
	}
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".rev") != 0 ||
		    strncmp(de->d_name, "multi-pack-index", 16) == 0) {
			continue;
		}
		char *path = skg_concat3(dirpath, "/", de->d_name);
		if (path == NULL) {
			skg_lines_nomem(lines);
			worst = SKG_TRAILER_FATAL;
			break;
		}
		int st = loaded_pack_rev(path, rawsz, lines, flush);
		free(path);
		if (st == SKG_TRAILER_ABSENT) {
			continue;
		}
		if (worst == SKG_TRAILER_ABSENT || st > worst) {
			worst = st;
		}
	}
	closedir(dir);
	free(dirpath);
	return worst;
}

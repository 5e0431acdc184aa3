/*
 * cgraph.h - the contents of a commit-graph (a single file or a split chain) compared with the
 * object database, as git 2.39.5's `git commit-graph verify` does (commit-graph.c
 * verify_commit_graph, graph_report; commit.c parse_commit_internal, parse_commit_buffer,
 * parse_commit_date; hash-lookup.c bsearch_hash). Internal to the Git layer.
 *
 * Sources: Git's Documentation/gitformat-commit-graph.txt (chunks OIDF: 256 4-byte cumulative
 * counts; OIDL: the commit IDs in order; CDAT: per commit the root tree ID, two 4-byte parent
 * positions (0x70000000: none; high bit: an index into EDGE), a 4-byte word whose upper 30 bits
 * are the topological level and lower 2 the top bits of the 34-bit commit date, then 4 more bytes
 * of date; EDGE: parent positions, the last with the high bit; GDA2: 4-byte corrected commit date
 * offsets, high bit: an index into GDO2's 8-byte offsets; positions in a chain count the commits of
 * the base layers first). What git checks, for the graph and then each base layer (see
 * trailer.h for the load and the checksum):
 *  1. the checksum line (computed by the caller), then, commit by commit in lookup order: the OID
 *     order, the fanout, and that the commit parses from the graph (git finds it by a binary search
 *     within the fanout's bounds, unless an earlier commit named it as a parent); then the fanout
 *     entries after the last commit. Any of these: git stops there (no further layer);
 *  2. each commit read from the object database ("error: Could not read ID" when it is not there)
 *     and compared: root tree, parents, generation (corrected commit date when the layer has GDA2,
 *     else topological level), commit date. Its lines are unprefixed (graph_report) except the
 *     object database's "error: " lines.
 * A parent position beyond the graph, or an overflow offset without GDO2, makes git die (the
 * "fatal: " line; verify exits 128).
 * Not modelled: where git reads outside its mapping (a fanout far beyond the lookup chunk, an
 * EDGE list running off the file or missing) it crashes; here the "fatal: invalid parent position"
 * line ends the check. Replace refs (git reads the replacement), commitGraph.generationVersion=1
 * (GDA2 then ignored) and progress lines ("Verifying commits in commit graph", only on a terminal)
 * are not followed. git fsck's own use of the graph while it parses commits from their objects (it
 * dies on an overflow offset without GDO2 before running verify) is not modelled either; the parse
 * of --connectivity-only's walk from the graph is (skg_cgraph_parse).
 */
#ifndef SHA1KIT_GIT_CGRAPH_H
#define SHA1KIT_GIT_CGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grafts.h"
#include "loose.h"

/* One loaded layer: its bytes and where its chunks start (offsets in data; a read beyond len
 * gives zeros, as the zero fill of git's mapping). */
struct skg_cgraph_layer {
	const uint8_t *data;
	size_t len;
	unsigned rawsz; /* bytes of an object ID and of the checksum: 20 (SHA-1) or 32 (SHA-256) */
	bool checksum_ok;
	uint64_t fanout, lookup, cdat, edges, gdat, gdo2;
	uint64_t edges_size; /* bytes of the EDGE chunk (0: none) */
	bool has_edges, has_gdat, has_gdo2;
	uint32_t num_commits; /* OIDL's size / rawsz */
	uint32_t num_in_base; /* commits of the layers below it */
};

/*
 * The object database as the verify process reads it: read(ctx, id, &type, &data, &len, lines)
 * returns 1 with a malloc'd copy of the object (type 1..4), 0 when it cannot be read (any lines
 * git prints while trying are added to lines), 2 when git dies reading it (lines end with its
 * "fatal: " line), -1 when memory ran out. grafts: the parents git
 * gives grafted and shallow commits (NULL: none). flush(ctx, lines): send the lines so far and
 * clear them (called before they could overflow).
 */
struct skg_cgraph_odb {
	int (*read)(void *ctx, const uint8_t *id, unsigned *type, uint8_t **data, size_t *len,
	            struct skg_lines *lines);
	void (*flush)(void *ctx, struct skg_lines *lines);
	void *ctx;
	const struct skg_grafts *grafts;
	/* git 2.55's "Verifying commits in commit graph" meter (its fsck runs the verify with
	 * --progress when it shows progress itself), with ctx; NULL: none */
	skg_meter_fn meter;
};

enum skg_cgraph_status {
	SKG_CGRAPH_OK = 0,    /* nothing reported */
	SKG_CGRAPH_BAD = 1,   /* lines: verify exits 1 */
	SKG_CGRAPH_FATAL = 2, /* the last line is git's "fatal: ": verify exits 128 */
};

/*
 * verify_commit_graph() of layers[0] (the tip) and, as git, down to layers[n - 1], lines appended
 * (the checksum line included), as git_version's Git (SKG_GIT_2_39 or SKG_GIT_2_55 of
 * <sha1kit/git.h>) runs it: 2.39.5 goes down to a layer only when the one above had no
 * error before its second pass, and a layer's errors are its own; 2.55.0 goes down every layer
 * with one error state (commit-graph.c verify_commit_graph_error: a bad checksum sets it to the
 * hash error alone, a report to 1), and a layer's second pass runs when that state has no error
 * but the hash error. Returns an enum skg_cgraph_status, or -1 when memory ran out (lines->nomem).
 */
int skg_cgraph_verify(const struct skg_cgraph_layer *layers, size_t n, const struct skg_cgraph_odb *odb,
                      unsigned git_version, struct skg_lines *lines);

/*
 * A commit parsed from the commit-graph as git's repo_parse_commit does when the graph has it
 * (commit-graph.c parse_commit_in_graph: bsearch_graph from the tip layer down,
 * fill_commit_in_graph, fill_commit_graph_info, insert_parent_or_die; the root tree of
 * load_tree_for_commit), for a walk that takes a commit's links from the graph (git fsck
 * --connectivity-only): `id` looked up in layers[0 .. n) (tip first). Returns 0 when the graph
 * does not have it; 1 when parsed: *tree (rawsz bytes) and each parent in order through
 * parent(ctx, id); -1 when git dies there (its message, without "fatal: ", in why: "invalid
 * parent position N", "commit-graph requires overflow generation data but has none"); 2 when the
 * parse fails with an error and git parses the object from the object database instead (v255,
 * git 2.55: "commit-graph extra-edges pointer out of bounds", without "error: ", in why). Parents
 * given before a -1 or 2 are to be dropped.
 */
typedef void (*skg_cgraph_parent_fn)(void *ctx, const uint8_t *id);
int skg_cgraph_parse(const struct skg_cgraph_layer *layers, size_t n, const uint8_t *id, bool v255,
                     uint8_t *tree, skg_cgraph_parent_fn parent, void *ctx, char *why, size_t why_size);

#endif /* SHA1KIT_GIT_CGRAPH_H */

/*
 * index_pack.c - `sha1kit index-pack`: build the .idx of a Git pack and its reverse index (.rev),
 * byte for byte as `git index-pack` writes them, or check existing ones (--verify).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit/git_pack.h>

#include "cli.h"
#include "pack_io.h"

#define CMD          "index-pack"
#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options, usage()) */

static void index_pack_usage(void)
{
	fputs("Usage: sha1kit index-pack [OPTION]... PACK\n"
	      "Build the index (.idx) and the reverse index (.rev) of the Git pack file PACK,\n"
	      "or check existing ones.\n"
	      "\n"
	      "Every object of PACK is inflated, deltas (OFS_DELTA and REF_DELTA) are resolved,\n"
	      "and every object ID is computed with SHA-1DC, which detects the known SHA-1\n"
	      "collision attacks: an object that carries one is an error (in a SHA-256 pack,\n"
	      "see --object-format, IDs and checksums are SHA-256). The pack trailer\n"
	      "(the SHA-1 of the rest of the file) is checked. The index written is version 2,\n"
	      "byte for byte the file `git index-pack` writes for the same pack: fan-out table,\n"
	      "sorted object names, CRC-32s, 31-bit offsets with a table of 64-bit offsets,\n"
	      "the pack checksum and the index checksum. It is written to a temporary file in\n"
	      "the target directory and renamed into place, with mode 0444; on any error no\n"
	      "index is left behind. On success the pack checksum is printed on standard\n"
	      "output, as Git does; it is written out before the rename, so that a failure\n"
	      "of standard output is an error that leaves no index either ('fatal: write\n"
	      "failure on standard output', 128; a closed standard output too, which git\n"
	      "would take as /dev/null).\n"
	      "\n"
	      "The reverse index is written too, as git 2.41 and later do by default\n"
	      "(git 2.31 to 2.40, and --git-version=2.39: only with --rev-index or\n"
	      "pack.writeReverseIndex): the file\n"
	      "named as the index with .idx replaced by .rev, byte for byte git's: 'RIDX',\n"
	      "version 1, hash id 1, the index position of each object in pack order, the\n"
	      "pack checksum and its own checksum. It goes to a temporary file beside it,\n"
	      "mode 0444, renamed into place just before the index (the order of git's);\n"
	      "on any error neither is left behind. An existing .rev is replaced only when\n"
	      "it is a regular file (as for the index; a directory there: git's 'unable to\n"
	      "create'). With the reverse index on, an index name that does not end in\n"
	      ".idx is refused as git refuses it: 'fatal: packfile name 'NAME' does not\n"
	      "end with '.idx'' (exit status 128), before the pack is read.\n"
	      "\n"
	      "  -o FILE               write the index to FILE (default: PACK with .pack\n"
	      "                          replaced by .idx; PACK must then end in .pack;\n"
	      "                          with --stdin and no PACK, the pack goes to\n"
	      "                          objects/pack as pack-CHECKSUM.pack, as git's)\n"
	      "                          FILE must not be PACK itself; an existing FILE is\n"
	      "                          replaced only when it is a regular file: a symbolic\n"
	      "                          link (even to a regular file; name its target\n"
	      "                          instead), a FIFO or a device is refused and left\n"
	      "                          as it is; a directory there, or one that does not\n"
	      "                          exist, is git's 'fatal: unable to create 'FILE':\n"
	      "                          REASON' (128) once the pack is indexed; FILE may be\n"
	      "                          on another file system than the repository\n"
	      "      --verify          write nothing: rebuild the index and compare it with\n"
	      "                          the existing one (FILE or the default name), with\n"
	      "                          the version and 64-bit offset layout found in it;\n"
	      "                          then, with the reverse index on, the .rev beside\n"
	      "                          it, if there is one (a missing .rev is fine, as in\n"
	      "                          git), byte for byte. A difference is git's line\n"
	      "                          and exit status 128, as git's pieces of 128 KiB\n"
	      "                          decide: 'fatal: sha1 file 'NAME' validation\n"
	      "                          error', 'fatal: NAME: sha1 file truncated' or\n"
	      "                          'fatal: NAME: sha1 file has trailing garbage'.\n"
	      "                          With --stdin (in a repository, -o FILE or PACK\n"
	      "                          naming the idx) the pack read is checked; it is\n"
	      "                          written to PACK (which stays, as git's) or to a\n"
	      "                          temporary pack that is removed (git leaves it)\n"
	      "      --rev-index       write (or with --verify check) the reverse index;\n"
	      "                          the default, unless pack.writeReverseIndex is false\n"
	      "                          (with --git-version=2.39, as git 2.39, only when\n"
	      "                          pack.writeReverseIndex is true)\n"
	      "      --no-rev-index    no reverse index: none is written, and --verify does\n"
	      "                          not look at an existing one (which stays as it is).\n"
	      "                          The last of the two options wins; either wins over\n"
	      "                          the config\n"
	      "      --git-version=VERSION\n"
	      "                        where git 2.39.5 and git 2.55.0 differ, do as VERSION,\n"
	      "                          2.39 or 2.55 (default: 2.55, or $SHA1KIT_GIT_VERSION).\n"
	      "                          Three places so far: an entry size longer than 57\n"
	      "                          bits is 'fatal: object size too large for this\n"
	      "                          platform' with 2.55 (2.39.5 reads on); with 2.55\n"
	      "                          (git 2.53+), --strict\n"
	      "                          outside a repository with .gitmodules/.gitattributes\n"
	      "                          blobs still to check once the index is written:\n"
	      "                          'fatal: cannot perform queued object checks outside\n"
	      "                          of a repository' (128; the index stays, as in git);\n"
	      "                          the reverse index is written by default with 2.55\n"
	      "                          (git 2.41+), with 2.39 only when asked for\n"
	      "      --strict[=MSG-ID=SEVERITY,...]\n"
	      "                        as git index-pack --strict (the checks and lines of\n"
	      "                          the --git-version, 2.55 by default): reject duplicate\n"
	      "                          objects, run git's fsck checks on every object with\n"
	      "                          --strict severities, printing git's lines ('warning:\n"
	      "                          object ID: badFilemode: ...', 'error: ...'), and check\n"
	      "                          that every tree entry, commit tree and parent and tag\n"
	      "                          target is in the pack or, inside a repository, in its\n"
	      "                          objects (loose or packed, its alternates too).\n"
	      "                          Where git dies: 'fatal: fsck error in packed object',\n"
	      "                          'fatal: did not receive expected object ID', ... with\n"
	      "                          exit status 128 and no index written. After the index\n"
	      "                          is written, .gitmodules/.gitattributes blobs that came\n"
	      "                          before their tree are checked as git does; a failure\n"
	      "                          there is 'fatal: fsck error in pack objects' (128)\n"
	      "                          and, as in git, the index stays. MSG-ID=SEVERITY\n"
	      "                          (error, warn, ignore; also skiplist=FILE), separated\n"
	      "                          by ',', ' ' or '|', set severities as git's\n"
	      "                          fsck.<msg-id>\n"
	      "      --fsck-objects[=MSG-ID=SEVERITY,...]\n"
	      "                        the object checks of --strict alone, as git's: no\n"
	      "                          check of the links, and an object twice is allowed\n"
	      "                          (=VALUES is a usage error with --git-version=2.39)\n"
	      "      --check-self-contained-and-connected\n"
	      "                        the links of --strict alone, as git's (no fsck\n"
	      "                          checks; an object twice is refused); exit status 1\n"
	      "                          once everything is written when a link was found in\n"
	      "                          the repository rather than in the pack\n"
	      "      --threads=N       resolve deltas with N threads (default: one per\n"
	      "                          online CPU; 0 means the same; N read as git reads\n"
	      "                          it, 0x10 is 16; more than 1024 run as 1024);\n"
	      "                          with --verify, outside a repository and without\n"
	      "                          --strict, the entries are inflated and hashed on\n"
	      "                          the N threads too, from the offsets the idx gives;\n"
	      "                          with N over the CPUs online, one thread per CPU\n"
	      "                          at most inflates or resolves deltas at a time\n"
	      "      --object-format=FORMAT\n"
	      "                        the object format of PACK, sha1 or sha256, as git's\n"
	      "                          option (with '=' only): default the repository's\n"
	      "                          (extensions.objectFormat), else sha1 (a pack does\n"
	      "                          not say). In a SHA-256 pack object IDs, REF_DELTA\n"
	      "                          bases and the trailer are SHA-256 (64 hex digits\n"
	      "                          printed), and so are the index's names and\n"
	      "                          checksums and the .rev's (hash id 2), byte for byte\n"
	      "                          git's. An unknown FORMAT: 'fatal: unknown hash\n"
	      "                          algorithm 'FORMAT'' (128); with --stdin: 'fatal:\n"
	      "                          options '--object-format' and '--stdin' cannot be\n"
	      "                          used together' (128), as git. --strict checks\n"
	      "                          the 64-digit IDs of commits and tags and the\n"
	      "                          32-byte IDs of tree entries; --fix-thin appends\n"
	      "                          the repository's SHA-256 objects\n"
	      "      --index-version=V[,OFFSET]\n"
	      "                        write index version V (1 or 2; 0 is 1); with OFFSET,\n"
	      "                          objects above OFFSET go to the 64-bit offset table\n"
	      "                          (as Git's option of the same name, for tests; as\n"
	      "                          git, version 2 is written when the last object is\n"
	      "                          above OFFSET or 2^31). With --verify the version is\n"
	      "                          the existing index's, as git's\n"
	      "      --stdin           read the pack from standard input and write it with its\n"
	      "                          index: to PACK and its .idx (or -o FILE) when PACK is\n"
	      "                          given, else into the objects/pack directory of the\n"
	      "                          current repository as pack-CHECKSUM.pack, .rev and\n"
	      "                          .idx; prints 'pack<TAB>CHECKSUM' as git does. A PACK\n"
	      "                          that exists (it stays as it is), or in a directory\n"
	      "                          that does not, is git's 'fatal: unable to create\n"
	      "                          'PACK': REASON' (128) before anything is read. The\n"
	      "                          pack goes to a temporary file there first; on any\n"
	      "                          error (a corrupt pack, a full disk, a file size\n"
	      "                          limit, a signal) no file is left behind\n"
	      "      --keep[=MSG]      before the index is named, make PACK's .keep file\n"
	      "                          (with --stdin and no PACK: pack-CHECKSUM.keep in\n"
	      "                          objects/pack, and the report is 'keep<TAB>CHECKSUM'),\n"
	      "                          holding MSG and a newline (empty without MSG), as git\n"
	      "                          does so that a gc leaves the pack alone until refs\n"
	      "                          point into it; one that exists is left as it is\n"
	      "      --fix-thin        with --stdin, inside a repository: complete a thin pack\n"
	      "                          as git does (what receive-pack runs on a push): the\n"
	      "                          bases its deltas lack are read from the repository\n"
	      "                          (loose or packed, or in an alternate) and appended\n"
	      "                          as whole objects (zlib level of core.loosecompression,\n"
	      "                          else core.compression, else 1), the object count and\n"
	      "                          the trailer fixed; the pack and index are git's byte\n"
	      "                          for byte. Bases missing there too: 'fatal: pack has N\n"
	      "                          unresolved deltas' (128); a stored base that does\n"
	      "                          not read: git's 'fatal: loose (or packed) object ID\n"
	      "                          (stored in PATH) is corrupt' or 'fatal: local object\n"
	      "                          ID is corrupt' (128). Without --stdin: git's\n"
	      "                          'fatal: the option '--fix-thin' requires '--stdin''\n"
	      "  -v                    progress lines on standard error, as git's -v, even\n"
	      "                          when it is not a terminal. Without -v sha1kit shows\n"
	      "                          them when standard error is a terminal (git index-pack\n"
	      "                          shows none without -v)\n"
	      "  -q, --quiet           no progress lines (sha1kit's own option)\n"
	      "      --max-input-size=N  refuse a pack of more than N bytes, as git: 'fatal:\n"
	      "                          pack exceeds maximum allowed size (SIZE)' (128),\n"
	      "                          nothing written; N's leading digits, none or 0 for no\n"
	      "                          limit\n"
	      "      --stats           after a success, where the time went on standard error:\n"
	      "                          one line per phase (setup, Indexing objects,\n"
	      "                          Resolving deltas, and 'after' each: the index and\n"
	      "                          the checks after it) and the total, with wall time,\n"
	      "                          the process's CPU time over all threads, and their\n"
	      "                          ratio\n"
	      "  -h, --help            display this help and exit (-h: with git's status for\n"
	      "                          it, 129)\n"
	      "      --version         output version information and exit\n"
	      "\n"
	      "Inside a repository (as git, found from the current directory or GIT_DIR), every\n"
	      "object of PACK whose ID the repository already has (loose, in a pack, or in an\n"
	      "alternate) is compared with the stored copy, with or without --strict (git\n"
	      "2.39 and 2.55 alike): another type, size or content is 'fatal: SHA1 COLLISION\n"
	      "FOUND WITH ID !' (exit status 128, no index written); a stored copy that does\n"
	      "not read gives git's lines and 'fatal: cannot read existing object info ID' (or\n"
	      "git's 'fatal: loose object ID (stored in PATH) is corrupt'). This is the check\n"
	      "that stops a pushed object that collides with a stored one. With --stdin, git\n"
	      "leaves the part of the pack it wrote (tmp_pack_* or PACK); sha1kit leaves\n"
	      "nothing. Outside a repository nothing is compared. A thin pack (whose deltas\n"
	      "name bases the pack lacks, as a fetch or push sends them) is refused\n"
	      "('unresolved delta') unless --fix-thin completes it.\n"
	      "In a SHA-256 repository (git init --object-format=sha256) packs are SHA-256\n"
	      "ones and compared with its SHA-256 objects in the same way. A pack in another\n"
	      "format than the repository's (--object-format) is not compared: git looks its\n"
	      "IDs up there, finds none and prints 'error: wrong index v2 file size in ...'\n"
	      "for each lookup in a pack of the repository; sha1kit prints nothing.\n"
	      "\n"
	      "The config is read as git's index-pack reads it (system, global, the\n"
	      "repository's, GIT_CONFIG_COUNT's and GIT_CONFIG_PARAMETERS', which is how\n"
	      "git -c KEY=VALUE passes it on): pack.indexVersion sets the index\n"
	      "version, pack.threads the threads (0: one per CPU), pack.writeReverseIndex\n"
	      "(a boolean) whether the reverse index is written; --index-version, --threads\n"
	      "and --[no-]rev-index win over them. A bad value stops with git's fatal line\n"
	      "and exit status 128.\n"
	      "\n"
	      "PACK must be a regular file: a FIFO, a device or a file whose size is unknown\n"
	      "(such as /proc/self/mem) is refused, never read.\n"
	      "\n"
	      "Not supported: --promisor[=MSG], which git fetch gives index-pack in a partial\n"
	      "clone (git 2.55 also repacks the local objects the pack links to into a\n"
	      "promisor pack, with pack-objects): an error, exit status 129, nothing written;\n"
	      "and git's internal --pack_header, --progress-title, --report-end-of-input and\n"
	      "--show-resolving-progress.\n"
	      "\n"
	      "Memory: the pack is mapped; delta bases are kept in a cache of 96 MiB per\n"
	      "thread and rebuilt from the pack when evicted.\n"
	      "\n"
	      "A pack that git's index-pack refuses as it reads it (its first pass, with or\n"
	      "without --stdin or --verify) gives git's lines and exit status 128, no index\n"
	      "written: 'fatal: early EOF' (an empty or cut pack), 'fatal: pack signature\n"
	      "mismatch', 'fatal: pack version N unsupported', 'error: inflate: data stream\n"
	      "error (REASON)' then 'fatal: pack has bad object at offset N: inflate returned\n"
	      "-3', '... unknown object type 5', 'fatal: pack is corrupted (SHA1 mismatch)',\n"
	      "'fatal: pack has junk at the end' (a regular file; git takes a pack from a pipe\n"
	      "up to its trailer and copies what follows to standard output, sha1kit refuses\n"
	      "it). The pack is read as git reads it, the trailer's bytes as input like any\n"
	      "other: an object count one too high reads the trailer as an object.\n"
	      "So do the faults git finds in its second pass, the deltas: a delta that does\n"
	      "not apply gives 'error: delta replay has gone wild' (or 'error: unexpected\n"
	      "delta opcode 0', or no such line) then 'fatal: pack has bad object at offset\n"
	      "N: failed to apply delta' (or git's 'fatal: size_t overflow: A << S' for a\n"
	      "delta size past 64 bits); deltas whose base is not in the pack, or whose base\n"
	      "offset is not where an entry starts, 'fatal: pack has N unresolved deltas'\n"
	      "(exit status 128, no index written). Other errors: one line 'sha1kit:\n"
	      "index-pack: PACK: REASON (at offset N)' on standard error (exit status 1), N\n"
	      "being the pack offset of the object at fault, such as 'collision attack\n"
	      "detected in object at offset N'. With --verify, an\n"
	      "index that git itself cannot open fails first with git's lines and exit status\n"
	      "128: 'error: non-monotonic index NAME.idx' (or: index file ... is too small, is\n"
	      "version N and is not supported..., wrong index v1/v2 file size in ...) then\n"
	      "'fatal: Cannot open existing pack idx file for 'NAME.idx'' (also for a\n"
	      "missing index), 'fatal: offset beyond end of pack index for NAME.pack\n"
	      "(truncated index?)', 'fatal: Cannot open existing pack file 'NAME.idx'' (no\n"
	      "NAME.pack beside the index, or an index name not ending in .idx). A pack (or,\n"
	      "with --verify, an index) that another process truncates while it is read gives\n"
	      "'sha1kit: index-pack: NAME: the file shrank while it was read' (no index is\n"
	      "left behind); a pack another process appends to while it is read, git's\n"
	      "'fatal: pack has junk at the end' (128; git reads it to its end).\n"
	      "\n"
	      "Exit status: 0 success; 1 failure; 128 where git dies with a 'fatal:' line\n"
	      "and sha1kit gives git's line (named above: a pack git's first pass refuses, a\n"
	      "delta that does not apply, unresolved deltas, --stdin outside a repository,\n"
	      "a bad config value, an object that collides with a stored one, --strict's\n"
	      "fatal findings, a PACK that does not open or is a directory, a PACK name\n"
	      "without .pack and no -o, a bad --index-version, a standard output that\n"
	      "cannot be written, ...); 129 a usage error, as git's; 3 a collision attack\n"
	      "was detected (which also fails the command).\n"
	      "\n"
	      "Examples:\n"
	      "  sha1kit index-pack pack-1234.pack            writes pack-1234.idx and .rev\n"
	      "  sha1kit index-pack --verify pack-1234.pack   checks pack-1234.idx (and .rev)\n"
	      "  sha1kit index-pack --no-rev-index pack-1234.pack   writes pack-1234.idx only\n"
	      "  sha1kit index-pack --threads=1 -o /tmp/x.idx big.pack\n"
	      "  git pack-objects --stdout --all | sha1kit index-pack --stdin\n",
	      stdout);
}

/* Where git dies in the strict checks: its fatal line, its exit status. */
static int git_fatal(const struct skg_error *err)
{
	sk_flush_stdout();
	sk_git_line("fatal: %s\n", err->msg);
	return 128;
}

/* git's fsck_finish once the idx is written (skg_pack_strict_finish): an exit status. */
static int strict_finish(struct skg_pack *pack, bool installed, bool check_connected)
{
	struct skg_error err;
	if (skg_pack_strict_finish(pack, installed, &err) == 0) {
		/* --check-self-contained-and-connected: 1 when the pack is not self-contained */
		return check_connected && skg_pack_foreign_links(pack) > 0 ? SK_EXIT_FAILURE : SK_EXIT_OK;
	}
	if (err.code == SKG_E_GIT) {
		return git_fatal(&err);
	}
	sk_error(0, CMD ": %s", err.msg);
	return SK_EXIT_FAILURE;
}

/* Append ",arg" to *buf (a new string the first time). False when out of memory. */
static bool sk_strict_arg_add(char **buf, const char *arg)
{
	size_t old = *buf != NULL ? strlen(*buf) : 0, n = strlen(arg);
	char *b = realloc(*buf, old + n + 2);
	if (b == NULL) {
		return false;
	}
	if (old > 0) {
		b[old++] = ',';
	}
	memcpy(b + old, arg, n + 1);
	*buf = b;
	return true;
}

/* The temporary index and reverse index, removed by a fatal signal while they exist. */
static char tmp_path[PATH_MAX], tmp_rev_path[PATH_MAX];
static volatile sig_atomic_t tmp_active, tmp_rev_active;

/* sk_file_on_shrink: the pack shrank while mapped (SIGBUS): no partial index is left. */
static void remove_tmp(void)
{
	if (tmp_active) {
		unlink(tmp_path);
	}
	if (tmp_rev_active) {
		unlink(tmp_rev_path);
	}
}

/* SIGPIPE too: the pack checksum is written to standard output while the temporary file exists. */
static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define N_FATAL_SIGS (sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))
static struct sigaction old_actions[N_FATAL_SIGS];
static bool caught[N_FATAL_SIGS];

static void on_signal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Catch the fatal signals that are not ignored (an ignored one, as SIGHUP under nohup, stays so). */
static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_FATAL_SIGS; i++) {
		caught[i] = sigaction(fatal_sigs[i], NULL, &old_actions[i]) == 0 &&
		            old_actions[i].sa_handler != SIG_IGN && sigaction(fatal_sigs[i], &sa, NULL) == 0;
	}
}

static void restore_signals(void)
{
	for (size_t i = 0; i < N_FATAL_SIGS; i++) {
		if (caught[i]) {
			sigaction(fatal_sigs[i], &old_actions[i], NULL);
			caught[i] = false;
		}
	}
}

/*
 * Refuse an output name that the rename must not replace: PACK itself (the same name, or the same
 * file under another name), a symbolic link, or an existing file that is neither a regular one nor
 * a directory (FIFO, device, socket). A directory gets git's fatal line when the file is written
 * (index_begin, rev_write). Returns 0, or -1 after the diagnostic.
 */
static int check_output(const char *path, const char *pack_name, const struct skg_file *pack)
{
	struct stat st;
	if (strcmp(path, pack_name) == 0) {
		sk_error(0, CMD ": the index %s would replace the pack itself", sk_quote(path));
		return -1;
	}
	if (lstat(path, &st) != 0) {
		return 0; /* absent; any other problem is reported when the file is written */
	}
	if (S_ISLNK(st.st_mode)) {
		sk_error(0, CMD ": %s is a symbolic link: not replaced", sk_quote(path));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		return 0; /* git's "unable to create" when the index would be written (index_begin) */
	}
	if (!S_ISREG(st.st_mode)) {
		sk_error(0, CMD ": %s exists and is not a regular file: not replaced", sk_quote(path));
		return -1;
	}
	if ((uint64_t)st.st_dev == pack->dev && (uint64_t)st.st_ino == pack->ino) {
		sk_error(0, CMD ": the index %s would replace the pack itself", sk_quote(path));
		return -1;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			return errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* git's die where it cannot create `path` (builtin/index-pack.c, xopen): "fatal: unable to create
 * 'PATH': REASON". */
static void cannot_create(const char *path, int e)
{
	sk_git_line("fatal: unable to create '%s': %s\n", path, strerror(e));
}

/* git opens the idx and the .rev with O_EXCL after unlinking them, once the pack is indexed: a
 * directory of that name stays, and git dies with "File exists". true (after git's line) there. */
static bool refuse_dir(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		cannot_create(path, EEXIST);
		return true;
	}
	return false;
}

/* The index being written: a temporary file in the target directory, created with the first piece
 * of the idx (so that an error found before, such as a duplicate object, creates nothing) and
 * renamed into place at the end. The idx reaches it in pieces (skg_pack_write_idx), never whole
 * in memory. */
struct idx_file {
	const char *path;
	int fd;       /* -1 until the first piece */
	int e;        /* errno of a failed write, 0 if none */
	bool no_file; /* the temporary file could not be created (reported) */
};

/* Create the temporary file beside f->path. Returns 0 or -1 after the diagnostic. */
static int index_begin(struct idx_file *f)
{
	const char *path = f->path;
	int n = snprintf(tmp_path, sizeof(tmp_path), "%s.tmp-XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp_path)) {
		sk_error(ENAMETOOLONG, CMD ": %s", sk_quote(path));
		return -1;
	}
	if (refuse_dir(path)) {
		return -1;
	}
	catch_signals();
	f->fd = mkstemp(tmp_path);
	if (f->fd < 0) {
		cannot_create(path, errno);
		restore_signals();
		return -1;
	}
	tmp_active = 1;
	return 0;
}

/* skg_pack_write_idx's writer: to the temporary file (index_end reports a write error). */
static int index_sink(void *ctx, const uint8_t *p, size_t n)
{
	struct idx_file *f = ctx;
	if (f->fd < 0 && index_begin(f) != 0) {
		f->no_file = true;
		return -1;
	}
	f->e = write_all(f->fd, p, n);
	return f->e != 0 ? -1 : 0;
}

/* Remove the temporary files (after any failure). */
static void index_abort(struct idx_file *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
	unlink(tmp_path);
	tmp_active = 0;
	if (tmp_rev_active) {
		unlink(tmp_rev_path);
		tmp_rev_active = 0;
	}
	restore_signals();
}

/* skg_pack_write_rev's writer: the descriptor in ctx. */
static int rev_sink(void *ctx, const uint8_t *p, size_t n)
{
	int e = write_all(*(int *)ctx, p, n);
	errno = e;
	return e != 0 ? -1 : 0;
}

/*
 * The reverse index (git's write_rev_file, called after write_idx_file: builtin/index-pack.c) to a
 * temporary file beside rev_name, synced, mode 0444 (git's final() makes it read-only), while the
 * idx's temporary file exists and the signals are caught; index_end renames it. Git writes it
 * straight to its name (unlink, then O_EXCL); here a failure leaves nothing. Returns 0, -1 after
 * the diagnostic, or 128 after git's fatal line (a directory there); the caller then runs
 * index_abort.
 */
static int rev_write(const char *rev_name, const struct skg_pack *pack)
{
	int n = snprintf(tmp_rev_path, sizeof(tmp_rev_path), "%s.tmp-XXXXXX", rev_name);
	if (n < 0 || (size_t)n >= sizeof(tmp_rev_path)) {
		sk_error(ENAMETOOLONG, CMD ": %s", sk_quote(rev_name));
		return -1;
	}
	if (refuse_dir(rev_name)) {
		return 128; /* git's die */
	}
	int fd = mkstemp(tmp_rev_path);
	if (fd < 0) {
		sk_error(errno, CMD ": cannot create a temporary file beside %s", sk_quote(rev_name));
		return -1;
	}
	tmp_rev_active = 1;
	struct skg_error err;
	int e = 0;
	const char *what = "write";
	if (skg_pack_write_rev(pack, rev_sink, &fd, &err) != 0) {
		if (err.code != SKG_E_IO) {
			close(fd);
			sk_error(0, CMD ": %s", err.msg);
			return -1;
		}
		e = err.sys_errno;
	}
	if (e == 0 && fsync(fd) != 0) {
		e = errno;
		what = "sync";
	}
	if (e == 0 && fchmod(fd, 0444) != 0) {
		e = errno;
		what = "chmod";
	}
	if (close(fd) != 0 && e == 0) {
		e = errno;
	}
	if (e != 0) {
		sk_error(e, CMD ": cannot %s %s", what, sk_quote(tmp_rev_path));
		return -1;
	}
	return 0;
}

/*
 * Finish the index written through index_sink and rename it to its path, after the reverse index
 * of rev_write to rev_name (NULL: none), as git's final() renames the .rev before the idx; `line`
 * is written to standard output (and flushed) just before the renames, so that no index is left
 * when standard output fails (sk_finish_git then gives git's line). Returns 0 or -1 (nothing
 * left: a .rev already renamed is removed when the idx's rename fails).
 */
static int index_end(struct idx_file *f, const char *line, const char *pack_name, const struct skg_file *pack,
                     const char *rev_name)
{
	int e = f->e;
	const char *what = "write";
	if (e == 0 && fsync(f->fd) != 0) {
		e = errno;
		what = "sync";
	}
	if (e == 0 && fchmod(f->fd, 0444) != 0) {
		e = errno;
		what = "chmod";
	}
	if (close(f->fd) != 0 && e == 0) {
		e = errno;
		what = "write";
	}
	f->fd = -1;
	bool failed = e != 0;
	/* Once more, now that the file is written: what is at `path` may have changed meanwhile. */
	if (!failed && (check_output(f->path, pack_name, pack) != 0 ||
	                (rev_name != NULL && check_output(rev_name, pack_name, pack) != 0))) {
		failed = true;
	}
	/* After close(fd): were standard output closed, fd might have been descriptor 1. */
	if (!failed && (fputs(line, stdout) == EOF || sk_flush_stdout() != 0 || ferror(stdout))) {
		failed = true;
		sk_stdout_line_failed();
	}
	const char *target = f->path;
	bool rev_renamed = false;
	if (!failed && rev_name != NULL) {
		if (rename(tmp_rev_path, rev_name) != 0) {
			e = errno;
			what = "rename to";
			target = rev_name;
			failed = true;
		} else {
			tmp_rev_active = 0;
			rev_renamed = true;
		}
	}
	if (!failed && rename(tmp_path, f->path) != 0) {
		e = errno;
		what = "rename to";
		failed = true;
	}
	if (failed) {
		if (rev_renamed) {
			unlink(rev_name);
		}
		index_abort(f);
		if (e != 0) {
			sk_error(e, CMD ": cannot %s %s", what, sk_quote(what[0] == 'r' ? target : tmp_path));
		}
		return -1;
	}
	tmp_active = 0;
	restore_signals();
	return 0;
}

/* "V" or "V,OFFSET" */
static bool parse_index_version(const char *arg, unsigned *version, uint64_t *limit)
{
	/* builtin/index-pack.c, as git reads it: strtoul, an empty number 0, both numbers cut to 32
	 * bits (uint32_t), the limit without its top bit */
	char *end;
	/* git's opts.version: 32 bits of an unsigned long, 64 bits on the systems git is compared on
	 * (strtoull: the same where long has 32) */
	uint32_t v = (uint32_t)strtoull(arg, &end, 10);
	if (v > 2) {
		return false;
	}
	*version = v == 0 ? 1 : (unsigned)v; /* git writes a version 0 without a header: version 1 */
	if (*end == ',') {
		uint32_t off = (uint32_t)strtoull(end + 1, &end, 0);
		if (off & 0x80000000u) {
			return false;
		}
		*limit = off;
	}
	return *end == '\0';
}

/* Default index name: PACK with ".pack" replaced by ".idx". */
static char *default_idx_name(const char *pack)
{
	size_t n = strlen(pack);
	if (n < 5 || strcmp(pack + n - 5, ".pack") != 0) {
		return NULL;
	}
	char *s = malloc(n);
	if (s == NULL) {
		return NULL;
	}
	memcpy(s, pack, n - 5);
	memcpy(s + n - 5, ".idx", 5);
	return s;
}

/*
 * The reverse index's name for the idx idx_name: git's derive_filename(index_name, "idx", "rev")
 * (builtin/index-pack.c, 2.31 to 2.55.0), ".idx" replaced by ".rev". NULL when idx_name does not
 * end in ".idx": git dies there ("packfile name 'NAME' does not end with '.idx'", exit status 128)
 * before it reads the pack; *nomem tells an allocation failure.
 */
static char *rev_name_of(const char *idx_name, bool *nomem)
{
	size_t n = strlen(idx_name);
	*nomem = false;
	if (n < 4 || strcmp(idx_name + n - 4, ".idx") != 0) {
		return NULL;
	}
	char *s = strdup(idx_name);
	if (s == NULL) {
		*nomem = true;
		return NULL;
	}
	memcpy(s + n - 3, "rev", 3);
	return s;
}

/* rev_name_of's failure as git reports it: an exit status. */
static int rev_name_fails(const char *idx_name, bool nomem)
{
	if (nomem) {
		sk_error(ENOMEM, CMD);
		return SK_EXIT_FAILURE;
	}
	sk_git_line("fatal: packfile name '%s' does not end with '.idx'\n", idx_name);
	return 128;
}

/*
 * --stdin: the pack from standard input through the streaming indexer of the Git layer, into
 * pack_name (and idx_name) or, without them, the current repository's objects/pack. Returns an
 * exit status.
 */
/*
 * The repository found as git finds it (git's gentle setup: *repo NULL outside one), opened once
 * for the whole command, and the config git's index-pack reads (skg_index_read_config; outside a
 * repository the system and global files only). Returns 0, or an exit status after the message
 * (128 after git's fatal line); *repo is then NULL.
 */
static int open_repo(struct skg_repo **repo, struct skg_index_options *opt, unsigned *threads,
                     bool format_given)
{
	struct skg_error err;
	*repo = NULL;
	const struct skg_sink setup = {sk_pack_print_record, NULL};
	if (skg_repo_open_gently(repo, opt->git_version, &setup, &err) != 0) {
		*repo = NULL;
		if (err.code == SKG_E_UNSUPPORTED) {
			/* git would index there with an object ID translation (or its ref store
			 * elsewhere): refused */
			sk_git_line("fatal: %s\n", err.msg);
			return 128;
		}
		if (err.code == SKG_E_NOMEM) {
			sk_error(ENOMEM, CMD);
			return SK_EXIT_FAILURE;
		}
	}
	if (*repo != NULL && !format_given) {
		opt->object_format = skg_repo_object_format(*repo); /* git's setup, before the options */
	}

	int rc = skg_index_read_config(*repo, opt, threads, &err);
	if (rc != 0) {
		skg_repo_free(*repo);
		*repo = NULL;
		if (err.code == SKG_E_NOMEM) {
			sk_error(ENOMEM, CMD);
			return SK_EXIT_FAILURE;
		}
		sk_git_line("fatal: %s\n", err.msg);
		return 128;
	}
	return 0;
}

/* After a commit the pack API refused as malformed: git's lines where git's first pass dies on
 * the pack received (still in the indexer's temporary file), read as git reads its standard
 * input (junk after the trailer is looked for only when that is a regular file). */
static bool stdin_refused(const struct skg_indexer *ix, unsigned git_version, unsigned object_format,
                          const struct skg_error *err, struct sk_progress *meter)
{
	struct stat st;
	bool regular = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
	struct skg_file f = {0};
	struct skg_error e;
	if (skg_file_map(&f, skg_indexer_temp_path(ix), NULL, NULL, &e) != 0) {
		return false;
	}
	bool refused = sk_pack_git_refused(f.data, f.len, regular, git_version, object_format, err, meter);
	skg_file_unmap(&f);
	return refused;
}

/* The 12 bytes of a pack's header (gitformat-pack: "PACK", version, object count). */
#define PACK_HEADER_SIZE 12

/* A pack's header as git's parse_pack_header takes it ("PACK", version 2 or 3; len bytes at d): git
 * dies on a bad one before it counts the bytes --max-input-size limits. */
static bool header_ok(const uint8_t *d, uint64_t len)
{
	return len >= PACK_HEADER_SIZE && memcmp(d, "PACK", 4) == 0 && d[4] == 0 && d[5] == 0 && d[6] == 0 &&
	       (d[7] == 2 || d[7] == 3);
}

/* git's line for a header that header_ok refuses (12 bytes at d). */
static int header_refused(const uint8_t *d)
{
	if (memcmp(d, "PACK", 4) != 0) {
		sk_git_line("fatal: pack signature mismatch\n");
	} else {
		sk_git_line("fatal: pack version %" PRIu32 " unsupported\n",
		            (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 | (uint32_t)d[6] << 8 | d[7]);
	}
	return 128;
}

/* git's die once the bytes of the pack read pass --max-input-size (builtin/index-pack.c use()). */
static int too_large(int64_t max_input)
{
	char size[64];
	sk_humanise(max_input, false, size, sizeof(size));
	sk_flush_stdout();
	sk_git_line("fatal: pack exceeds maximum allowed size (%s)\n", size);
	return 128;
}

/* Where --strict and its halves look for a link's object outside the pack: the repository's objects
 * (NULL: the checks are off). */
static const char *checks_objects_dir(const struct skg_index_options *opt, const struct skg_repo *repo)
{
	return opt->strict || opt->fsck_objects || opt->check_connected ? skg_repo_objects_dir(repo) : NULL;
}

/* The records of an index from standard input: those for standard output wait while `hold` (the
 * IDs git's fsck_finish prints come after the "pack" line of its final()). */
struct held_sink {
	bool hold;
	char *text; /* the lines held, NUL-terminated */
	size_t len;
};

static void held_record(void *ctx, const struct skg_report *r)
{
	struct held_sink *h = ctx;
	if (!h->hold || r->level != SKG_LEVEL_OUTPUT) {
		sk_pack_print_record(NULL, r);
		return;
	}
	size_t n = strlen(r->text);
	char *t = realloc(h->text, h->len + n + 2);
	if (t == NULL) {
		sk_pack_print_record(NULL, r); /* out of memory: out now rather than lost */
		return;
	}
	memcpy(t + h->len, r->text, n);
	t[h->len + n] = '\n';
	t[h->len + n + 1] = '\0';
	h->text = t;
	h->len += n + 1;
}

/* What was held, after the "pack" line. */
static void held_flush(struct held_sink *h)
{
	if (h->len > 0) {
		fputs(h->text, stdout);
	}
	sk_flush_stdout();
	free(h->text);
	*h = (struct held_sink){0};
}

/* --stdin; `repo` (the caller's, NULL outside a repository) stays open after it. idx_name: -o's, or
 * PACK's with .idx (NULL: neither; the idx goes to objects/pack beside the pack). */
/* --stdin --verify: git writes the pack it reads from standard input into PACK (created with
 * O_EXCL; it stays) or, without one, into a temporary pack in objects/pack, and checks it against
 * the idx (builtin/index-pack.c open_pack_file; with --verify it installs nothing). *path: the pack
 * to check (owned); *temporary: it is to be removed (git leaves its tmp_pack_* behind). 0, or the
 * exit status after the error. */
static int spool_stdin(const char *pack_name, const struct skg_repo *repo, char **path, bool *temporary)
{
	int fd;
	*temporary = pack_name == NULL;
	if (pack_name != NULL) {
		if ((fd = open(pack_name, O_CREAT | O_EXCL | O_WRONLY, 0600)) < 0) {
			cannot_create(pack_name, errno);
			return 128;
		}
		*path = strdup(pack_name);
	} else {
		int n = snprintf(tmp_path, sizeof(tmp_path), "%s/pack/tmp_pack_XXXXXX",
		                 skg_repo_objects_dir(repo));
		if (n < 0 || (size_t)n >= sizeof(tmp_path)) {
			sk_error(ENAMETOOLONG, CMD);
			return SK_EXIT_FAILURE;
		}
		if ((fd = mkstemp(tmp_path)) < 0) {
			sk_git_line("fatal: Unable to create temporary file '%s': %s\n", tmp_path,
			            strerror(errno));
			return 128;
		}
		catch_signals();
		tmp_active = 1;
		*path = strdup(tmp_path);
	}
	static uint8_t buf[1 << 16];
	int e = *path == NULL ? ENOMEM : 0;
	while (e == 0) {
		ssize_t got = read(STDIN_FILENO, buf, sizeof(buf));
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			e = got < 0 ? errno : 0;
			break;
		}
		e = write_all(fd, buf, (size_t)got);
	}
	if (close(fd) != 0 && e == 0) {
		e = errno;
	}
	if (e != 0) {
		sk_error(e, CMD ": cannot copy standard input into %s",
		         pack_name != NULL ? pack_name : tmp_path);
		unlink(pack_name != NULL ? pack_name : tmp_path);
		tmp_active = 0;
		free(*path);
		*path = NULL;
		return SK_EXIT_FAILURE;
	}
	return 0;
}

static int index_stdin(const char *pack_name, const char *idx_name, struct skg_index_options *opt,
                       const struct skg_repo *repo, bool show_progress, bool stats, int64_t max_input)
{
	struct skg_error err;
	char *dir = NULL;
	int status = SK_EXIT_FAILURE;
	if (repo == NULL) {
		/* builtin/index-pack.c: outside a repository (git's gentle setup), PACK named or not */
		sk_git_line("fatal: --stdin requires a git repository\n");
		return 128;
	}
	if (pack_name != NULL) {
		const char *slash = strrchr(pack_name, '/');
		dir = slash == NULL ? strdup(".")
		                    : strndup(pack_name, (size_t)(slash - pack_name + (slash == pack_name)));
	} else {
		size_t n = strlen(skg_repo_objects_dir(repo)) + sizeof("/pack");
		dir = malloc(n);
		if (dir != NULL) {
			snprintf(dir, n, "%s/pack", skg_repo_objects_dir(repo));
		}
	}
	if (dir == NULL) {
		sk_error(ENOMEM, CMD);
		return SK_EXIT_FAILURE;
	}
	if (opt->rev_index && idx_name != NULL) {
		/* git derives the .rev's name from the idx's before it reads the pack */
		bool nomem;
		char *rev = rev_name_of(idx_name, &nomem);
		if (rev == NULL) {
			free(dir);
			return rev_name_fails(idx_name, nomem);
		}
		free(rev);
	}
	if (pack_name != NULL) {
		/* git's open_pack_file creates the pack named for --stdin with O_EXCL before it reads a
		 * byte: a file there (or no directory) is "unable to create", 128, and stays as it is */
		int fd = open(pack_name, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0) {
			cannot_create(pack_name, errno);
			free(dir);
			return 128;
		}
		close(fd);
		unlink(pack_name); /* the pack is renamed there once indexed */
	}
	if (repo != NULL && skg_repo_object_format(repo) == opt->object_format) {
		/* inside a repository: its copies of the pack's objects are compared (and with
		 * --strict, links may be there) */
		opt->repo = repo;
		opt->objects_dir = checks_objects_dir(opt, repo);
	}
	opt->in_repository = repo != NULL; /* git has one, whatever its format */
	struct sk_progress progress;
	sk_progress_init_stats(&progress, show_progress, stats);
	progress.indexing = "Receiving objects"; /* git's title when it reads the pack from stdin */
	uint64_t total = 0;                      /* bytes read from standard input */
	progress.bytes_in = &total;
	/* git shows the throughput only when it read the input again after the pack header's read,
	 * which fills its buffer (DEFAULT_IO_BUFFER_SIZE: 4 KiB in 2.39, 128 KiB since 2.42): the
	 * objects go on past it (builtin/index-pack.c fill, display_throughput; a regular file) */
	progress.bytes_quiet =
	    (opt->git_version >= SKG_GIT_2_55 ? 131072 : 4096) + skg_format_rawsz(opt->object_format);
	opt->progress.fn = sk_progress_cb;
	opt->progress.ctx = &progress;
	struct skg_indexer *ix = NULL;
	const char *what = pack_name != NULL ? pack_name : "<stdin>";
	struct held_sink held = {0};
	opt->sink.report = held_record;
	opt->sink.ctx = &held;
	if (pack_name == NULL) {
		/* git's odb_mkstemp: when the temporary pack cannot be made, objects/pack is created
		 * (safe_create_leading_directories) and it tries again */
#if defined(_WIN32)
		(void)mkdir(dir);
#else
		(void)mkdir(dir, 0777);
#endif
	}
	if (skg_indexer_new(&ix, dir, opt, &err) != 0) {
		if (err.code == SKG_E_GIT) {
			status = git_fatal(&err);
		} else if (err.code == SKG_E_IO && err.sys_errno != 0) {
			/* xmkstemp_mode's death, the template's absolute path */
			char cwd[4096];
			bool rel = dir[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL;
			sk_git_line("fatal: Unable to create temporary file '%s%s%s/tmp_pack_XXXXXX': %s\n",
			            rel ? cwd : "", rel ? "/" : "", dir, strerror(err.sys_errno));
			status = 128;
		} else {
			sk_error(err.sys_errno, CMD ": %s", err.msg);
		}
		goto out;
	}
	/* Its temporary pack is removed by a fatal signal too (remove_tmp, on_signal). */
	snprintf(tmp_path, sizeof(tmp_path), "%s", skg_indexer_temp_path(ix));
	catch_signals();
	tmp_active = 1;
	static uint8_t buf[1 << 20];
	for (;;) {
		ssize_t got = read(STDIN_FILENO, buf, sizeof(buf));
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got < 0) {
			sk_error(errno, CMD ": read error on standard input");
			goto out;
		}
		if (got == 0) {
			break;
		}
		total += (uint64_t)got;
		if (max_input != 0 && (int64_t)total > max_input) {
			/* git checks the pack's header before it counts a byte (parse_pack_header dies
			 * before its use()): a bad one is that line, not the size's */
			if (total == (uint64_t)got && !header_ok(buf, (uint64_t)got) &&
			    got >= PACK_HEADER_SIZE) {
				sk_progress_abort(&progress);
				sk_flush_stdout();
				status = header_refused(buf);
				goto out;
			}
			sk_progress_abort(&progress);
			status = too_large(max_input);
			goto out;
		}
		if (skg_indexer_append(ix, buf, (size_t)got, &err) != 0) {
			sk_error(0, CMD ": %s", err.msg);
			goto out;
		}
	}
	uint8_t sum[SKG_MAX_RAWSZ];
	const size_t rawsz = skg_format_rawsz(opt->object_format);
	held.hold = true;
	int committed = skg_indexer_commit(ix, pack_name, idx_name, sum, &err);
	held.hold = false;
	uint32_t appended;
	uint64_t resolved, deltas;
	if (skg_indexer_thin_counts(ix, &appended, &resolved, &deltas)) {
		/* builtin/index-pack.c conclude_pack: the meter of fix_unresolved_deltas ends so */
		char msg[64];
		snprintf(msg, sizeof(msg), "completed with %" PRIu32 " local object%s", appended,
		         appended == 1 ? "" : "s");
		sk_progress_stop_msg(&progress, "Resolving deltas", resolved, deltas, msg);
	}
	if (committed != 0) {
		sk_progress_abort(&progress);
		if (err.code == SKG_E_GIT && skg_indexer_written(ix)) {
			/* git's fsck_finish after its final(): the "pack" line, its lines, the fatal one */
			char hex[SKG_MAX_HEXSZ + 1];
			skg_to_hex_len(sum, rawsz, hex);
			printf("%s\t%s\n", skg_indexer_kept(ix) ? "keep" : "pack", hex);
			held_flush(&held);
			status = git_fatal(&err);
		} else if (err.code == SKG_E_GIT) {
			status = git_fatal(&err);
		} else if (err.code == SKG_E_IO || err.code == SKG_E_NOMEM || err.code == SKG_E_THREAD) {
			sk_error(0, CMD ": %s", err.msg);
		} else if (err.code == SKG_E_CORRUPT &&
		           stdin_refused(ix, opt->git_version, opt->object_format, &err, &progress)) {
			status = 128; /* git's die */
		} else {
			sk_pack_report(CMD, what, &err);
		}
		if (err.code == SKG_E_COLLISION) {
			status |= SK_EXIT_COLLISION;
		}
		goto out;
	}
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(sum, rawsz, hex);
	/* git's final(): "keep" when it made the .keep file, written at once (write_or_die: its
	 * "write error" death, 128; the files stay) */
	printf("%s\t%s\n", skg_indexer_kept(ix) ? "keep" : "pack", hex);
	if (sk_flush_stdout() != 0) {
		int e = errno;
		sk_check_pipe(e);
		sk_git_line("fatal: write error: %s\n", strerror(e));
		status = 128;
		goto out;
	}
	held_flush(&held);
	status = SK_EXIT_OK;
	if (opt->check_connected && skg_indexer_foreign_links(ix) > 0) {
		status = SK_EXIT_FAILURE; /* git: the pack is not self-contained */
	}
	sk_progress_stats(&progress, CMD);
out:
	held_flush(&held); /* (a failure before the files were written: nothing was held) */
	skg_indexer_free(ix);
	tmp_active = 0;
	restore_signals();
	free(dir);
	return sk_finish_git(status, 128);
}

int sk_cmd_index_pack(int argc, char **argv)
{
	enum {
		OPT_VERIFY = 256,
		OPT_STRICT,
		OPT_THREADS,
		OPT_INDEX_VERSION,
		OPT_STDIN,
		OPT_FIX_THIN,
		OPT_KEEP,
		OPT_PROMISOR,
		OPT_STATS,
		OPT_REV_INDEX,
		OPT_NO_REV_INDEX,
		OPT_GIT_VERSION,
		OPT_OBJECT_FORMAT,
		OPT_MAX_INPUT,
		OPT_FSCK_OBJECTS,
		OPT_CHECK_CONNECTED,
		OPT_HELP,
		OPT_VERSION
	};
	static const struct option options[] = {
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"stats", no_argument, NULL, OPT_STATS},
	    {"strict", optional_argument, NULL, OPT_STRICT},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"index-version", required_argument, NULL, OPT_INDEX_VERSION},
	    {"stdin", no_argument, NULL, OPT_STDIN},
	    {"fix-thin", no_argument, NULL, OPT_FIX_THIN},
	    {"keep", optional_argument, NULL, OPT_KEEP},
	    {"promisor", optional_argument, NULL, OPT_PROMISOR},
	    {"rev-index", no_argument, NULL, OPT_REV_INDEX},
	    {"no-rev-index", no_argument, NULL, OPT_NO_REV_INDEX},
	    {"git-version", required_argument, NULL, OPT_GIT_VERSION},
	    {"object-format", required_argument, NULL, OPT_OBJECT_FORMAT},
	    {"quiet", no_argument, NULL, 'q'},
	    {"max-input-size", required_argument, NULL, OPT_MAX_INPUT},
	    {"fsck-objects", optional_argument, NULL, OPT_FSCK_OBJECTS},
	    {"check-self-contained-and-connected", no_argument, NULL, OPT_CHECK_CONNECTED},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	const char *out_name = NULL;
	char *strict_buf = NULL;
	bool verify = false, strict = false, quiet = false, verbose = false, version_given = false,
	     from_stdin = false;
	int64_t max_input = 0;
	bool threads_given = false, stats = false, fix_thin = false, format_given = false,
	     limit_given = false;
	int rev_cl = -1; /* --rev-index 1, --no-rev-index 0 (the last one), else the config's */
	bool fsck_objects_value = false; /* --fsck-objects=ARGS given */
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	unsigned threads = 0;
	int c;
	sk_git_version_env(CMD, USAGE_STATUS, &opt.git_version); /* as --git-version's */

	optind = 0;
	while ((c = getopt_long(argc, argv, "o:qvh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (*optarg == '\0') {
				/* refused before any work: nothing is printed, nothing is written */
				sk_usage_exit(USAGE_STATUS, CMD, CMD ": -o: the idx file name is empty");
			}
			out_name = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case OPT_FSCK_OBJECTS:
			opt.fsck_objects = true;
			fsck_objects_value |= optarg != NULL;
			/* git: fsck_set_msg_types, as --strict=ARGS */
			if (optarg != NULL && !sk_strict_arg_add(&strict_buf, optarg)) {
				sk_error(ENOMEM, CMD);
				return sk_finish_git(SK_EXIT_FAILURE, 128);
			}
			break;
		case OPT_CHECK_CONNECTED:
			opt.check_connected = true;
			break;
		case OPT_MAX_INPUT:
			/* git's strtoumax(arg, NULL, 10) into an off_t: 0 (or no digits) is no limit; a
			 * value that wraps negative ("-5", 2^63 and up) is below every size */
			max_input = (int64_t)strtoumax(optarg, NULL, 10);
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_VERIFY:
			verify = true;
			break;
		case OPT_STDIN:
			from_stdin = true;
			break;
		case OPT_KEEP:
			/* git's skip_to_optional_arg: "--keep" is an empty message */
			opt.keep_msg = optarg != NULL ? optarg : "";
			break;
		case OPT_PROMISOR:
			/* git 2.55's index-pack also repacks the local objects the pack links to into a
			 * promisor pack (builtin/index-pack.c repack_local_links, pack-objects) */
			sk_usage_exit(USAGE_STATUS, CMD,
			              CMD
			              ": --promisor is not supported (git also repacks the local objects the "
			              "pack links to, with pack-objects)");
			break;
		case OPT_FIX_THIN:
			fix_thin = true;
			break;
		case OPT_REV_INDEX:
		case OPT_NO_REV_INDEX:
			rev_cl = c == OPT_REV_INDEX;
			break;
		case OPT_STRICT:
			strict = true;
			/* git: each --strict=ARGS is parsed in turn (joined here with ',', the same) */
			if (optarg != NULL && !sk_strict_arg_add(&strict_buf, optarg)) {
				sk_error(ENOMEM, CMD);
				return sk_finish_git(SK_EXIT_FAILURE, 128);
			}
			break;
		case OPT_THREADS:
			if (!sk_parse_git_threads(optarg, &threads)) {
				sk_usage_exit(USAGE_STATUS, CMD, CMD ": invalid thread count '%s'", optarg);
			}
			threads_given = true;
			break;
		case OPT_INDEX_VERSION:
			if (!parse_index_version(optarg, &opt.idx_version, &opt.off32_limit)) {
				/* builtin/index-pack.c: die(_("bad %s"), arg), before any work */
				sk_git_line("fatal: bad --index-version=%s\n", optarg);
				free(strict_buf);
				return sk_finish_git(128, 128);
			}
			version_given = true;
			limit_given = strchr(optarg, ',') != NULL;
			break;
		case OPT_GIT_VERSION:
			sk_git_version_arg(CMD, USAGE_STATUS, optarg, &opt.git_version);
			break;
		case OPT_OBJECT_FORMAT:
			if (optarg == argv[optind - 1]) {
				/* git's index-pack reads only "--object-format=FORMAT" (its usage, 129) */
				sk_usage_exit(USAGE_STATUS, CMD,
				              CMD ": --object-format takes its value after '=' "
				                  "(--object-format=FORMAT), as git's index-pack");
			}
			sk_object_format_arg(optarg, &opt.object_format);
			format_given = true;
			break;
		case OPT_HELP:
			index_pack_usage();
			return sk_finish_git(SK_EXIT_OK, 128);
		case 'h':
			index_pack_usage(); /* git's -h: the usage on standard output, status 129 */
			return sk_finish_git(USAGE_STATUS, 128);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish_git(SK_EXIT_OK, 128);
		default:
			sk_usage_exit(USAGE_STATUS, CMD, NULL);
		}
	}
	sk_git_command_config(); /* git -c KEY=VALUE that does not parse: git dies at its config read */
	if (fsck_objects_value && opt.git_version == SKG_GIT_2_39) {
		/* git 2.39.5 reads only a bare --fsck-objects (usage(index_pack_usage), 129) */
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": --fsck-objects takes no value as git 2.39.5");
	}
	/* -v: git's progress (on standard error, terminal or not); without it, sha1kit's on a
	 * terminal; -q: none */
	bool show_progress = !quiet && (verbose || isatty(STDERR_FILENO));
	/* git reads its config first (pack.indexVersion, pack.threads; a bad value is fatal); the
	 * command line's options win over it. */
	unsigned cl_version = opt.idx_version;
	uint64_t cl_limit = opt.off32_limit;
	struct skg_repo *repo = NULL;
	if (from_stdin && format_given) {
		/* builtin/index-pack.c: the pack goes into the repository, in its format */
		const struct skg_sink setup = {sk_pack_print_record, NULL};
		if (skg_repo_open_gently(&repo, opt.git_version, &setup, &(struct skg_error){0}) != 0 ||
		    repo == NULL) {
			sk_git_line("fatal: --stdin requires a git repository\n");
		} else {
			sk_git_line(
			    "fatal: options '--object-format' and '--stdin' cannot be used together\n");
		}
		skg_repo_free(repo);
		free(strict_buf);
		return sk_finish_git(128, 128);
	}
	if (opt.git_version < SKG_GIT_2_55) {
		opt.rev_index = false; /* git 2.39: a .rev only with --rev-index or pack.writeReverseIndex */
	}
	int cst = open_repo(&repo, &opt, threads_given ? NULL : &threads, format_given);
	if (cst != 0) {
		free(strict_buf);
		return sk_finish_git(cst, 128);
	}
	if (fix_thin && !from_stdin) {
		/* builtin/index-pack.c cmd_index_pack, after the config */
		sk_git_line("fatal: the option '--fix-thin' requires '--stdin'\n");
		skg_repo_free(repo);
		free(strict_buf);
		return sk_finish_git(128, 128);
	}
	opt.fix_thin = fix_thin;
	if (version_given) {
		opt.idx_version = cl_version;
		opt.off32_limit = cl_limit;
	}
	if (rev_cl >= 0) {
		opt.rev_index = rev_cl != 0; /* builtin/index-pack.c: the option wins over the config */
	}
	opt.strict_args = strict_buf;
	opt.strict = strict;
	opt.sink.report = sk_pack_print_record;
	/* the repository's packs the checks read, guarded as the pack itself (SIGBUS) */
	opt.on_map = sk_guard_map;
	opt.map_ctx = (void *)CMD;
	/* A file size limit (ulimit -f) fails the write with EFBIG, cleaned up, instead of a kill. */
#ifdef SIGXFSZ
	signal(SIGXFSZ, SIG_IGN);
#endif
	char *spooled = NULL;           /* --stdin --verify: the pack read from standard input */
	bool spooled_temporary = false; /* it is a temporary pack, removed at the end */
	if (from_stdin) {
		if (verify && out_name == NULL && optind >= argc) {
			/* git: no pack name, so no idx name for --verify */
			fputs(repo == NULL ? "fatal: --stdin requires a git repository\n"
			                   : "fatal: --verify with no packfile name given\n",
			      stderr);
			skg_repo_free(repo);
			free(strict_buf);
			return sk_finish_git(128, 128);
		}
		if (argc - optind > 1) {
			sk_usage_exit(USAGE_STATUS, CMD, CMD ": extra operand '%s'", argv[optind + 1]);
		}
		if (repo == NULL) {
			/* builtin/index-pack.c: before the idx name is derived from the pack's */
			fputs("fatal: --stdin requires a git repository\n", stderr);
			free(strict_buf);
			return sk_finish_git(128, 128);
		}
		if (verify) {
			/* the idx opens before standard input is read (git's read_idx_option) */
			const char *pname = optind < argc ? argv[optind] : NULL;
			char *iname = out_name == NULL ? default_idx_name(pname) : NULL;
			struct skg_file probe = {0};
			int st = 0;
			if (out_name == NULL && iname == NULL) {
				sk_git_line("fatal: packfile name '%s' does not end with '.pack'\n", pname);
				st = 128;
			} else if ((st = sk_idx_open_as_git(&probe, CMD, out_name != NULL ? out_name : iname,
			                                    opt.object_format)) == 0) {
				skg_file_unmap(&probe);
				st = spool_stdin(pname, repo, &spooled, &spooled_temporary);
			}
			free(iname);
			if (st != 0) {
				skg_repo_free(repo);
				free(strict_buf);
				return sk_finish_git(st, 128);
			}
		}
	}
	if (from_stdin && spooled == NULL) {
		const char *pname = optind < argc ? argv[optind] : NULL;
		char *iname = NULL;
		if (pname != NULL && out_name == NULL && (iname = default_idx_name(pname)) == NULL) {
			/* git's derive_filename dies */
			sk_git_line("fatal: packfile name '%s' does not end with '.pack'\n", pname);
			skg_repo_free(repo);
			free(strict_buf);
			return sk_finish_git(128, 128);
		}
		opt.threads = threads == 0 ? sk_online_cpus() : threads;
		opt.cache_limit = ((uint64_t)96 << 20) * opt.threads;
		int st = index_stdin(pname, out_name != NULL ? out_name : iname, &opt, repo, show_progress,
		                     stats, max_input);
		skg_repo_free(repo);
		free(iname);
		free(strict_buf);
		return st;
	}
	if (spooled == NULL && optind >= argc) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": missing PACK operand");
	}
	if (spooled == NULL && argc - optind > 1) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": extra operand '%s'", argv[optind + 1]);
	}
	const char *pack_name = spooled != NULL ? spooled : argv[optind];
	char *idx_alloc = NULL;
	const char *idx_name = out_name;
	if (idx_name == NULL) {
		idx_alloc = default_idx_name(pack_name);
		if (idx_alloc == NULL) {
			/* git's derive_filename dies */
			sk_git_line("fatal: packfile name '%s' does not end with '.pack'\n", pack_name);
			skg_repo_free(repo);
			free(strict_buf);
			return sk_finish_git(128, 128);
		}
		idx_name = idx_alloc;
	}
	char *rev_name = NULL;
	if (opt.rev_index) {
		bool nomem;
		if ((rev_name = rev_name_of(idx_name, &nomem)) == NULL) {
			skg_repo_free(repo);
			free(strict_buf);
			int st = rev_name_fails(idx_name, nomem);
			free(idx_alloc);
			return sk_finish_git(st, 128);
		}
	}
	if (threads == 0) {
		threads = sk_online_cpus();
	}

	int status = SK_EXIT_FAILURE;
	struct skg_file file = {0}, old_idx = {0};
	struct skg_pack *pack = NULL;
	struct skg_error err;
	struct sk_progress progress;
	/* Inside a repository: its copies of the pack's objects are compared, and with --strict
	 * links may be there. */
	if (repo != NULL && skg_repo_object_format(repo) == opt.object_format) {
		/* (a pack in another format than the repository's: git finds none of its IDs there) */
		opt.repo = repo;
		opt.objects_dir = checks_objects_dir(&opt, repo);
	}
	opt.in_repository = repo != NULL; /* git has one, whatever its format */
	sk_file_on_shrink(remove_tmp);
	/* --verify: the index opens first, as git's read_idx_option before the pack is read; a
	 * missing one fails before the work */
	if (verify && (status = sk_idx_open_as_git(&old_idx, CMD, idx_name, opt.object_format)) != 0) {
		goto out;
	}
	if ((status = sk_pack_map_as_git(&file, CMD, pack_name)) != 0) {
		goto out; /* git's xopen or read line (128), else sha1kit's (1) */
	}
	if (max_input != 0 && (int64_t)file.len > max_input && header_ok(file.data, file.len)) {
		status = too_large(max_input); /* before anything is written */
		goto out;
	}
	status = SK_EXIT_FAILURE;
	/* Refuse a bad output name before the work (write_index checks it again). */
	if (!verify && (check_output(idx_name, pack_name, &file) != 0 ||
	                (rev_name != NULL && check_output(rev_name, pack_name, &file) != 0))) {
		goto out;
	}
	if (verify) {
		/* git's read_idx_option: the version is the existing idx's whatever the option says;
		 * a limit given (--index-version=V,OFFSET) stays */
		uint64_t limit = opt.off32_limit;
		skg_idx_layout(old_idx.data, old_idx.len, &opt);
		if (limit_given) {
			opt.off32_limit = limit;
		}
	}

	opt.threads = threads;
	opt.cache_limit = ((uint64_t)96 << 20) * threads;
	sk_progress_init_stats(&progress, show_progress, stats);
	opt.progress.fn = sk_progress_cb;
	opt.progress.ctx = &progress;
	opt.release = skg_file_release;
	opt.release_ctx = &file;
	opt.read = skg_file_read;
	opt.read_ctx = &file;
	if (verify) {
		/* the first pass on all the threads (checked against the pack) */
		opt.idx = old_idx.data;
		opt.idx_len = old_idx.len;
	}
	if (skg_pack_index(&pack, file.data, file.len, &opt, &err) != 0) {
		if (err.code == SKG_E_GIT) {
			sk_progress_abort(&progress);
			status = git_fatal(&err);
			goto out;
		}
		goto pack_error;
	}
	if (skg_file_grew(&file)) {
		/* bytes were added to the pack while it was read: git, which reads it to its end, finds
		 * them after the trailer and dies; nothing is written */
		sk_flush_stdout();
		sk_git_line("fatal: pack has junk at the end\n");
		status = 128;
		goto out;
	}
	if (verify) {
		/* the rebuilt idx, compared piece by piece with the existing one; as git's --verify
		 * (WRITE_IDX_VERIFY | WRITE_IDX_STRICT), an object twice in the pack fails it */
		opt.strict = true;
		if (skg_pack_verify_idx_as_git(pack, &opt, &old_idx, idx_name, &err) != 0) {
			goto pack_error; /* git's "sha1 file 'IDX' validation error", ... (SKG_E_GIT) */
		}
		/* then the .rev, as git's write_rev_file after write_idx_file */
		if (rev_name != NULL && (status = sk_verify_rev(CMD, pack, rev_name)) != SK_EXIT_OK) {
			goto out;
		}
		/* --verify: git installs no pack for fsck_finish to read */
		status = strict_finish(pack, false, opt.check_connected);
	} else {
		struct idx_file f = {idx_name, -1, 0, false};
		if (skg_pack_write_idx(pack, &opt, index_sink, &f, &err) != 0 && f.e == 0) {
			if (f.no_file) {
				status = 128; /* git's die */
				goto out;
			}
			if (f.fd >= 0) {
				index_abort(&f);
			}
			goto pack_error;
		}
		int rs = rev_name != NULL ? rev_write(rev_name, pack) : 0;
		if (rs != 0) {
			index_abort(&f);
			if (rs == 128) {
				status = 128;
			}
			goto out;
		}
		/* git's final(): the .keep beside the pack before the .rev and idx are named */
		if (opt.keep_msg != NULL &&
		    skg_pack_write_special(pack_name, "keep", opt.keep_msg, NULL, &err) != 0) {
			index_abort(&f); /* (the temporary idx and .rev) */
			status = err.code == SKG_E_GIT ? git_fatal(&err) : SK_EXIT_FAILURE;
			if (err.code != SKG_E_GIT) {
				sk_error(err.sys_errno, CMD ": %s", err.msg);
			}
			goto out;
		}
		char line[SKG_MAX_HEXSZ + 2];
		skg_to_hex_len(skg_pack_checksum(pack), skg_pack_rawsz(pack), line);
		strcat(line, "\n");
		if (index_end(&f, line, pack_name, &file, rev_name) == 0) {
			status = SK_EXIT_OK;
			/* git's fsck_finish comes after the idx is written, which it leaves */
			status = strict_finish(pack, skg_pack_beside_idx(idx_name), opt.check_connected);
		}
	}
	goto out;
pack_error:
	sk_progress_abort(&progress);
	/* A failure because the pack (or the idx compared) was truncated meanwhile says so. */
	if (sk_file_report_shrank(&file, CMD) || sk_file_report_shrank(&old_idx, CMD)) {
		goto out;
	}
	if (err.code == SKG_E_GIT) { /* an object twice with --strict or --verify */
		status = git_fatal(&err);
		goto out;
	}
	if (sk_pack_git_refused(file.data, file.len, true, opt.git_version, opt.object_format, &err,
	                        &progress)) {
		status = 128; /* git's die */
		goto out;
	}
	sk_pack_report(CMD, pack_name, &err);
	if (err.code == SKG_E_COLLISION) {
		status |= SK_EXIT_COLLISION;
	}
out:
	if (status == SK_EXIT_OK) {
		sk_progress_stats(&progress, CMD);
	}
	skg_pack_free(pack);
	skg_file_unmap(&old_idx);
	skg_file_unmap(&file);
	skg_repo_free(repo);
	free(idx_alloc);
	free(rev_name);
	free(strict_buf);
	if (spooled_temporary) {
		unlink(spooled);
		tmp_active = 0;
	}
	free(spooled);
	return sk_finish_git(status, 128);
}

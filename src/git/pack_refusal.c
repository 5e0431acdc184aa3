/*
 * pack_refusal.c - why git's index-pack refuses a pack in its first pass (skg_pack_git_refusal,
 * git_pack.h): the pack read object by object as git reads it, until the point where git dies.
 *
 * Facts (not code) from git v2.55.0 and v2.39.5, the same in both but one:
 *  - builtin/index-pack.c: fill() dies "early EOF" when the input ends before the bytes asked
 *    for; parse_pack_header() "pack signature mismatch", "pack version N unsupported" (2 and 3
 *    are read, pack.h pack_version_ok); unpack_raw_entry() reads the type and size varint ("object
 *    size too large for this platform" once the shift passes 57), a REF_DELTA's 20-byte base ID,
 *    an OFS_DELTA's base offset (git's offset encoding, "offset value overflow for delta base
 *    object" when it leaves 57 bits, "delta base offset is out of bound" when it does not point
 *    back into the pack), "unknown object type N" for types 0 and 5; unpack_entry_data() inflates
 *    into a buffer of exactly the declared size (a blob above core.bigFileThreshold, 512 MiB by
 *    default, into a fixed buffer reused without limit) and gives "inflate returned N" when the
 *    stream does not end at that size; bad_object() prefixes "pack has bad object at offset N: ";
 *    parse_pack_objects() then compares the SHA-1 of all the bytes read with the next 20 ("pack
 *    is corrupted (SHA1 mismatch)") and, for a regular file, finds "pack has junk at the end".
 *    The object count is an int there: cmd_index_pack's CALLOC_ARRAY(objects, st_add(count, 1))
 *    of a count past 2^31 - 1 dies in git-compat-util.h st_add ("size_t overflow: A + B") or
 *    wrapper.c xcalloc ("data too large to fit into virtual memory space").
 *  - git-zlib.c git_inflate(): a zlib status other than Z_OK, Z_BUF_ERROR and Z_STREAM_END is
 *    first reported as "error: inflate: WHAT (ZMSG)" (zerr_to_string: "data stream error",
 *    "needs dictionary", "stream consistency error", ...; "no message" without one).
 * A pack is read as git reads it, trailer bytes included: a count one too high reads the
 * trailer as an object, one too low compares the last object's bytes with the SHA-1.
 */
#include "sha1kit/git_pack.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "pack.h"
#include "pack_internal.h"
#include "sha1kit.h"
#include "util.h"

#define OUT_CHUNK (64 * 1024)         /* the scratch output, reused */
#define IN_MAX    ((uint64_t)1 << 30) /* git-zlib.c ZLIB_BUF_MAX */

static bool refuse(struct skg_pack_refusal *r, const char *fmt, uint64_t a, uint64_t b)
{
	snprintf(r->fatal, sizeof(r->fatal), fmt, a, b);
	return true;
}

static bool bad_object(struct skg_pack_refusal *r, uint64_t offset, const char *what, int n)
{
	char why[128];
	snprintf(why, sizeof(why), what, n);
	snprintf(r->fatal, sizeof(r->fatal), "pack has bad object at offset %" PRIu64 ": %s", offset, why);
	return true;
}

/*
 * One call of git's inflate with all the input left (at most IN_MAX bytes) and the output room
 * git's buffer has left (`capped`: room bytes; else without end), the bytes made added to
 * *out_total: made of calls on the scratch
 * buffer, with git's status (a call that filled only the scratch goes on; Z_BUF_ERROR after some
 * progress is the Z_OK git's one call would give).
 */
static int git_call(z_stream *z, uint8_t *scratch, bool capped, uint64_t *room, uint64_t *out_total)
{
	bool progress = false;
	for (;;) {
		uInt out = OUT_CHUNK;
		if (capped && *room < out) {
			out = (uInt)*room;
		}
		z->next_out = scratch;
		z->avail_out = out;
		uInt in_before = z->avail_in;
		int status = inflate(z, Z_NO_FLUSH);
		uInt made = out - z->avail_out;
		*out_total += made;
		if (capped) {
			*room -= made;
		}
		if (status == Z_BUF_ERROR && progress) {
			return Z_OK;
		}
		progress = progress || made > 0 || z->avail_in != in_before;
		/* git's buffer has room left where the scratch is full: git's call goes on */
		if (status == Z_OK && z->avail_out == 0 && (!capped || *room > 0)) {
			continue;
		}
		return status;
	}
}

bool skg_pack_git_refusal(const uint8_t *pack, uint64_t len, bool regular, unsigned git_version,
                          unsigned object_format, struct skg_pack_refusal *r)
{
	const uint64_t rawsz = object_format == SKG_FORMAT_SHA256 ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	r->error[0] = '\0';
	r->fatal[0] = '\0';
	r->counted = false;
	r->count = r->read = 0;
	if (len < 12) {
		return refuse(r, "early EOF", 0, 0);
	}
	if (memcmp(pack, "PACK", 4) != 0) {
		return refuse(r, "pack signature mismatch", 0, 0);
	}
	uint32_t version = skg_pk_get_be32(pack + 4);
	if (version != 2 && version != 3) {
		return refuse(r, "pack version %" PRIu64 " unsupported", version, 0);
	}
	uint32_t count = skg_pk_get_be32(pack + 8);
	/* git keeps the count in an int and allocates count + 1 entries (st_add, xcalloc) */
	if (count == UINT32_MAX) {
		return refuse(r, "size_t overflow: %" PRIu64 " + %" PRIu64, UINT64_MAX, 1);
	}
	if (count > INT32_MAX) {
		return refuse(r, "data too large to fit into virtual memory space", 0, 0);
	}
	uint64_t pos = 12;
	uint8_t scratch[OUT_CHUNK];
	r->counted = true;
	r->count = count;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t at = pos;
		r->read = i;
		if (pos >= len) {
			return refuse(r, "early EOF", 0, 0);
		}
		unsigned c = pack[pos++];
		int type = (c >> 4) & 7;
		uint64_t size = c & 15;
		unsigned shift = 4;
		while (c & 0x80) {
			if (64 - 7 < shift && git_version != SKG_GIT_2_39) {
				return refuse(r, "object size too large for this platform", 0, 0);
			}
			if (pos >= len) {
				return refuse(r, "early EOF", 0, 0);
			}
			c = pack[pos++];
			/* 2.39.5 shifts on: a 64-bit shift count taken modulo 64, as x86-64 and arm64 do */
			size += (uint64_t)(c & 0x7f) << (shift & 63);
			shift += 7;
		}
		if (type == 7) { /* OBJ_REF_DELTA: the base's ID */
			if (len - pos < rawsz) {
				return refuse(r, "early EOF", 0, 0);
			}
			pos += rawsz;
		} else if (type == 6) { /* OBJ_OFS_DELTA: the base's distance back */
			if (pos >= len) {
				return refuse(r, "early EOF", 0, 0);
			}
			c = pack[pos++];
			uint64_t back = c & 127;
			while (c & 128) {
				back += 1;
				if (back == 0 || back >> 57 != 0) {
					return bad_object(r, at,
					                  "offset value overflow for delta base object", 0);
				}
				if (pos >= len) {
					return refuse(r, "early EOF", 0, 0);
				}
				c = pack[pos++];
				back = (back << 7) + (c & 127);
			}
			if (back == 0 || back >= at || back > INT64_MAX) {
				return bad_object(r, at, "delta base offset is out of bound", 0);
			}
		} else if (type == 0 || type == 5) {
			return bad_object(r, at, "unknown object type %d", type);
		}
		/* unpack_entry_data: inflate to exactly `size` bytes */
		bool capped = !(type == 3 && size > SKG_PK_BIG_FILE_THRESHOLD); /* core.bigFileThreshold */
		uint64_t room = size, out = 0;
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (inflateInit(&z) != Z_OK) {
			return refuse(r, "inflateInit: out of memory", 0, 0);
		}
		int status;
		do {
			if (pos >= len) {
				inflateEnd(&z);
				return refuse(r, "early EOF", 0, 0);
			}
			uint64_t avail = len - pos < IN_MAX ? len - pos : IN_MAX;
			z.next_in = (Bytef *)(uintptr_t)(pack + pos);
			z.avail_in = (uInt)avail;
			status = git_call(&z, scratch, capped, &room, &out);
			pos += avail - z.avail_in;
		} while (status == Z_OK);
		if (status != Z_OK && status != Z_BUF_ERROR && status != Z_STREAM_END) {
			snprintf(r->error, sizeof(r->error), "inflate: %s (%s)", skg_zerr_name(status),
			         z.msg != NULL ? z.msg : "no message");
		}
		inflateEnd(&z);
		if (out != size || status != Z_STREAM_END) {
			return bad_object(r, at, "inflate returned %d", status);
		}
	}
	r->read = count;
	/* the trailer: the SHA-1 (SHA-256) of everything read so far; git's message says SHA1 for both */
	if (len - pos < rawsz) {
		return refuse(r, "early EOF", 0, 0);
	}
	uint8_t sum[SKG_MAX_RAWSZ];
	skg_checksum((unsigned)rawsz, pack, (size_t)pos, sum);
	if (memcmp(sum, pack + pos, rawsz) != 0) {
		return refuse(r, "pack is corrupted (SHA1 mismatch)", 0, 0);
	}
	if (regular && pos + rawsz != len) {
		return refuse(r, "pack has junk at the end", 0, 0);
	}
	return false;
}

/* test_objtab.c - git's object hash table (src/git/objtab.c): the slots git's object.c gives a known
 * set of IDs (first slot from the hash, the next free one on a collision, wrapping at the end;
 * growth before the creation that finds size - 1 <= 2 * objects, re-inserting in the old slot
 * order; a lookup's move to the first slot), oidhash in the machine's byte order, and
 * (where the linker's --wrap is there) a failing allocator. The expected slots are worked out by
 * hand from git v2.39.5's object.c in the comments, not taken from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "objtab.h"
#ifdef SK_FAULTS
#include "faults.h"
#endif

struct obj {
	uint8_t id[SKG_RAWSZ];
};

/*
 * An ID whose first slot is h & (size - 1) for every size up to 256 on machines of either byte
 * order: bytes 0 and 3 are h, 1 and 2 zero, so the unsigned int oidhash reads is h | h << 24 (little
 * endian) or h << 24 | h (big endian), both h in the low 8 bits. n tells IDs of the same h apart.
 */
static void mkid(struct obj *o, uint8_t h, uint8_t n)
{
	memset(o->id, 0, SKG_RAWSZ);
	o->id[0] = h;
	o->id[3] = h;
	o->id[19] = n;
}

#define IDS(objs) ((objs)[0].id)
#define STRIDE    sizeof(struct obj)

/* The 17 objects of test_growth: 0 (h 31), 1 (h 95), 2..15 (h 4..17), 16 (h 32). */
static void growth_objects(struct obj objs[17])
{
	mkid(&objs[0], 31, 0);
	mkid(&objs[1], 95, 1);
	for (uint8_t k = 2; k < 16; k++) {
		mkid(&objs[k], (uint8_t)(k + 2), k);
	}
	mkid(&objs[16], 32, 16);
}

/*
 * The slots of test_growth's objects in a table of `size` slots (index + 1, 0 empty): objects
 * 2..15 at 4..17 (their first slots), and the objects listed in `more` (UINT32_MAX ends the list)
 * one a slot from slot `from` on, wrapping at the end.
 */
static void growth_slots(uint32_t *want, uint32_t size, const uint32_t *more, uint32_t from)
{
	memset(want, 0, size * sizeof(*want));
	for (uint32_t k = 2; k < 16; k++) {
		want[k + 2] = k + 1;
	}
	for (uint32_t i = 0; more[i] != UINT32_MAX; i++) {
		want[(from + i) & (size - 1)] = more[i] + 1;
	}
}

/* Every slot of t against want[0 .. t->size) (object index + 1, 0 empty). */
static void assert_slots(const struct skg_objtab *t, const uint32_t *want, uint32_t size)
{
	assert_int_equal(t->size, size);
	for (uint32_t s = 0; s < size; s++) {
		if (t->slot[s] != want[s]) {
			fail_msg("slot %u holds %u, expected %u", s, t->slot[s], want[s]);
		}
	}
}

/*
 * Sixteen objects fit the first table (32 slots: creation k grows when 31 <= 2k, so the 17th):
 * object 0 (h 31) takes slot 31, object 1 (h 95, first slot 95 & 31 = 31) wraps to slot 0, objects
 * 2..15 take slots 4..17. The 17th creation grows the table to 64 first, re-inserting in the old
 * slots' order: object 1 (slot 0; 95 & 63 = 31) to 31, objects 2..15 to 4..17, object 0 (slot 31;
 * 31 & 63 = 31, taken) to 32; then object 16 (h 32, taken) to 33. In creation order object 0 would
 * have slot 31 and object 1 slot 32: growth reverses them.
 */
static void test_growth(void **state)
{
	(void)state;
	struct obj objs[17];
	growth_objects(objs);
	struct skg_objtab t = {0};
	for (uint32_t k = 0; k < 16; k++) {
		assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, k), 0);
	}
	uint32_t want32[32];
	growth_slots(want32, 32, (const uint32_t[]){0, 1, UINT32_MAX}, 31); /* 0 at 31, 1 wrapped to 0 */
	assert_slots(&t, want32, 32);
	assert_int_equal(t.nr, 16);

	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 16), 0);
	uint32_t want64[64];
	growth_slots(want64, 64, (const uint32_t[]){1, 0, 16, UINT32_MAX}, 31);
	assert_slots(&t, want64, 64);
	assert_int_equal(t.nr, 17);

	/* lookup_object: object 16 starts at 32 (object 0), is found at 33: the two swap */
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[16].id), 16);
	want64[32] = 16 + 1;
	want64[33] = 0 + 1;
	assert_slots(&t, want64, 64);
	/* object 1 in its first slot: nothing moves */
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[1].id), 1);
	assert_slots(&t, want64, 64);
	/* an ID that is not there (h 31): 31, 32, 33 probed, 34 empty; nothing moves */
	struct obj absent;
	mkid(&absent, 31, 99);
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, absent.id), -1);
	assert_slots(&t, want64, 64);
	/* object 0: first slot 31 (object 1), found at 33: it goes to 31, object 1 to 33 */
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[0].id), 0);
	want64[31] = 0 + 1;
	want64[33] = 1 + 1;
	assert_slots(&t, want64, 64);
	skg_objtab_free(&t);
	assert_null(t.slot);
	assert_int_equal(t.size, 0);
	assert_int_equal(t.nr, 0);
}

/* A lookup that wraps: objects 0 (h 31, slot 31) and 1 (h 95, wrapped to slot 0) in 32 slots;
 * looking up object 1 (first slot 31) finds it at 0 and swaps it with object 0. */
static void test_lookup_wraps(void **state)
{
	(void)state;
	struct obj objs[2];
	mkid(&objs[0], 31, 0);
	mkid(&objs[1], 95, 1);
	struct skg_objtab t = {0};
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[0].id), -1); /* empty table */
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 0), 0);
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 1), 0);
	uint32_t want[32] = {0};
	want[31] = 1;
	want[0] = 2;
	assert_slots(&t, want, 32);
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[1].id), 1);
	want[31] = 2;
	want[0] = 1;
	assert_slots(&t, want, 32);
	skg_objtab_free(&t);
}

/*
 * skg_objtab_touch (a lookup by the object's slot in `at`) moves what skg_objtab_lookup moves: two
 * tables of the same 40 objects on 6 first slots (so that most sit away from their own), one
 * driven by lookups, the other by touches, after every add and every lookup the same slots, and
 * `at` names each object's slot. The lookup of test_lookup_wraps by touch gives its slots.
 */
static void test_touch(void **state)
{
	(void)state;
	struct obj objs[40];
	uint32_t at[40], hash[40];
	for (uint8_t k = 0; k < 40; k++) {
		mkid(&objs[k], (uint8_t)(7 * (k % 6) + 3), k);
		hash[k] = skg_objtab_hash(objs[k].id);
	}
	struct skg_objtab a = {0}, b = {0};
	b.at = at;
	for (uint32_t k = 0; k < 40; k++) {
		assert_int_equal(skg_objtab_add(&a, IDS(objs), STRIDE, k), 0);
		assert_int_equal(skg_objtab_add(&b, IDS(objs), STRIDE, k), 0);
		/* look up an earlier object (a fixed, scattered sequence) in both */
		uint32_t j = (k * 17 + 5) % (k + 1);
		assert_int_equal(skg_objtab_lookup(&a, IDS(objs), STRIDE, objs[j].id), (int64_t)j);
		skg_objtab_touch(&b, j, hash[j]);
		assert_int_equal(a.size, b.size);
		assert_memory_equal(a.slot, b.slot, a.size * sizeof(uint32_t));
		for (uint32_t i = 0; i <= k; i++) {
			assert_int_equal(b.slot[at[i]], i + 1);
		}
	}
	/* a lookup through the table with `at` set keeps it too */
	assert_int_equal(skg_objtab_lookup(&b, IDS(objs), STRIDE, objs[39].id), 39);
	assert_int_equal(b.slot[at[39]], 40);
	assert_int_equal(at[39], hash[39] & (b.size - 1));
	skg_objtab_free(&a);
	skg_objtab_free(&b);

	mkid(&objs[0], 31, 0);
	mkid(&objs[1], 95, 1);
	struct skg_objtab t = {0};
	t.at = at;
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 0), 0);
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 1), 0);
	assert_int_equal(at[1], 0); /* 95 & 31 is taken by 0: wrapped to slot 0 */
	skg_objtab_touch(&t, 1, skg_objtab_hash(objs[1].id));
	uint32_t want[32] = {0};
	want[31] = 2;
	want[0] = 1;
	assert_slots(&t, want, 32);
	assert_int_equal(at[0], 0);
	assert_int_equal(at[1], 31);
	skg_objtab_free(&t);
}

/*
 * oidhash copies the first 4 bytes into an unsigned int: ID 01 00 00 02 ... is 0x02000001 on a
 * little-endian machine (first slot 1 of 32) and 0x01000002 on a big-endian one (first slot 2), as
 * git's own table on that machine.
 */
static void test_byte_order(void **state)
{
	(void)state;
	struct obj o;
	memset(o.id, 0, SKG_RAWSZ);
	o.id[0] = 0x01;
	o.id[3] = 0x02;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const uint32_t hash = 0x01000002, slot = 2;
#else
	const uint32_t hash = 0x02000001, slot = 1;
#endif
	assert_int_equal(skg_objtab_hash(o.id), hash);
	struct skg_objtab t = {0};
	assert_int_equal(skg_objtab_add(&t, o.id, STRIDE, 0), 0);
	uint32_t want[32] = {0};
	want[slot] = 1;
	assert_slots(&t, want, 32);
	skg_objtab_free(&t);
}

/*
 * Sizes: git's creation k (objects 0 .. k - 1 in) grows when size - 1 <= 2k: the 1st to 32, the
 * 17th to 64 (31 <= 32), the 33rd to 128 (63 <= 64), the 65th to 256 (127 <= 128); the 16th,
 * 32nd and 64th do not (31 <= 30, 63 <= 62, 127 <= 126 are false). Every object is found again.
 */
static void test_sizes(void **state)
{
	(void)state;
	struct obj objs[70];
	for (uint32_t k = 0; k < 70; k++) {
		mkid(&objs[k], (uint8_t)(k * 37), (uint8_t)k);
	}
	static const struct {
		uint32_t after, size;
	} steps[] = {{1, 32}, {16, 32}, {17, 64}, {32, 64}, {33, 128}, {64, 128}, {65, 256}, {70, 256}};
	struct skg_objtab t = {0};
	uint32_t k = 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		for (; k < steps[i].after; k++) {
			assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, k), 0);
		}
		assert_int_equal(t.size, steps[i].size);
		assert_int_equal(t.nr, steps[i].after);
	}
	for (k = 0; k < 70; k++) {
		assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[k].id), k);
	}
	skg_objtab_free(&t);
}

#ifdef SK_FAULTS
/* The allocation of a larger table fails: SKG_E_NOMEM, the table as it was. */
static void test_nomem(void **state)
{
	(void)state;
	struct obj objs[17];
	growth_objects(objs);
	struct skg_objtab t = {0};
	fault_arm(FAULT_ALLOC, 0);
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 0), SKG_E_NOMEM);
	assert_true(fault_disarm());
	assert_null(t.slot);
	assert_int_equal(t.size, 0);
	assert_int_equal(t.nr, 0);
	for (uint32_t k = 0; k < 16; k++) {
		assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, k), 0);
	}
	uint32_t *before = t.slot, want32[32];
	growth_slots(want32, 32, (const uint32_t[]){0, 1, UINT32_MAX}, 31);
	fault_arm(FAULT_ALLOC, 0); /* the 17th add grows the table */
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 16), SKG_E_NOMEM);
	assert_true(fault_disarm());
	assert_ptr_equal(t.slot, before);
	assert_slots(&t, want32, 32);
	assert_int_equal(t.nr, 16);
	/* the next try goes through */
	assert_int_equal(skg_objtab_add(&t, IDS(objs), STRIDE, 16), 0);
	assert_int_equal(t.size, 64);
	assert_int_equal(t.nr, 17);
	assert_int_equal(skg_objtab_lookup(&t, IDS(objs), STRIDE, objs[16].id), 16);
	skg_objtab_free(&t);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_growth),     cmocka_unit_test(test_lookup_wraps),
	    cmocka_unit_test(test_byte_order), cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_touch),
#ifdef SK_FAULTS
	    cmocka_unit_test(test_nomem),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

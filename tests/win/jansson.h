/*
 * jansson.h (tests/win/) - the jansson calls of tests/test_dc.c, for the MinGW-w64 test build: Debian
 * has no jansson for MinGW. json_load_file() returns the file's tree as Python's json module parsed
 * it on the build host (tests/win/json_to_c.py, regenerated when the file changes), found by the
 * file's name; the accessors behave as jansson's on it (NULL / 0 for a missing key, an index out of
 * range or the wrong type). The trees are static: json_incref/json_decref do nothing.
 */
#ifndef SHA1KIT_TESTS_WIN_JANSSON_H
#define SHA1KIT_TESTS_WIN_JANSSON_H

#include <stddef.h>

typedef long long json_int_t;

enum { SK_JSON_OBJECT, SK_JSON_ARRAY, SK_JSON_STRING, SK_JSON_INTEGER, SK_JSON_OTHER };

typedef struct json_t {
	int type;
	const char *key; /* the member's name in its parent object, else NULL */
	json_int_t integer;
	const char *string;
	size_t n;                   /* members or elements */
	const struct json_t *items; /* the n members or elements */
} json_t;

typedef struct json_error_t {
	int line;
	char text[160];
} json_error_t;

typedef struct sk_json_file {
	const char *name;
	const json_t *root;
} sk_json_file;
extern const sk_json_file sk_json_files[]; /* generated; ends with {NULL, NULL} */

json_t *json_load_file(const char *path, size_t flags, json_error_t *error);
json_t *json_object_get(const json_t *object, const char *key);
json_t *json_array_get(const json_t *array, size_t index);
size_t json_array_size(const json_t *array);
json_int_t json_integer_value(const json_t *integer);
const char *json_string_value(const json_t *string);
json_t *json_incref(json_t *json);
void json_decref(json_t *json);

#endif

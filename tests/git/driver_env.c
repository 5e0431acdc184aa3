/* driver_env.c - see driver_env.h. */
#include "driver_env.h"

#include <stdio.h>
#include <stdlib.h>

#include <sha1kit/git.h>

int driver_git_version(const char *prog, unsigned *out)
{
	*out = SKG_GIT_2_55;
	const char *v = getenv("SHA1KIT_GIT_VERSION");
	if (v != NULL && *v != '\0' && skg_git_version_parse(v, out) != 0) {
		fprintf(stderr, "%s: SHA1KIT_GIT_VERSION=%s: not 2.39 or 2.55\n", prog, v);
		return 2;
	}
	return 0;
}

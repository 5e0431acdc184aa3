/*
 * driver_env.h - what the Git layer's test drivers (fsck_object_driver, loose_driver, repo_driver)
 * read from the environment, in one place.
 */
#ifndef SHA1KIT_TESTS_DRIVER_ENV_H
#define SHA1KIT_TESTS_DRIVER_ENV_H

/*
 * The Git whose lines the driver gives, as `sha1kit fsck` takes it: SHA1KIT_GIT_VERSION ("2.39",
 * "2.55", "2.39.5", ...; tests/testlib.sh sets it from the reference git), SKG_GIT_2_55 when it is
 * unset or empty. Returns 0 with *out set; prints "PROG: SHA1KIT_GIT_VERSION=...: not 2.39 or
 * 2.55" to stderr and returns 2 (the drivers' usage status) for any other value.
 */
int driver_git_version(const char *prog, unsigned *out);

#endif

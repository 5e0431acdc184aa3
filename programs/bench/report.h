/*
 * report.h - `sha1kit report` (report.c): the results site from result files of `sha1kit bench
 * --json`. sha1kit-bench (bench_main.c) runs it when its first argument is "report".
 */
#ifndef SHA1KIT_REPORT_H
#define SHA1KIT_REPORT_H

/* `sha1kit report ARG...`, argv[0] "report"; returns the exit status. */
int report_command(int argc, char **argv);

#endif /* SHA1KIT_REPORT_H */

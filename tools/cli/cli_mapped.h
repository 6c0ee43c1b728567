/* For the tools whose readers map their input files (zkpipe/io.h): what happens
 * when a mapped file is truncated, or its storage fails, while it is in use.
 *
 * The library's contract (zkpipe/io.h) is that of SQLite's and LMDB's memory maps: a file
 * opened by path must stay unchanged while its reader exists; when pages of it can no longer
 * be read, the thread that touches them gets SIGBUS, which the library leaves to the program
 * (a signal's disposition belongs to the whole process, and a host may have its own). These
 * binaries own their process, so they take SIGBUS themselves: cli_mapped_guard ends a one-shot
 * tool; a long-lived one leaves SIGBUS to the library's recovery (cli_mapped_recover). */
#ifndef ZKPIPE_EXAMPLES_CLI_MAPPED_H
#define ZKPIPE_EXAMPLES_CLI_MAPPED_H

#include <stddef.h>

/*! cli_mapped_guard() : installs a SIGBUS handler that reports a mapped input that can no
 * longer be read as an I/O error and ends the process with exit status 1, instead of dying on
 * the signal: it writes one line on stderr, "<prog>: <file>: I/O error: ...", naming the
 * inputs whose size is now smaller than when the guard was set (every input when none is:
 * then its storage failed, or it was replaced), removes the new files of an output set being
 * written once its writer is out of a step that must not be cut (cli_outputs_stop), and exits.
 * Call it once in a process, before opening the inputs.
 * `prog` and the array `paths` of n inputs (NULL entries are skipped) must stay valid for the
 * rest of the process; the guard keeps one size per input.
 * @return 0, or -1 with errno set (EBUSY: called before; ENOMEM; or sigaction's). */
int cli_mapped_guard(const char *prog, const char *const *paths, size_t n);

/*! cli_mapped_recover() : zkpipe_mapped_recover (zkpipe/io.h), for a process that outlives its
 * inputs' failures (a queue node): not with cli_mapped_guard, once.
 * @return 0, or -1 with errno set (EBUSY: a guard is set, or called before; ENOTSUP: the
 * library could not take SIGBUS). */
int cli_mapped_recover(void);

#endif

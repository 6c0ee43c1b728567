/* For the tools whose readers map their input files (zkpipe/io.h): what happens
 * when a mapped file is truncated, or its storage fails, while it is in use.
 *
 * The library's contract (zkpipe/io.h) is that of SQLite's and LMDB's memory maps: a file
 * opened by path must stay unchanged while its reader exists; when pages of it can no longer
 * be read, the thread that touches them gets SIGBUS, which the library leaves to the program
 * (a signal's disposition belongs to the whole process, and a host may have its own). These
 * binaries own their process, so they take SIGBUS themselves: cli_mapped_guard. */
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

/*! cli_mapped_recover() : for a process that outlives its inputs' failures (a queue node, whose
 * jobs name inputs that other processes may change): installs a SIGBUS handler that lets the
 * thread whose read of a mapped file faulted go on. The pages of that mapping, from the faulting
 * one to its end (past the file's new end, when it was truncated), are replaced by zero pages,
 * the file (its device and inode) is recorded as damaged, and the read is made again: it reads
 * zeros. The library's computations survive those (every count and index in a mapped file was
 * validated at open, and zero stays in bounds); no result made from them can be trusted, so the
 * program asks cli_mapped_damaged() after each piece of work whether an input of it was
 * damaged meanwhile, and reports that work as an I/O error instead of its result. A SIGBUS at
 * an address that is not in a mapped file, or a misaligned access, is left to the default
 * action: the process dies as it would have.
 * Call it once in a process, before any thread reads a mapped file; not with cli_mapped_guard.
 * The handler uses open, read, close, mmap and sigaction, async-signal-safe on Linux (mmap is
 * one system call there), and atomics that are lock-free.
 * @return 0, or -1 with errno set (EBUSY: a guard is set; or sigaction's). */
int cli_mapped_recover(void);

/*! cli_mapped_damage_mark() : a mark to pass to cli_mapped_damaged, taken before a piece of
 * work starts reading its inputs. Any thread. */
unsigned long long cli_mapped_damage_mark(void);

/*! cli_mapped_damaged() : 1 when a mapping of the file (dev, ino) was damaged (see
 * cli_mapped_recover) since `mark`, also when more files were damaged since then than the
 * handler keeps (64: then any file may have been); else 0. Any thread. */
int cli_mapped_damaged(unsigned long long mark, unsigned long long dev, unsigned long long ino);

#endif

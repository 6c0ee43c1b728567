/* File helpers the tools share: bounded whole-file reads, and a set of named
 * outputs written as one (cli_outputs_write), for zkpipe-prove, zkpipe-verify and any other
 * binary that writes several files a failed run must not leave half replaced. */
#ifndef ZKPIPE_EXAMPLES_CLI_FILES_H
#define ZKPIPE_EXAMPLES_CLI_FILES_H

#include <stddef.h>

/* The whole file at `path` (NUL-terminated, *len excludes the NUL) in a malloc'd buffer the
 * caller frees, if it is a regular file of at most `max` bytes: no more than max + 1 are ever
 * read, so a file that grows meanwhile is refused too. Anything else is refused before any read,
 * without waiting: the open does not block (a FIFO with no writer, a device), and what it opened
 * is looked at first. NULL with errno set on failure: EFBIG when the file holds more than `max`
 * bytes, EISDIR for a folder, ENODEV for a FIFO, a device or a socket. */
char *cli_read_file(const char *path, size_t max, size_t *len);

/*! cli_write_all() : writes the `len` bytes at `text` to `fd`, through short writes, EINTR
 * and a non-blocking descriptor's EAGAIN (waiting in poll). @return 0, or -1 with errno set. */
int cli_write_all(int fd, const char *text, size_t len);

/* One output of a set: where it goes and what it holds. */
typedef struct cli_output {
    const char *path; /* see cli_outputs_write; "-" is standard output */
    const char *text; /* len bytes; not read by cli_outputs_check */
    size_t len;
} cli_output;

/* Why a set was refused or not written: the output, the errno value and what was being
 * done (a static phrase such as "is a folder" or "cannot write"), for one line on stderr:
 * "prog: <outs[index].path>: <what>: <strerror(err)>". */
typedef struct cli_error {
    size_t index;
    int err;
    const char *what;
} cli_error;

/* Room for cli_error_text's line with any path. */
#define CLI_ERROR_TEXT_MAX 4352

/*! cli_error_text() : "<outs[e->index].path>: <what>: <strerror(err)>" (without the last
 * part when err is 0) into buf, cut to cap bytes; returns buf. */
char *cli_error_text(char *buf, size_t cap, const cli_output *outs, const cli_error *e);

/* cli_outputs_write's flags. CLI_OUTPUTS_DURABLE: each new file is synced (fsync) before the
 * renames and each folder after them, so that once the call returns the set survives a crash
 * of the system (power loss), not only of the process. Without it the set is as atomic for
 * every reader and for a process that dies, but a system crash soon after may leave some files
 * empty or as they were (the page cache not yet written back). */
#define CLI_OUTPUTS_DURABLE 1u

/*! cli_outputs_write() : writes every output of the set, or none of the files among them.
 * Where each goes, decided for all of them before anything is written:
 *   - a regular file, or a name that does not exist yet: the text goes to a new file in its
 *     folder (mode: the replaced file's, else 0666 less the umask), synced with
 *     CLI_OUTPUTS_DURABLE, then renamed onto the name. Where the system and the file system
 *     allow it (Linux O_TMPFILE, with /proc mounted), the new file has no name till the
 *     renames' step, which first links it as `<name>.zkpipe-new-<pid>`; elsewhere it is
 *     created under that name. A symbolic link is
 *     followed to its final target, which is replaced, so the link stays a link.
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that open
 *     descriptor; a character or block device or a FIFO: opened and written through. Nothing
 *     is renamed onto these.
 *   - refused (nothing written): a folder, a socket, a FIFO with no reader, a file whose
 *     folder is missing or not writable, a name too long, two outputs onto the same file (one
 *     name, or two hard links of one file).
 * Then the texts are written to the new files; then the devices and descriptors are written,
 * in order; then the files are renamed into place, in the order of the set. Before the renames
 * each file being replaced, but the last renamed, gets a hard link `<name>.zkpipe-old-<pid>`,
 * so that when a rename fails the ones done are undone and every file is as it was; the links
 * are removed once all renames are done.
 * A failure at any step before the renames (a refusal, ENOSPC, EFBIG under `ulimit -f`, a
 * device that will not take the text) leaves every file as it was and removes the new files;
 * what was written to a device or descriptor before the failure cannot be taken back.
 * Signals: while it runs, SIGPIPE and SIGXFSZ are ignored (writes fail with EPIPE or EFBIG
 * instead), and SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU,
 * SIGVTALRM and SIGPROF remove the new files, then kill the process as they would have (a
 * signal that comes during the renames waits until they are done). The previous
 * dispositions are restored before it returns.
 * A crash that no handler sees (SIGKILL, power loss) before the renames leaves no file behind
 * where the new files are unnamed; where they are named it leaves `<name>.zkpipe-new-<pid>`.
 * One during the renames can leave some outputs new and some old: each file not yet replaced
 * has its text in `<name>.zkpipe-new-<pid>`, each one replaced (but the last) its previous text
 * in `<name>.zkpipe-old-<pid>` (rename those onto the names to finish or to undo). Where a new
 * file was created under its name, a later successful write of the same output removes what
 * processes that no longer exist left beside it (one read of its folder); where new files are
 * unnamed, the folder is not read (its cost would grow with the folder), and what a crash
 * during the renames left stays until removed by hand.
 * @param flags 0 or CLI_OUTPUTS_DURABLE.
 * @return 0, or -1 with *e filled in.
 * Thread safety: one set at a time in a process (the signal handlers share one record of it);
 * other threads may run meanwhile. */
int cli_outputs_write(const cli_output *outs, size_t n, unsigned flags, cli_error *e);

/*! cli_outputs_check() : the checks cli_outputs_write makes before writing anything, without
 * writing or opening anything, so a binary can refuse a bad output path before its work
 * instead of after it. @return 0, or -1 with *e filled in. */
int cli_outputs_check(const cli_output *outs, size_t n, cli_error *e);

/*! cli_outputs_check_inputs() : refuses, before any work, an output of the set that is the
 * same file (device and inode) as one of the n_inputs paths in `inputs` (NULL entries skipped):
 * a run must never replace what it reads. Each output is looked at as cli_outputs_write would
 * write it: a descriptor it names ("-", /dev/fd/N) as the file open there, a path with every
 * symbolic link followed; each input as a reader opens it, links followed. So a symbolic link
 * to an input and a hard link to it are the same file. An output that does not exist yet, and
 * an input that cannot be looked at (its reader will say why), are skipped.
 * @return 0, or -1 with one line in `why` (cut to cap bytes) naming the output and the input:
 * "<output>: is the same file as the input <input>, which it would replace". Stats each path
 * once; allocates n_inputs records. */
int cli_outputs_check_inputs(const cli_output *outs, size_t n, const char *const *inputs,
                             size_t n_inputs, char *why, size_t cap);

/*! cli_outputs_stop() : for a handler that ends the process (see cli_mapped.h), on any
 * thread: waits until the writer of a set, if one is writing, is out of a step that must not
 * be cut (creating a new file, the renames), removes the set's new files and keeps the writer
 * from starting another step; the caller must then end the process. A second thread that calls
 * it meanwhile, or a handler of cli_outputs_write's, waits for the first to end the process.
 * Async-signal-safe. Without the wait, a handler on another thread could miss a new file that
 * the writer had just created and not yet recorded. */
void cli_outputs_stop(void);

/*! cli_out_dir_check() : whether `dir` can be a folder outputs go into, touching nothing: one
 * that exists must be a folder; a missing one (*missing set to 1) needs its parent to be one
 * (cli_out_dir_make makes it, its parent never: a mistyped path does not grow a tree of
 * folders). A symbolic link (even to a folder: the outputs would land wherever it points) and
 * anything that is not a folder are refused. @return 0, or -1 with one line in `why` (cut to
 * cap bytes): "<dir>: <what>". */
int cli_out_dir_check(const char *dir, int *missing, char *why, size_t cap);

/*! cli_out_dir_make() : cli_out_dir_check, then a missing `dir` is made (mode 0777 less the
 * umask). A caller that checks its outputs first (cli_outputs_expect_dir) makes the folder only
 * once they passed, so a refused run leaves no folder behind. @return as cli_out_dir_check. */
int cli_out_dir_make(const char *dir, char *why, size_t cap);

/*! cli_outputs_expect_dir() : the checks of cli_outputs_check that follow take `dir`, missing
 * now, as the folder the caller makes once they pass: an output directly in it is checked as a
 * new file in an empty folder (two outputs onto one name there are still refused). NULL: none.
 * The string must stay valid until the next call. Not thread-safe: call from main. */
void cli_outputs_expect_dir(const char *dir);

#endif

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

/*! cli_outputs_write() : writes every output of the set, or none of the files among them.
 * Where each goes, decided for all of them before anything is written:
 *   - a regular file, or a name that does not exist yet: the text goes to a new file beside
 *     it, `<name>.zkpipe-new-<pid>` (mode: the replaced file's, else 0666 less the umask),
 *     synced, then renamed onto the name. A symbolic link is followed to its final target,
 *     which is replaced, so the link stays a link.
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that open
 *     descriptor; a character or block device or a FIFO: opened and written through. Nothing
 *     is renamed onto these.
 *   - refused (nothing written): a folder, a socket, a FIFO with no reader, a file whose
 *     folder is missing or not writable, a name too long, two outputs onto the same file (one
 *     name, or two hard links of one file).
 * Then the texts are written to the new files; then the devices and descriptors are written,
 * in order; then the files are renamed into place, in the order of the set. Before the renames
 * each file being replaced gets a hard link `<name>.zkpipe-old-<pid>`, so that when a rename
 * fails the ones done are undone and every file is as it was; the links are removed once all
 * renames are done.
 * A failure at any step before the renames (a refusal, ENOSPC, EFBIG under `ulimit -f`, a
 * device that will not take the text) leaves every file as it was and removes the new files;
 * what was written to a device or descriptor before the failure cannot be taken back.
 * Signals: while it runs, SIGPIPE and SIGXFSZ are ignored (writes fail with EPIPE or EFBIG
 * instead), and SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU,
 * SIGVTALRM and SIGPROF remove the new files, then kill the process as they would have (a
 * signal that comes during the renames waits until they are done). The previous
 * dispositions are restored before it returns.
 * A crash that no handler sees (SIGKILL, power loss) during the renames can leave some
 * outputs new and some old: each file not yet replaced has its text in
 * `<name>.zkpipe-new-<pid>`, each one replaced its previous text in `<name>.zkpipe-old-<pid>`
 * (rename those onto the names to finish or to undo). A later successful write of the same
 * output removes what processes that no longer exist left beside it.
 * @return 0, or -1 with *e filled in.
 * Thread safety: one set at a time in a process (the signal handlers share one record of it);
 * other threads may run meanwhile. */
int cli_outputs_write(const cli_output *outs, size_t n, cli_error *e);

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

/*! cli_out_dir_make() : makes sure `dir` is a folder outputs can go into: one that exists is
 * taken as it is; a missing one is made (mode 0777 less the umask), its parent never: a parent
 * that is missing is refused, so a mistyped path does not grow a tree of folders. A symbolic
 * link (even to a folder: the outputs would land wherever it points) and anything that is not
 * a folder are refused. @return 0, or -1 with one line in `why` (cut to cap bytes):
 * "<dir>: <what>". */
int cli_out_dir_make(const char *dir, char *why, size_t cap);

#endif

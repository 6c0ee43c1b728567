/* The files of a queue node (queue_node.h): the witnesses jobs name beneath --inputs, those
 * jobs carry, and the outputs it writes beneath --out. A job never chooses a host path: every
 * name here has been checked (queue_job.h) and is resolved beneath a folder the operator gave,
 * held open as a descriptor. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_FILES_H
#define ZKPIPE_EXAMPLES_QUEUE_FILES_H

#include <stddef.h>

/*! queue_input_open() : opens `name` (a checked relative name) beneath the folder `dirfd`: no
 * component may be a symbolic link or leave the folder (openat2 with RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS; on a kernel without it, openat with O_NOFOLLOW one component at a
 * time), opened without blocking (a FIFO or a device is refused at once, never waited on) and
 * checked to be a regular file of 1 to `max` bytes before anything reads it.
 * @return the descriptor (close-on-exec; the caller closes it), or -1 with one line in why and
 * errno set: ENOENT or EIO when the file may be readable later, else another value. */
int queue_input_open(int dirfd, const char *name, size_t max, char *why, size_t cap);

/*! queue_input_memfd() : an anonymous file holding the `len` bytes at `data` (a witness a job
 * carries), sealed against any change, so that the library maps it like any witness file.
 * @return the descriptor (the caller closes it), or -1 with one line in why. */
int queue_input_memfd(const void *data, size_t len, char *why, size_t cap);

/*! queue_output_write() : writes the `n` files `names[i]` with `data[i]` (`lens[i]` bytes)
 * into the folder `dirfd`, each through a temporary file of its own created there with
 * O_EXCL|O_NOFOLLOW and then renamed over the name: a symbolic link at a name is replaced,
 * never followed, and a reader sees either the old file or the new one whole. `tag` makes the
 * temporary names unique among writers. @return 0, or -1 with one line in why (the files
 * already renamed stay). */
int queue_output_write(int dirfd, const char *const *names, const char *const *data,
                       const size_t *lens, size_t n, const char *tag, char *why, size_t cap);

#endif

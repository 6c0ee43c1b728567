/* Witnesses computed from an input.json by the circuit's own generator (--witness-cmd): circom's
 * compiled C++ program, or node with the circuit's wasm. The generator runs without a shell, in
 * a process group of its own, on files in a private temporary folder (mkdtemp, mode 0700) that
 * the server names: nothing of the request chooses a path. It is killed past its time limit and
 * its folder removed however it ends. */
#ifndef ZKPIPE_TOOLS_SERVE_WITNESS_H
#define ZKPIPE_TOOLS_SERVE_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "serve_options.h"

/* One generator's run. Opaque. */
typedef struct serve_witness serve_witness;

/*! serve_witness_start() : writes `input` (len bytes) as input.json in a new private folder
 * and starts `cmd` with {input} and {wtns} replaced by its files; it may run `timeout_ms`.
 * @return the run, or NULL with a line in why. */
serve_witness *serve_witness_start(const serve_witness_cmd *cmd, const void *input, size_t len,
                                   unsigned long timeout_ms, char *why, size_t cap);

/*! serve_witness_poll() : without waiting: 0 while it runs; 1 once it has exited with status 0
 * and written the witness (held open: serve_witness_take_fd); -1 when it failed, timed out
 * (killed, with its group) or wrote nothing (serve_witness_error says why). `now_ns` on
 * CLOCK_MONOTONIC. After a non-zero answer the folder is gone. */
int serve_witness_poll(serve_witness *w, uint64_t now_ns);

/* The witness file's descriptor (the caller closes it), once; -1 if none. */
int serve_witness_take_fd(serve_witness *w);

/* Why the run failed: one line (the last line its stderr wrote, when it wrote one). */
const char *serve_witness_error(const serve_witness *w);

/* Kills the run if it still runs, removes its folder, frees it. NULL is a no-op. */
void serve_witness_free(serve_witness *w);

#endif

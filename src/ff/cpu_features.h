/* The reading of ZKPIPE_CPU_MASK (zkpipe/cpu.h), apart from the load-time code that applies it,
 * so that tests can feed it any text. Host only. */
#ifndef ZKPIPE_FF_CPU_FEATURES_H
#define ZKPIPE_FF_CPU_FEATURES_H

/* The ZKPIPE_CPU_* bits that `text` asks to mask (NULL or empty: none) into *bits. Returns 1
 * when every word was known, 0 when one was not (the known ones are still in *bits). */
int zkpipe__cpu_mask_parse(const char *text, unsigned *bits);

#endif

/* A short sleep for tests that poll for another thread's progress. */
#ifndef ZKPIPE_TESTS_NAP_H
#define ZKPIPE_TESTS_NAP_H

/* Sleeps `ms` milliseconds, resuming after a signal interrupts it. */
void nap_ms(long ms);

#endif

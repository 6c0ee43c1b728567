/* A scratch folder of a test's own, for tests that write files. */
#ifndef ZKPIPE_TESTS_SCRATCH_DIR_H
#define ZKPIPE_TESTS_SCRATCH_DIR_H

/* The folder, between scratch_dir_setup and scratch_dir_teardown. */
extern char scratch_dir[256];

/* cmocka group setup: makes scratch_dir, $TMPDIR/zkpipe-test-XXXXXX (/tmp without $TMPDIR);
 * 0, or -1 when it cannot. */
int scratch_dir_setup(void **state);

/* cmocka group teardown: removes scratch_dir with everything in it; 0, or -1 when it cannot. */
int scratch_dir_teardown(void **state);

#endif

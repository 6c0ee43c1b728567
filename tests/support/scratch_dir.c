/* A test's scratch folder (scratch_dir.h). */
#include "scratch_dir.h"

#include <stdio.h>
#include <stdlib.h>

char scratch_dir[256];

int scratch_dir_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/zkpipe-test-XXXXXX", tmp != NULL ? tmp : "/tmp");
    return mkdtemp(scratch_dir) != NULL ? 0 : -1;
}

int scratch_dir_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    return system(cmd) == 0 ? 0 : -1;
}

#include "skips.h"

static size_t skipped;

void test_skip_counted(void)
{
    skipped++;
}

int test_exit_status(int failed, size_t cases)
{
    if (failed != 0)
        return 1;
    if (cases > 0 && skipped == cases)
        return TEST_SKIPPED_EXIT;
    return 0;
}

#include "zkpipe/zkpipe.h"

const char *zkpipe_version_string(void)
{
    return ZKPIPE_VERSION_STRING;
}

unsigned zkpipe_version_number(void)
{
    return ZKPIPE_VERSION_NUMBER;
}

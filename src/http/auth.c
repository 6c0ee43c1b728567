/* The bearer token a server may require (zkpipe_http_config.bearer_token): kept in a
 * fixed-size buffer and compared in time that depends only on how long the client's own
 * offer is, never on the token's content or length. */
#define _DEFAULT_SOURCE /* explicit_bzero, strncasecmp */
#include <string.h>
#include <strings.h>

#include "http/http_internal.h"

zkpipe_status zkpipe__http_auth_init(zkpipe__http_auth *auth, const char *token)
{
    memset(auth, 0, sizeof *auth);
    if (token == NULL)
        return ZKPIPE_OK;
    size_t len = strnlen(token, ZKPIPE_HTTP_TOKEN_MAX + 1);
    if (len > ZKPIPE_HTTP_TOKEN_MAX)
        return ZKPIPE_EINVAL;
    for (size_t i = 0; i < len; i++)
        if (token[i] < 0x21 || token[i] > 0x7e)
            return ZKPIPE_EINVAL;
    memcpy(auth->token, token, len);
    auth->len = len;
    return ZKPIPE_OK;
}

int zkpipe__http_auth_check(const zkpipe__http_auth *auth, const char *authorization)
{
    if (auth->len == 0)
        return 1;
    /* "Bearer" is case-insensitive (RFC 9110 11.1), followed by one or more spaces. */
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    const char *offer = authorization + 7;
    while (*offer == ' ')
        offer++;
    /* Every byte of the buffer is compared, whatever the offer's length: a shorter offer is
     * compared as if padded with NULs, which no token holds, and a longer one differs in
     * length. Only the offer's own length (which its sender knows) shapes the time taken. */
    size_t len = strlen(offer);
    unsigned diff = len != auth->len;
    for (size_t i = 0; i < ZKPIPE_HTTP_TOKEN_MAX; i++) {
        unsigned char c = i < len ? (unsigned char)offer[i] : 0;
        diff |= c ^ auth->token[i];
    }
    return diff == 0;
}

void zkpipe__http_auth_wipe(zkpipe__http_auth *auth)
{
    /* Not memset: a store the compiler sees as dead may be dropped. */
    explicit_bzero(auth, sizeof *auth);
}

/* The tests' HTTP client (http_client.h). */
#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* Enough for every answer the tests expect; more is an error. */
#define REPLY_MAX ((size_t)64 << 20)

int http_connect(const char *host, uint16_t port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        len = sizeof *v6;
    } else {
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int http_exchange(const char *host, uint16_t port, const char *request, size_t len, int timeout_ms,
                  http_reply *out)
{
    memset(out, 0, sizeof *out);
    int fd = http_connect(host, port);
    if (fd < 0)
        return -1;
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may answer and close before reading everything */
        sent += (size_t)n;
    }
    size_t cap = 4096;
    char *buf = malloc(cap);
    size_t got = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (buf == NULL || poll(&p, 1, timeout_ms) <= 0)
            break;
        if (got + 1 == cap) {
            char *bigger = cap < REPLY_MAX ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + got, cap - got - 1, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf == NULL || got == 0) {
        free(buf);
        return -1;
    }
    buf[got] = '\0';
    out->raw = buf;
    out->raw_len = got;
    int code;
    if (sscanf(buf, "HTTP/1.%*d %d", &code) == 1)
        out->status = code;
    const char *end = strstr(buf, "\r\n\r\n");
    out->body = end != NULL ? end + 4 : buf + got;
    out->body_len = (size_t)(buf + got - out->body);
    return 0;
}

int http_simple(const char *host, uint16_t port, const char *method, const char *path,
                http_reply *out)
{
    char req[1024];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     method, path, host);
    if (n < 0 || (size_t)n >= sizeof req)
        return -1;
    return http_exchange(host, port, req, (size_t)n, 10000, out);
}

const char *http_header(const http_reply *r, const char *name, char *buf, size_t cap)
{
    size_t nlen = strlen(name);
    for (const char *line = strstr(r->raw, "\r\n"); line != NULL && line < r->body;
         line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, nlen) == 0 && line[nlen] == ':') {
            const char *v = line + nlen + 1;
            while (*v == ' ')
                v++;
            const char *e = strstr(v, "\r\n");
            size_t vlen = e != NULL ? (size_t)(e - v) : strlen(v);
            if (vlen >= cap)
                vlen = cap - 1;
            memcpy(buf, v, vlen);
            buf[vlen] = '\0';
            return buf;
        }
    }
    return NULL;
}

void http_reply_free(http_reply *r)
{
    free(r->raw);
    memset(r, 0, sizeof *r);
}

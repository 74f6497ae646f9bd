/* resolver.h - name resolution that never blocks the event loop.
 *
 * getaddrinfo() can block for seconds on a slow DNS server.  Numeric
 * addresses are resolved inline; names go to one worker thread that reports
 * back through a pipe watched by the loop (the way chrony keeps its main loop
 * free).  One thread is enough: lookups are rare (once per connection). */
#ifndef SYNCTOP_RESOLVER_H
#define SYNCTOP_RESOLVER_H

#include <ev.h>
#include <sys/socket.h>

typedef struct resolver_request resolver_request;

/* Called on the loop thread.  On success err is NULL and addr/addrlen hold the
 * first address; on failure err says why (gai_strerror text). */
typedef void (*resolver_cb)(void *ctx, const struct sockaddr *addr, socklen_t addrlen,
			    const char *err);

int resolver_init(struct ev_loop *loop);
void resolver_free(void);

/* Start a lookup; the callback runs later, from the loop (never from inside
 * this call).  Returns a handle for resolver_cancel, or NULL on allocation
 * failure. */
resolver_request *resolver_lookup(const char *host, int port, resolver_cb cb, void *ctx);

/* The callback will not be called.  Safe from inside other callbacks. */
void resolver_cancel(resolver_request *req);

#endif

/* prometheus_source.h - synctop's nodes read from Prometheus servers over
 * their HTTP API instead of over SSH.
 *
 * One refresh sends the handful of instant queries of prometheus_map.h to
 * every server at once, through libcurl's multi interface driven by the
 * libev loop (curl_multi_socket_action from ev_io and ev_timer watchers):
 * nothing blocks the loop.  Each request has its own deadline and a bound
 * on its answer's size.  When every answer is in, the samples of all
 * servers are merged by node (prometheus_map_build) and handed to the
 * caller with one line saying what went wrong, if anything: HTTP errors,
 * Prometheus's own `status: error`, unparseable or cut answers and the
 * server's warnings are the source's trouble, not findings about nodes.
 *
 * Secrets never come from the command line: a bearer token or a
 * "user:password" pair is read from a file when the source starts, and
 * never logged.
 *
 * Servers come in sets (the command line's, and one per --config group
 * with its own "prometheus"), each with its own selector, node naming, CA
 * and credentials; the answers of a set are mapped together, then the sets'
 * nodes are merged, each set keeping only the nodes it serves. */
#ifndef SYNCTOP_PROMETHEUS_SOURCE_H
#define SYNCTOP_PROMETHEUS_SOURCE_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "prometheus_map.h"

/* The largest answer read to one query: beyond it the request fails (the
 * memory a refresh needs is bounded by this times the queries). */
#define PROMETHEUS_MAX_ANSWER (64u << 20)

/* The samples a Prometheus node keeps in its own ring (history.h): the
 * grid's sparkline and the drift rule's hour at a 30 s scrape, one point
 * per new scrape.  Its drill-down's history comes from query_range
 * (prometheus_source_query_range), so the 3600-slot ring an SSH node fills
 * at every poll would be memory no one reads (115 KiB a node). */
#define PROMETHEUS_NODE_HISTORY 128

typedef struct prometheus_source prometheus_source;

/* The refresh is complete.  map holds the nodes (valid during the call; the
 * callee may hand back the memory of those it has taken,
 * prometheus_map_release_before); error is NULL when every query of every
 * server answered cleanly, else one printable line.  answered: how many
 * servers answered every query; the nodes of a server that failed any are
 * not in map (part of an answer, judged as if whole, would make findings
 * up). */
typedef void (*prometheus_refresh_cb)(void *ctx, prom_map *map, const char *error, size_t answered);

/* Servers with their own selector, naming and credentials: a --config
 * group's "prometheus".  keep says which nodes of their answer they serve
 * (NULL: all); a node two sets keep comes from the first. */
typedef struct {
	const char *name;             /* for messages: "group \"a\"" */
	const char *const *urls;
	size_t n_urls;
	const char *selector;         /* NULL or "": none */
	const char *node_label;
	const char *ca_file;
	const char *bearer_token_file;
	const char *basic_auth_file;
	bool (*keep)(void *ctx, const char *node);
	void *keep_ctx;
} prometheus_server_set;

typedef struct {
	const char *const *urls;      /* base URLs: http(s)://host:port[/prefix] */
	size_t n_urls;
	const char *selector;         /* "" or "{matchers}" (prometheus_map_check_selector) */
	const char *node_label;       /* prom_map_options.node_label */
	double timeout_s;             /* per request */
	double stale_after_s;
	const char *ca_file;          /* TLS CA bundle, NULL: the system's */
	const char *bearer_token_file; /* NULL: none */
	const char *basic_auth_file;  /* "user:password" on its first line; NULL: none */
	/* the nodes of urls' answers to keep (NULL: all) */
	bool (*keep)(void *ctx, const char *node);
	void *keep_ctx;
	/* more servers, after urls, each set with its own settings */
	const prometheus_server_set *sets;
	size_t n_sets;
	prometheus_refresh_cb on_refresh;
	void *ctx;
} prometheus_source_config;

/* NULL with a reason in err when a URL, the selector or a secret file is
 * not usable. */
prometheus_source *prometheus_source_new(struct ev_loop *loop, const prometheus_source_config *cfg, char *err,
					 size_t err_len);

/* Starts a refresh; false (nothing done) while one is running. */
bool prometheus_source_refresh(prometheus_source *ps);

/* Ends a running refresh now: its callback runs with what answered and
 * `why` for the rest. */
void prometheus_source_give_up(prometheus_source *ps, const char *why);

/* A range query's answer: the series of every server that answered (valid
 * during the call), or NULL with error, one printable line. */
typedef void (*prometheus_range_cb)(void *ctx, const prom_matrix *m, const char *error);

/* Starts GET /api/v1/query_range of promql over [start, end] every step s on
 * every server, beside any refresh; cb runs once when all have answered or
 * failed (never from inside this call), keeping at most max_points per
 * series.  Never blocks.  Freeing the source first runs cb with an error. */
void prometheus_source_query_range(prometheus_source *ps, const char *promql, double start, double end, double step,
				   size_t max_points, prometheus_range_cb cb, void *ctx);
/* The same on the servers of one set only: set 0 is the command line's
 * when it has URLs, then cfg.sets in order (a node's history is asked of
 * the servers that serve it, with their credentials); PROMETHEUS_EVERY_SET:
 * every server, as above. */
#define PROMETHEUS_EVERY_SET ((size_t)-1)
void prometheus_source_query_range_in(prometheus_source *ps, size_t set, const char *promql, double start,
				      double end, double step, size_t max_points, prometheus_range_cb cb, void *ctx);
/* The same with its own timeout per request (0: cfg.timeout_s), for a
 * query known to take the server longer than a refresh's. */
void prometheus_source_query_range_within(prometheus_source *ps, size_t set, const char *promql, double start,
					  double end, double step, size_t max_points, double timeout_s,
					  prometheus_range_cb cb, void *ctx);

void prometheus_source_free(prometheus_source *ps);

#endif

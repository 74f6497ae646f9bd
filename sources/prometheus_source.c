/* prometheus_source.c - Prometheus's HTTP API on the event loop
 * (prometheus_source.h).  The libcurl/libev glue follows curl's
 * docs/examples/evhiperfifo.c: curl says which sockets to watch for what
 * (CURLMOPT_SOCKETFUNCTION) and when to call it back (TIMERFUNCTION); the
 * watchers call curl_multi_socket_action and collect finished transfers. */
#include <config.h>

#include "prometheus_source.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#if defined(__GLIBC__)
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bytebuf.h"
#include "log.h"
#include "walltime.h"
#include "xalloc.h"

typedef struct range_job range_job;

typedef struct {
	prometheus_source *ps;
	range_job *job;          /* a range query's, or NULL: a refresh's */
	size_t server;
	prom_query_id query;
	CURL *easy;
	bytebuf body;
	bool too_large;
	bool given_up;           /* prometheus_source_give_up: curl_error says why */
	bool done;
	char curl_error[CURL_ERROR_SIZE];
	prom_vector answer;
	bool parsed;             /* answer holds samples */
	double timeout_s;        /* 0: the source's (cfg.timeout_s) */
} request;

/* One set of servers (prometheus_server_set) as the source keeps it. */
typedef struct {
	char *selector;
	char *node_label;
	char *ca_file;
	char *bearer;            /* the token, or NULL */
	char *userpwd;           /* "user:password", or NULL */
	bool (*keep)(void *ctx, const char *node);
	void *keep_ctx;
	size_t first, n;         /* its servers: urls[first .. first + n) */
} server_set;
/* A range query to every server (prometheus_source_query_range). */
struct range_job {
	range_job *next;         /* the source's list of running ones */
	request *requests;       /* one per server */
	size_t pending;
	size_t max_points;
	prom_matrix merged;      /* the series of every server that answered */
	bool any;                /* a server answered */
	char error[400];         /* the first failure */
	prometheus_range_cb cb;
	void *ctx;
	ev_timer later;          /* a job that cannot start reports from the loop */
};

/* One watched socket: curl's interest in it, as an ev_io. */
typedef struct {
	ev_io io;
	prometheus_source *ps;
} sock_watch;

struct prometheus_source {
	struct ev_loop *loop;
	prometheus_source_config cfg;
	char **urls;             /* every set's servers, in order */
	size_t n_urls;
	size_t *set_of;          /* the set of each server */
	server_set *sets;
	size_t n_sets;
	CURLM *multi;
	ev_timer timer;          /* curl's timeout */
	request *requests;       /* n_urls * PROM_Q_COUNT while a refresh runs */
	size_t n_requests;
	size_t pending;
	bool running;
	/* What went wrong in this refresh: distinct troubles per server, each
	 * with the first query it hit and how many more it hit. */
	struct {
		size_t server;
		char text[400];
		prom_query_id first;
		unsigned more;
	} troubles[8];
	size_t n_troubles;
	char error[1024];        /* them, as one line for the caller */
	range_job *jobs;         /* range queries running */
	/* Each refresh request's answer size the last time (server * query),
	 * 0 unknown: its buffer is taken that large at once, not grown by
	 * doubling (10,000 nodes: 28 MB copied again and again) */
	size_t *answer_len;
	/* The CPU this refresh took in the source's own callbacks (sending,
	 * receiving, parsing, mapping, the caller's model update): logged,
	 * so it can be told from the rest of a live run's (drawing, the
	 * cluster's rules). */
	double cpu_s;
	double cpu_since;        /* the process CPU clock when the outermost callback began, or -1 */
};

static double cpu_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Around each entry into the source from the loop: its CPU counted. */
static bool cpu_enter(prometheus_source *ps)
{
	if (ps->cpu_since >= 0) {
		return false; /* nested */
	}
	ps->cpu_since = cpu_clock();
	return true;
}

static void cpu_leave(prometheus_source *ps, bool entered)
{
	if (entered) {
		ps->cpu_s += cpu_clock() - ps->cpu_since;
		ps->cpu_since = -1;
	}
}

/* --------------------------------------------------------------- secrets */

/* The first line of a file, without its line end: a token or user:password. */
static char *read_secret(const char *path, const char *what, char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	if (!f) {
		snprintf(err, err_len, "%s %s: %s", what, path, strerror(errno));
		return NULL;
	}
	if (!fgets(line, sizeof line, f)) {
		line[0] = '\0';
	}
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0]) {
		snprintf(err, err_len, "%s %s: empty first line", what, path);
		return NULL;
	}
	return xstrdup(line);
}

/* ------------------------------------------------------ error collection */

/* A server that is down fails every query the same way: said once. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void note_error(prometheus_source *ps, size_t server, prom_query_id query, const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	log_printf("prometheus: %s: %s: %s", ps->urls[server], prometheus_map_query_name(query), text);
	for (size_t i = 0; i < ps->n_troubles; i++) {
		if (ps->troubles[i].server == server && strcmp(ps->troubles[i].text, text) == 0) {
			ps->troubles[i].more++;
			return;
		}
	}
	if (ps->n_troubles == sizeof ps->troubles / sizeof ps->troubles[0]) {
		ps->troubles[ps->n_troubles - 1].more++;
		return;
	}
	ps->troubles[ps->n_troubles].server = server;
	ps->troubles[ps->n_troubles].first = query;
	ps->troubles[ps->n_troubles].more = 0;
	snprintf(ps->troubles[ps->n_troubles].text, sizeof ps->troubles[0].text, "%s", text);
	ps->n_troubles++;
}

static void format_troubles(prometheus_source *ps)
{
	size_t used = 0;
	ps->error[0] = '\0';
	for (size_t i = 0; i < ps->n_troubles && used < sizeof ps->error; i++) {
		char more[48] = "";
		if (ps->troubles[i].more) {
			snprintf(more, sizeof more, " (and %u more quer%s)", ps->troubles[i].more,
				 ps->troubles[i].more == 1 ? "y" : "ies");
		}
		int w = snprintf(ps->error + used, sizeof ps->error - used, "%s%s: %s query: %s%s", i ? "; " : "",
				 ps->urls[ps->troubles[i].server], prometheus_map_query_name(ps->troubles[i].first),
				 ps->troubles[i].text, more);
		used += w > 0 ? (size_t)w : 0;
	}
}

/* ------------------------------------------------------------- finishing */

/* Whether server s answered every query.  Part of an answer is not used:
 * judged alone it makes findings up (without chrony_exporter's answer the
 * kernel's rules would judge a chrony node by its timex flags), so its
 * nodes are unknown with the error instead. */
static bool server_whole(prometheus_source *ps, size_t s)
{
	size_t parsed = 0;
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		parsed += ps->requests[s * PROM_Q_COUNT + (size_t)q].parsed;
	}
	if (parsed > 0 && parsed < PROM_Q_COUNT) {
		log_printf("prometheus: %s: %zu of %d queries answered: none used", ps->urls[s], parsed,
			   PROM_Q_COUNT);
	}
	return parsed == PROM_Q_COUNT;
}

/* One set's answers, mapped: the samples of its servers that answered
 * every query, merged by query, then by node. */
static size_t map_set(prometheus_source *ps, const server_set *set, prom_map *map)
{
	prom_vector *answers[PROM_Q_COUNT];
	prom_vector merged[PROM_Q_COUNT];
	size_t answered = 0;

	memset(merged, 0, sizeof merged);
	for (size_t s = set->first; s < set->first + set->n; s++) {
		if (!server_whole(ps, s)) {
			continue;
		}
		for (int q = 0; q < PROM_Q_COUNT; q++) {
			prom_vector_take(&merged[q], &ps->requests[s * PROM_Q_COUNT + (size_t)q].answer);
		}
		answered++;
	}
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		answers[q] = merged[q].samples ? &merged[q] : NULL;
	}
	prom_map_options opt = {set->node_label, walltime_now(), ps->cfg.stale_after_s};
	prometheus_map_build_owning(answers, &opt, map); /* the samples move into map */
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		prom_vector_free(&merged[q]);
	}
	return answered;
}

static void finish_refresh(prometheus_source *ps)
{
	prom_map map;
	size_t answered = 0;

	format_troubles(ps);
	if (ps->n_sets == 1 && !ps->sets[0].keep) {
		answered = map_set(ps, &ps->sets[0], &map); /* no copy: 10,000 nodes are 10,000 copies */
	} else {
		memset(&map, 0, sizeof map);
		for (size_t i = 0; i < ps->n_sets; i++) {
			const server_set *set = &ps->sets[i];
			prom_map one;
			answered += map_set(ps, set, &one);
			for (size_t k = 0; k < one.n_nodes; k++) {
				if (!set->keep || set->keep(set->keep_ctx, prometheus_map_name(&one, k))) {
					prometheus_map_adopt(&map, prometheus_map_node(&one, k));
				}
			}
			map.unnamed += one.unnamed;
			prometheus_map_free(&one);
		}
	}
	if (map.unnamed) {
		log_printf("prometheus: %zu samples named no node (no instance or node label)", map.unnamed);
	}
	for (size_t i = 0; i < ps->n_requests; i++) {
		prom_vector_free(&ps->requests[i].answer);
		bytebuf_free(&ps->requests[i].body);
	}
	free(ps->requests);
	ps->requests = NULL;
	ps->n_requests = 0;
	ps->running = false;
	log_printf("prometheus: refresh done: %zu nodes from %zu of %zu servers%s%s", map.n_nodes, answered,
		   ps->n_urls, ps->error[0] ? ": " : "", ps->error);
	ps->cfg.on_refresh(ps->cfg.ctx, &map, ps->error[0] ? ps->error : NULL, answered);
	prometheus_map_free(&map);
	/* No malloc_trim here: the next refresh needs the same memory again, and
	 * handing it back made every refresh fault it in anew (10,000 nodes:
	 * 120-124 ms of CPU a refresh after a scrape with it, 92-94 without;
	 * the peak RSS is the same, bench/results/PROMETHEUS-TRIM-2026-12-05.md) */
	double cpu = ps->cpu_s + (ps->cpu_since >= 0 ? cpu_clock() - ps->cpu_since : 0);
	log_printf("prometheus: refresh CPU: %.1f ms (requests, answers, nodes, the model's update)", cpu * 1e3);
}

static void request_done(request *r, CURLcode code)
{
	prometheus_source *ps = r->ps;
	long http = 0;
	char err[512];

	r->done = true;
	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &http);
	if (r->too_large) {
		note_error(ps, r->server, r->query, "answer larger than %u MiB (narrow --prometheus-selector)",
			   PROMETHEUS_MAX_ANSWER >> 20);
	} else if (code != CURLE_OK) {
		/* curl's own words, not its error buffer: "after 3 ms" would make
		 * every query's failure look different */
		note_error(ps, r->server, r->query, "%s", r->given_up ? r->curl_error : curl_easy_strerror(code));
	} else if (prometheus_query_parse(r->body.data, r->body.len, &r->answer, err, sizeof err) != 0) {
		/* Prometheus answers its errors (400, 422, 503) in JSON too */
		if (http != 200 && strncmp(err, "Prometheus says", 15) != 0) {
			note_error(ps, r->server, r->query, "HTTP %ld", http);
		} else {
			note_error(ps, r->server, r->query, "%s", err);
		}
		prom_vector_free(&r->answer);
	} else if (http != 200) {
		note_error(ps, r->server, r->query, "HTTP %ld", http);
		prom_vector_free(&r->answer);
	} else {
		r->parsed = true;
		if (r->answer.n_warnings) {
			note_error(ps, r->server, r->query, "warning: %s", r->answer.warnings);
		}
	}
	if (code == CURLE_OK && !r->too_large) {
		ps->answer_len[r->server * PROM_Q_COUNT + (size_t)r->query] = r->body.len;
	}
	bytebuf_free(&r->body); /* parsed: up to 64 MiB not held until the last answer */
	curl_multi_remove_handle(ps->multi, r->easy);
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	if (--ps->pending == 0) {
		finish_refresh(ps);
	}
}

static void range_request_done(request *r, CURLcode code);

static void check_multi(prometheus_source *ps)
{
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(ps->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE) {
			continue;
		}
		request *r = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		if (r->job) {
			range_request_done(r, msg->data.result);
		} else if (ps->running) {
			request_done(r, msg->data.result);
		}
	}
}

/* ------------------------------------------------------- curl <-> libev */

static void on_sock(struct ev_loop *loop, ev_io *w, int revents)
{
	sock_watch *sw = (sock_watch *)w;
	prometheus_source *ps = sw->ps;
	int action = (revents & EV_READ ? CURL_CSELECT_IN : 0) | (revents & EV_WRITE ? CURL_CSELECT_OUT : 0);
	int running;
	bool entered = cpu_enter(ps);
	curl_multi_socket_action(ps->multi, w->fd, action, &running);
	check_multi(ps);
	cpu_leave(ps, entered);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	prometheus_source *ps = w->data;
	int running;
	bool entered = cpu_enter(ps);
	curl_multi_socket_action(ps->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_multi(ps);
	cpu_leave(ps, entered);
}

static int socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	prometheus_source *ps = userp;
	sock_watch *sw = socketp;
	if (what == CURL_POLL_REMOVE) {
		if (sw) {
			ev_io_stop(ps->loop, &sw->io);
			free(sw);
			curl_multi_assign(ps->multi, fd, NULL);
		}
		return 0;
	}
	int events = (what & CURL_POLL_IN ? EV_READ : 0) | (what & CURL_POLL_OUT ? EV_WRITE : 0);
	if (!sw) {
		sw = xcalloc(1, sizeof *sw);
		sw->ps = ps;
		ev_io_init(&sw->io, on_sock, fd, events);
		curl_multi_assign(ps->multi, fd, sw);
	} else if (sw->io.events == events) {
		return 0; /* re-armed only when the interest changes */
	} else {
		ev_io_stop(ps->loop, &sw->io);
		ev_io_set(&sw->io, fd, events);
	}
	ev_io_start(ps->loop, &sw->io);
	return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	prometheus_source *ps = userp;
	ev_timer_stop(ps->loop, &ps->timer);
	if (timeout_ms >= 0) {
		ev_timer_set(&ps->timer, (double)timeout_ms / 1000.0, 0.0);
		ev_timer_start(ps->loop, &ps->timer);
	}
	return 0;
}

static size_t write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	request *r = userp;
	size_t n = size * nmemb;
	if (r->body.len + n > PROMETHEUS_MAX_ANSWER) {
		r->too_large = true;
		return 0; /* curl fails the transfer with CURLE_WRITE_ERROR */
	}
	if (!r->body.data && !r->job) {
		/* the last answer's size and an eighth: most answers fit at once */
		size_t want = r->ps->answer_len[r->server * PROM_Q_COUNT + (size_t)r->query];
		want += want / 8;
		if (want > n && want <= PROMETHEUS_MAX_ANSWER) {
			r->body.data = xmalloc(want);
			r->body.cap = want;
		}
	}
	bytebuf_append(&r->body, data, n);
	return n;
}

/* ------------------------------------------------------------ requests */

static int add_easy(prometheus_source *ps, request *r, const char *url);

/* BASE + API + "?query=" + PROMQL escaped + EXTRA, allocated at its size
 * (a selector of 1,024 characters escapes to three times that, and the
 * drift queries repeat it per family: never cut); NULL if escaping
 * failed. */
static char *api_url(CURL *easy, const char *base, const char *api, const char *promql, const char *extra)
{
	char *escaped = curl_easy_escape(easy, promql, 0);
	if (!escaped) {
		return NULL;
	}
	size_t blen = strlen(base);
	if (blen > 0 && base[blen - 1] == '/') {
		blen--; /* "http://h:9090/" + "/api" would double the slash */
	}
	size_t len = blen + strlen(api) + strlen("?query=") + strlen(escaped) + strlen(extra) + 1;
	char *url = xmalloc(len);
	snprintf(url, len, "%.*s%s?query=%s%s", (int)blen, base, api, escaped, extra);
	curl_free(escaped);
	return url;
}

static int start_request(prometheus_source *ps, request *r)
{
	char promql[PROM_QUERY_MAX];
	const server_set *set = &ps->sets[ps->set_of[r->server]];
	if (prometheus_map_query(r->query, set->selector, promql, sizeof promql) < 0) {
		return -1;
	}
	r->easy = curl_easy_init();
	if (!r->easy) {
		return -1;
	}
	char *url = api_url(r->easy, ps->urls[r->server], "/api/v1/query", promql, "");
	if (!url) {
		curl_easy_cleanup(r->easy);
		r->easy = NULL;
		return -1;
	}
	int rc = add_easy(ps, r, url); /* libcurl keeps its own copy */
	free(url);
	return rc;
}

/* Whether url's host is this machine's loopback: "localhost", 127.0.0.0/8
 * or [::1]. */
static bool loopback_url(const char *url)
{
	const char *host = strstr(url, "://");
	if (!host) {
		return false;
	}
	host += 3;
	size_t len = strcspn(host, "/?#");
	if (strncmp(host, "[::1]", 5) == 0) {
		return true;
	}
	size_t name = strcspn(host, ":/?#"); /* without the port */
	if (name > len) {
		name = len;
	}
	return (name == 9 && strncmp(host, "localhost", 9) == 0) || strncmp(host, "127.", 4) == 0;
}

/* r->easy (made by the caller) set up for url and added to the multi handle;
 * on failure it is cleaned up. */
static int add_easy(prometheus_source *ps, request *r, const char *url)
{
	const server_set *set = &ps->sets[ps->set_of[r->server]]; /* its credentials */
	long timeout_ms = (long)((r->timeout_s > 0 ? r->timeout_s : ps->cfg.timeout_s) * 1000.0);
	curl_easy_setopt(r->easy, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->curl_error);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
	/* a query with its own longer time still connects within --timeout */
	curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(ps->cfg.timeout_s * 1000.0));
	/* gzip: large answers shrink tenfold on the wire, for the CPU of both
	 * ends; from a server on this host nothing is saved (10,000 nodes:
	 * every answer ~20% sooner without it) */
	if (!loopback_url(url)) {
		curl_easy_setopt(r->easy, CURLOPT_ACCEPT_ENCODING, "");
	}
	curl_easy_setopt(r->easy, CURLOPT_USERAGENT, "synctop/" PACKAGE_VERSION);
	if (set->ca_file) {
		curl_easy_setopt(r->easy, CURLOPT_CAINFO, set->ca_file);
	}
	if (set->bearer) {
		curl_easy_setopt(r->easy, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(r->easy, CURLOPT_XOAUTH2_BEARER, set->bearer);
	} else if (set->userpwd) {
		curl_easy_setopt(r->easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(r->easy, CURLOPT_USERPWD, set->userpwd);
	}
	if (curl_multi_add_handle(ps->multi, r->easy) != CURLM_OK) {
		curl_easy_cleanup(r->easy);
		r->easy = NULL;
		return -1;
	}
	return 0;
}

bool prometheus_source_refresh(prometheus_source *ps)
{
	if (ps->running) {
		return false;
	}
	ps->n_troubles = 0;
	ps->cpu_s = 0;
	bool entered = cpu_enter(ps);
	ps->n_requests = ps->n_urls * PROM_Q_COUNT;
	ps->requests = xcalloc(ps->n_requests, sizeof *ps->requests);
	ps->running = true;
	ps->pending = 0;
	for (size_t i = 0; i < ps->n_requests; i++) {
		request *r = &ps->requests[i];
		r->ps = ps;
		r->server = i / PROM_Q_COUNT;
		r->query = (prom_query_id)(i % PROM_Q_COUNT);
		if (start_request(ps, r) != 0) {
			r->done = true;
			note_error(ps, r->server, r->query, "cannot start the request");
			continue;
		}
		ps->pending++;
	}
	log_printf("prometheus: refresh: %zu queries to %zu servers", ps->pending, ps->n_urls);
	if (ps->pending == 0) {
		finish_refresh(ps);
	}
	cpu_leave(ps, entered);
	return true;
}

void prometheus_source_give_up(prometheus_source *ps, const char *why)
{
	if (!ps || !ps->running) {
		return;
	}
	for (size_t i = 0; i < ps->n_requests && ps->running; i++) {
		request *r = &ps->requests[i];
		if (r->easy && !r->done) {
			snprintf(r->curl_error, sizeof r->curl_error, "%s", why);
			r->given_up = true;
			request_done(r, CURLE_OPERATION_TIMEDOUT);
		}
	}
}

/* --------------------------------------------------------- range queries */

static void range_job_free(prometheus_source *ps, range_job *job)
{
	for (size_t i = 0; i < ps->n_urls; i++) {
		request *r = &job->requests[i];
		if (r->easy) {
			curl_multi_remove_handle(ps->multi, r->easy);
			curl_easy_cleanup(r->easy);
		}
		bytebuf_free(&r->body);
	}
	ev_timer_stop(ps->loop, &job->later);
	prom_matrix_free(&job->merged);
	free(job->requests);
	free(job);
}

static void range_finish(prometheus_source *ps, range_job *job)
{
	for (range_job **p = &ps->jobs; *p; p = &(*p)->next) {
		if (*p == job) {
			*p = job->next;
			break;
		}
	}
	log_printf("prometheus: range query done: %zu series%s%s", job->merged.n_series, job->error[0] ? ": " : "",
		   job->error);
	job->cb(job->ctx, job->any ? &job->merged : NULL, job->any ? NULL : job->error);
	range_job_free(ps, job);
}

static void range_request_done(request *r, CURLcode code)
{
	prometheus_source *ps = r->ps;
	range_job *job = r->job;
	char err[512] = "";
	long http = 0;
	prom_matrix m;

	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &http);
	if (r->too_large) {
		snprintf(err, sizeof err, "answer larger than %u MiB", PROMETHEUS_MAX_ANSWER >> 20);
	} else if (code != CURLE_OK) {
		snprintf(err, sizeof err, "%s", curl_easy_strerror(code));
	} else if (prometheus_range_parse(r->body.data, r->body.len, job->max_points, &m, err, sizeof err) != 0) {
		if (http != 200 && strncmp(err, "Prometheus says", 15) != 0) {
			snprintf(err, sizeof err, "HTTP %ld", http);
		}
	} else {
		/* the series move to merged; their blocks with them */
		job->merged.series = xrealloc(job->merged.series,
					      (job->merged.n_series + m.n_series + 1) * sizeof *m.series);
		if (m.n_series) {
			memcpy(job->merged.series + job->merged.n_series, m.series, m.n_series * sizeof *m.series);
		}
		job->merged.n_series += m.n_series;
		free(m.series);
		job->any = true;
	}
	if (err[0]) {
		log_printf("prometheus: %s: range query: %s", ps->urls[r->server], err);
		if (!job->error[0]) {
			snprintf(job->error, sizeof job->error, "%s: %s", ps->urls[r->server], err);
		}
	}
	bytebuf_free(&r->body);
	curl_multi_remove_handle(ps->multi, r->easy);
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	if (--job->pending == 0) {
		range_finish(ps, job);
	}
}

static void on_range_later(struct ev_loop *loop, ev_timer *w, int revents)
{
	range_job *job = w->data;
	range_finish(job->requests[0].ps, job);
}

void prometheus_source_query_range(prometheus_source *ps, const char *promql, double start, double end, double step,
				   size_t max_points, prometheus_range_cb cb, void *ctx)
{
	prometheus_source_query_range_in(ps, PROMETHEUS_EVERY_SET, promql, start, end, step, max_points, cb, ctx);
}

void prometheus_source_query_range_in(prometheus_source *ps, size_t set, const char *promql, double start,
				      double end, double step, size_t max_points, prometheus_range_cb cb, void *ctx)
{
	prometheus_source_query_range_within(ps, set, promql, start, end, step, max_points, 0, cb, ctx);
}

void prometheus_source_query_range_within(prometheus_source *ps, size_t set, const char *promql, double start,
					  double end, double step, size_t max_points, double timeout_s,
					  prometheus_range_cb cb, void *ctx)
{
	range_job *job = xcalloc(1, sizeof *job);
	job->requests = xcalloc(ps->n_urls ? ps->n_urls : 1, sizeof *job->requests);
	job->max_points = max_points;
	job->cb = cb;
	job->ctx = ctx;
	job->next = ps->jobs;
	ps->jobs = job;
	ev_timer_init(&job->later, on_range_later, 0.0, 0.0);
	job->later.data = job;
	job->requests[0].ps = ps; /* on_range_later's way back, servers or not */
	for (size_t i = 0; i < ps->n_urls; i++) {
		request *r = &job->requests[i];
		if (set != PROMETHEUS_EVERY_SET && ps->set_of[i] != set) {
			continue; /* another set's server: not this node's */
		}
		r->ps = ps;
		r->job = job;
		r->server = i;
		r->timeout_s = timeout_s;
		r->easy = curl_easy_init();
		const char *base = ps->urls[i];
		char range[128];
		snprintf(range, sizeof range, "&start=%.3f&end=%.3f&step=%.0f", start, end, step);
		char *url = r->easy ? api_url(r->easy, base, "/api/v1/query_range", promql, range) : NULL;
		if (!url && r->easy) {
			curl_easy_cleanup(r->easy);
			r->easy = NULL;
		}
		int added = r->easy ? add_easy(ps, r, url) : -1;
		free(url);
		if (added != 0) {
			if (!job->error[0]) {
				snprintf(job->error, sizeof job->error, "%s: cannot start the range query", base);
			}
			continue;
		}
		job->pending++;
	}
	if (job->pending == 0) {
		if (!job->error[0]) {
			snprintf(job->error, sizeof job->error, "no server in the node's set of servers");
		}
		ev_timer_start(ps->loop, &job->later); /* the caller hears back from the loop, not from here */
	}
}

/* ------------------------------------------------------------ lifetime */

static bool valid_url(const char *url)
{
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		return false;
	}
	const char *host = strstr(url, "://") + 3;
	const char *end = host + strcspn(host, "/?#");
	/* credentials in a URL end up in ps, shell history and logs */
	return memchr(host, '@', (size_t)(end - host)) == NULL && end > host;
}

/* Checks and keeps one set: its URLs after those already kept; its
 * secrets read from their files now.  what names it in messages. */
static int add_set(prometheus_source *ps, const prometheus_server_set *spec, char *err, size_t err_len)
{
	char what[160];
	if (prometheus_map_check_selector(spec->selector ? spec->selector : "", err, err_len) != 0) {
		return -1;
	}
	for (size_t i = 0; i < spec->n_urls; i++) {
		if (!valid_url(spec->urls[i])) {
			snprintf(err, err_len, "%s: '%s' is not an http:// or https:// URL without user:password@ "
					       "(credentials go in a file: --prometheus-basic-auth-file, or the group's "
					       "\"basic_auth_file\")",
				 spec->name, spec->urls[i]);
			return -1;
		}
	}
	ps->sets = xrealloc(ps->sets, (ps->n_sets + 1) * sizeof *ps->sets);
	server_set *set = &ps->sets[ps->n_sets++];
	memset(set, 0, sizeof *set);
	set->selector = xstrdup(spec->selector ? spec->selector : "");
	set->node_label = spec->node_label ? xstrdup(spec->node_label) : NULL;
	set->ca_file = spec->ca_file ? xstrdup(spec->ca_file) : NULL;
	set->keep = spec->keep;
	set->keep_ctx = spec->keep_ctx;
	set->first = ps->n_urls;
	set->n = spec->n_urls;
	ps->urls = xrealloc(ps->urls, (ps->n_urls + spec->n_urls + 1) * sizeof *ps->urls);
	ps->set_of = xrealloc(ps->set_of, (ps->n_urls + spec->n_urls + 1) * sizeof *ps->set_of);
	ps->answer_len = xrealloc(ps->answer_len, (ps->n_urls + spec->n_urls + 1) * PROM_Q_COUNT * sizeof *ps->answer_len);
	memset(ps->answer_len + ps->n_urls * PROM_Q_COUNT, 0, (spec->n_urls + 1) * PROM_Q_COUNT * sizeof *ps->answer_len);
	for (size_t i = 0; i < spec->n_urls; i++) {
		ps->set_of[ps->n_urls] = ps->n_sets - 1;
		ps->urls[ps->n_urls++] = xstrdup(spec->urls[i]);
	}
	if (spec->bearer_token_file) {
		snprintf(what, sizeof what, "%s: token file", spec->name);
		if (!(set->bearer = read_secret(spec->bearer_token_file, what, err, err_len))) {
			return -1;
		}
	}
	if (spec->basic_auth_file) {
		snprintf(what, sizeof what, "%s: basic auth file", spec->name);
		if (!(set->userpwd = read_secret(spec->basic_auth_file, what, err, err_len))) {
			return -1;
		}
		if (!strchr(set->userpwd, ':')) {
			snprintf(err, err_len, "%s %s: expected user:password on the first line", what,
				 spec->basic_auth_file);
			return -1;
		}
	}
	return 0;
}

prometheus_source *prometheus_source_new(struct ev_loop *loop, const prometheus_source_config *cfg, char *err,
					 size_t err_len)
{
	static bool curl_ready;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(err, err_len, "cannot initialise libcurl");
			return NULL;
		}
		curl_ready = true;
	}
	prometheus_source *ps = xcalloc(1, sizeof *ps);
	ps->loop = loop;
	ps->cfg = *cfg;
	ps->cfg.sets = NULL; /* borrowed: copied into ps->sets below */
	if (cfg->n_urls) {
		prometheus_server_set cli = {
			"--from-prometheus", cfg->urls, cfg->n_urls, cfg->selector, cfg->node_label, cfg->ca_file,
			cfg->bearer_token_file, cfg->basic_auth_file, cfg->keep, cfg->keep_ctx,
		};
		if (add_set(ps, &cli, err, err_len) != 0) {
			prometheus_source_free(ps);
			return NULL;
		}
	}
	for (size_t i = 0; i < cfg->n_sets; i++) {
		if (add_set(ps, &cfg->sets[i], err, err_len) != 0) {
			prometheus_source_free(ps);
			return NULL;
		}
	}
	ps->multi = curl_multi_init();
	if (!ps->multi) {
		snprintf(err, err_len, "cannot initialise libcurl's multi interface");
		prometheus_source_free(ps);
		return NULL;
	}
	ev_timer_init(&ps->timer, on_timer, 0.0, 0.0);
	ps->timer.data = ps;
	ps->cpu_since = -1;
	curl_multi_setopt(ps->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(ps->multi, CURLMOPT_SOCKETDATA, ps);
	curl_multi_setopt(ps->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(ps->multi, CURLMOPT_TIMERDATA, ps);
	return ps;
}

void prometheus_source_free(prometheus_source *ps)
{
	if (!ps) {
		return;
	}
	for (size_t i = 0; i < ps->n_requests; i++) {
		request *r = &ps->requests[i];
		if (r->easy) {
			curl_multi_remove_handle(ps->multi, r->easy);
			curl_easy_cleanup(r->easy);
		}
		prom_vector_free(&r->answer);
		bytebuf_free(&r->body);
	}
	free(ps->requests);
	while (ps->jobs) {
		range_job *job = ps->jobs;
		ps->jobs = job->next;
		job->cb(job->ctx, NULL, "synctop stopped before the answer came"); /* its ctx is freed there */
		range_job_free(ps, job);
	}
	if (ps->multi) {
		ev_timer_stop(ps->loop, &ps->timer);
		curl_multi_cleanup(ps->multi);
	}
	for (size_t i = 0; i < ps->n_urls; i++) {
		free(ps->urls[i]);
	}
	free(ps->urls);
	free(ps->set_of);
	free(ps->answer_len);
	for (size_t i = 0; i < ps->n_sets; i++) {
		server_set *set = &ps->sets[i];
		free(set->selector);
		free(set->node_label);
		free(set->ca_file);
		if (set->bearer) {
			memset(set->bearer, 0, strlen(set->bearer));
		}
		if (set->userpwd) {
			memset(set->userpwd, 0, strlen(set->userpwd));
		}
		free(set->bearer);
		free(set->userpwd);
	}
	free(ps->sets);
	free(ps);
}

/* prometheus_map.c - Prometheus answers into nodes and observation parts
 * (prometheus_map.h). */
#include <config.h>

#include "prometheus_map.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xalloc.h"

/* ------------------------------------------------------------- the queries */

/* node_exporter collector/timex.go: the series synctop reads. */
#define TIMEX_SERIES \
	"node_timex_(sync_status|status|offset_seconds|maxerror_seconds|estimated_error_seconds|" \
	"frequency_adjustment_ratio|loop_time_constant|tick_seconds|tai_offset_seconds)"
/* SuperQ/chrony_exporter collector/collector.go (chrony_up),
 * collector/tracking.go and collector/sources.go. */
#define CHRONY_SERIES "chrony_(up|tracking_.+|sources_.+)"
/* openshift/linuxptp-daemon pkg/daemon/metrics.go: the gauges synctop reads. */
#define OPENSHIFT_PTP_SERIES \
	"openshift_ptp_(offset_ns|delay_ns|clock_class|interface_role|process_status|clock_state)"
/* docs/prometheus.md: synctop's per-node series, not the fleet's. */
#define SYNCTOP_SERIES \
	"synctop_(node_up|node_observation_timestamp_seconds|node_poll_rtt_seconds|part_up|chrony_.+|ptp_.+|" \
	"nic_.+|clock_check_.+)"

static const struct {
	const char *name;
	const char *head; /* a metric name, or a __name__ matcher */
	bool by_name;     /* head is a metric name: NAME{matchers} */
	const char *wrap; /* "timestamp" or NULL */
	const char *range; /* with wrap: a range selector inside it ("[10m]"), or NULL */
} queries[PROM_Q_COUNT] = {
	[PROM_Q_UP] = {"up", "up", true, NULL},
	[PROM_Q_UNAME] = {"node_uname_info", "node_uname_info", true, NULL},
	[PROM_Q_TIMEX] = {"timex", "__name__=~\"" TIMEX_SERIES "\"", false, NULL},
	[PROM_Q_TIMEX_TIME] = {"timex scrape times", "node_timex_status", true, "timestamp"},
	[PROM_Q_CHRONY] = {"chrony_exporter", "__name__=~\"" CHRONY_SERIES "\"", false, NULL},
	/* chrony_up: the one series chrony_exporter sends at every scrape */
	[PROM_Q_CHRONY_TIME] = {"chrony_exporter scrape times", "chrony_up", true, "timestamp"},
	[PROM_Q_SYNCTOP] = {"synctop textfile", "__name__=~\"" SYNCTOP_SERIES "\"", false, NULL},
	[PROM_Q_OPENSHIFT_PTP] = {"linuxptp-daemon", "__name__=~\"" OPENSHIFT_PTP_SERIES "\"", false, NULL},
	/* process_status: set for ptp4l and phc2sys whenever the daemon runs them */
	[PROM_Q_OPENSHIFT_TIME] = {"linuxptp-daemon scrape times", "openshift_ptp_process_status", true,
				   "timestamp"},
	/* Which nodes each target served in the last 10 minutes: a target that
	 * fails its scrape has its series marked stale at once, so the nodes
	 * named by a `node` label it served are known only from before. */
	[PROM_Q_SERVED] = {"nodes each target served", "__name__=~\"synctop_node_up|openshift_ptp_process_status\"",
			   false, "group by (instance, node) (last_over_time", "[10m]"},
};

const char *prometheus_map_query_name(prom_query_id id)
{
	return id < PROM_Q_COUNT ? queries[id].name : "?";
}

int prometheus_map_check_selector(const char *selector, char *err, size_t err_len)
{
	size_t n = strlen(selector);
	if (n == 0) {
		return 0;
	}
	if (n < 2 || selector[0] != '{' || selector[n - 1] != '}') {
		snprintf(err, err_len, "expected label matchers in braces, e.g. '{job=\"node\",cluster=\"a\"}'");
		return -1;
	}
	if (n > PROM_SELECTOR_MAX) {
		snprintf(err, err_len, "longer than %d characters", PROM_SELECTOR_MAX);
		return -1;
	}
	return 0;
}

int prometheus_map_query(prom_query_id id, const char *selector, char *buf, size_t len)
{
	if (id >= PROM_Q_COUNT) {
		return -1;
	}
	/* the matchers inside the selector's braces, "" when none */
	size_t n = strlen(selector);
	const char *inner = n >= 2 ? selector + 1 : "";
	int inner_len = n >= 2 ? (int)(n - 2) : 0;
	const char *sep = inner_len > 0 ? "," : "";
	int w;
	if (queries[id].by_name) {
		w = snprintf(buf, len, "%s%s%s{%.*s}%s", queries[id].wrap ? queries[id].wrap : "",
			     queries[id].wrap ? "(" : "", queries[id].head, inner_len, inner, queries[id].wrap ? ")" : "");
	} else if (queries[id].wrap) {
		w = snprintf(buf, len, "%s({%s%s%.*s}%s))", queries[id].wrap, queries[id].head, sep, inner_len, inner,
			     queries[id].range ? queries[id].range : "");
	} else {
		w = snprintf(buf, len, "{%s%s%.*s}", queries[id].head, sep, inner_len, inner);
	}
	return w < 0 || (size_t)w >= len ? -1 : w;
}

/* -------------------------------------------------------------- the nodes */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	}
	return h;
}

static uint64_t digest_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

/* One sample about a node, in the order the answers are read: the node's
 * observation is put together from its samples only when it is asked for
 * (prometheus_map_node), so a refresh of 10,000 nodes holds their samples,
 * not 10,000 observations of 31 KiB each beside the model's own. */
typedef struct {
	const prom_sample *s;
	size_t next;          /* the node's next sample: its index + 1, 0 for none */
	prom_query_id query;
} prom_ref;

typedef struct {
	char *name;
	const char *instance;     /* the `instance` of its first sample, or "" */
	size_t first, last;       /* its samples: index + 1 into refs, 0 for none */
	const prom_sample *down;  /* the `up` == 0 sample of a target it is served by */
	uint64_t digest;          /* of its samples' digests, in refs' order (prometheus_map_digest) */
	bool dated;               /* one of them is a finite scrape time */
} prom_entry;

/* The instance -> nodename join (node_label "nodename"), hashed. */
typedef struct {
	const char *instance, *nodename;
} uname_slot;

struct prom_index {
	prom_map_options opt;
	const prom_vector *answers[PROM_Q_COUNT];
	prom_vector owned[PROM_Q_COUNT]; /* prometheus_map_build_owning's answers */
	prom_entry *entries;
	size_t cap;
	prom_ref *refs;
	size_t n_refs, refs_cap;
	uname_slot *unames;
	size_t n_unames;          /* slots: a power of two, or 0 */
	prom_node *scratch;       /* the node put together last */
	size_t in_scratch;        /* its index + 1, 0 for none */
};

static const char *name_at(const prom_map *m, size_t i)
{
	return m->ix ? m->ix->entries[i].name : m->nodes[i].name;
}

static size_t *slot_of(const prom_map *m, const char *name)
{
	size_t mask = m->n_slots - 1;
	for (size_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
		if (m->slots[i] == 0 || strcmp(name_at(m, m->slots[i] - 1), name) == 0) {
			return &m->slots[i];
		}
	}
}

static void grow_index(prom_map *m)
{
	size_t want = m->n_slots ? m->n_slots * 2 : 64;
	free(m->slots);
	m->slots = xcalloc(want, sizeof *m->slots);
	m->n_slots = want;
	for (size_t i = 0; i < m->n_nodes; i++) {
		*slot_of(m, name_at(m, i)) = i + 1;
	}
}

/* The node's index + 1, or 0. */
static size_t find_index(const prom_map *m, const char *name)
{
	if (m->n_slots == 0 || !*name) {
		return 0;
	}
	return *slot_of(m, name);
}

const prom_node *prometheus_map_find(const prom_map *m, const char *name)
{
	size_t idx = find_index(m, name);
	return idx ? prometheus_map_node(m, idx - 1) : NULL;
}

const char *prometheus_map_name(const prom_map *m, size_t i)
{
	return i < m->n_nodes ? name_at(m, i) : NULL;
}

/* The nodes' mapping, grown to hold want: mremap moves pages, it copies none. */
static void grow_nodes(prom_map *m, size_t want)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	while (cap < want) {
		cap *= 2;
	}
	void *p = m->nodes ? mremap(m->nodes, m->cap * sizeof *m->nodes, cap * sizeof *m->nodes, MREMAP_MAYMOVE)
			   : mmap(NULL, cap * sizeof *m->nodes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				  0);
	if (p == MAP_FAILED) {
		xalloc_fail(cap * sizeof *m->nodes);
	}
	m->nodes = p;
	m->cap = cap;
}

void prometheus_map_release_before(prom_map *m, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t end = (n < m->n_nodes ? n : m->n_nodes) * sizeof *m->nodes / page * page;
	if (!m->nodes || end <= m->released) {
		return;
	}
	madvise((char *)m->nodes + m->released, end - m->released, MADV_DONTNEED);
	m->released = end;
}

static bool usable_name(prom_map *m, const char *name)
{
	if (!*name || strlen(name) >= NODE_NAME_LEN) {
		m->unnamed++;
		return false;
	}
	if ((m->n_nodes + 1) * 2 > m->n_slots) {
		grow_index(m);
	}
	return true;
}

/* The entry of name, added on first sight: its index + 1, 0 for a name no
 * node can have. */
static size_t entry_get(prom_map *m, const char *name, const char *instance)
{
	if (!usable_name(m, name)) {
		return 0;
	}
	size_t *slot = slot_of(m, name);
	size_t known = *slot;
	if (known > 0) {
		return known;
	}
	prom_index *ix = m->ix;
	if (m->n_nodes == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 64;
		ix->entries = xrealloc(ix->entries, ix->cap * sizeof *ix->entries);
	}
	prom_entry *e = &ix->entries[m->n_nodes];
	e->name = xstrdup(name);
	e->instance = instance ? instance : "";
	e->first = e->last = 0;
	e->down = NULL;
	e->digest = 0;
	e->dated = false;
	*slot = ++m->n_nodes;
	return *slot;
}

static void entry_add(prom_map *m, size_t idx, prom_query_id q, const prom_sample *s)
{
	prom_index *ix = m->ix;
	prom_entry *e = &ix->entries[idx - 1];
	if (ix->n_refs == ix->refs_cap) {
		ix->refs_cap = ix->refs_cap ? ix->refs_cap * 2 : 1024;
		ix->refs = xrealloc(ix->refs, ix->refs_cap * sizeof *ix->refs);
	}
	prom_ref *r = &ix->refs[ix->n_refs++];
	r->s = s;
	r->next = 0;
	r->query = q;
	if (e->last) {
		ix->refs[e->last - 1].next = ix->n_refs;
	} else {
		e->first = ix->n_refs;
	}
	e->last = ix->n_refs;
	/* here, while the samples are read in order: from the node's list
	 * later, each would be a cache miss (10,000 nodes: 200,000) */
	e->digest = digest_mix(digest_mix(e->digest, (uint64_t)q + 1), s->digest);
	/* put_together's note_time: a scrape time dates the observation */
	e->dated |= (q == PROM_Q_TIMEX_TIME || q == PROM_Q_CHRONY_TIME || q == PROM_Q_OPENSHIFT_TIME) && isfinite(s->value);
}

/* An eager map's node (prometheus_map_adopt), added on first sight. */
static prom_node *node_get(prom_map *m, const char *name, const char *instance)
{
	if (!usable_name(m, name)) {
		return NULL;
	}
	size_t *slot = slot_of(m, name);
	if (*slot) {
		return &m->nodes[*slot - 1];
	}
	if (m->n_nodes == m->cap || !m->nodes) {
		grow_nodes(m, m->n_nodes + 1);
	}
	prom_node *pn = &m->nodes[m->n_nodes];
	memset(pn, 0, sizeof *pn);
	snprintf(pn->name, sizeof pn->name, "%s", name);
	snprintf(pn->instance, sizeof pn->instance, "%s", instance ? instance : "");
	observation_init(&pn->obs);
	*slot = ++m->n_nodes;
	return pn;
}

/* s's first n bytes (at most), cut to fit cap with its NUL: snprintf's
 * "%.*s" without its cost (a call per sample). */
static void copy_span(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap) {
		n = cap - 1;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static void copy_text(char *dst, size_t cap, const char *s)
{
	copy_span(dst, cap, s, strnlen(s, cap));
}

void prometheus_map_strip_port(const char *instance, char *out, size_t len)
{
	const char *colon = strrchr(instance, ':');
	if (instance[0] == '[') {
		const char *close = strchr(instance, ']');
		if (close) {
			copy_span(out, len, instance + 1, (size_t)(close - instance - 1));
			return;
		}
	}
	if (colon && memchr(instance, ':', (size_t)(colon - instance)) == NULL) {
		copy_span(out, len, instance, (size_t)(colon - instance));
		return;
	}
	copy_text(out, len, instance);
}

typedef struct {
	const prom_map_options *opt;
	const prom_index *ix; /* its unames, for node_label "nodename" */
} naming;

static uname_slot *uname_slot_of(const prom_index *ix, const char *instance)
{
	size_t mask = ix->n_unames - 1;
	for (size_t i = hash_name(instance) & mask;; i = (i + 1) & mask) {
		if (!ix->unames[i].instance || strcmp(ix->unames[i].instance, instance) == 0) {
			return &ix->unames[i];
		}
	}
}

/* node_uname_info's nodename by instance, the first one of each: a lookup
 * per sample, not a scan of every node's uname. */
static void index_unames(prom_index *ix, const prom_vector *uname)
{
	size_t want = 64;
	while (uname && want < uname->n_samples * 2) {
		want *= 2;
	}
	ix->unames = xcalloc(want, sizeof *ix->unames);
	ix->n_unames = want;
	for (size_t i = 0; uname && i < uname->n_samples; i++) {
		const prom_sample *u = &uname->samples[i];
		const char *ui = prom_sample_label(u, "instance");
		const char *nodename = prom_sample_label(u, "nodename");
		if (ui && nodename && *nodename) {
			uname_slot *slot = uname_slot_of(ix, ui);
			if (!slot->instance) {
				slot->instance = ui;
				slot->nodename = nodename;
			}
		}
	}
}

/* The node an exporter's sample is about (node_exporter, chrony_exporter,
 * up): false when there is none. */
static bool exporter_node_name(const naming *nm, const prom_sample *s, char *out, size_t len)
{
	const char *instance = prom_sample_label(s, "instance");
	const char *label = nm->opt->node_label;
	if (label && strcmp(label, "nodename") == 0 && instance && nm->ix->n_unames) {
		const uname_slot *slot = uname_slot_of(nm->ix, instance);
		if (slot->instance) {
			snprintf(out, len, "%s", slot->nodename);
			return true;
		}
	} else if (label && strcmp(label, "nodename") != 0) {
		const char *v = prom_sample_label(s, label);
		if (v && *v) {
			snprintf(out, len, "%s", v);
			return true;
		}
	}
	if (!instance || !*instance) {
		return false;
	}
	prometheus_map_strip_port(instance, out, len);
	return out[0] != '\0';
}


static const char *metric_name(const prom_sample *s)
{
	const char *name = prom_sample_label(s, "__name__");
	return name ? name : "";
}

static void note_time(prom_node *pn, double t)
{
	if (isfinite(t) && (isnan(pn->obs.taken_at) || t > pn->obs.taken_at)) {
		pn->obs.taken_at = t;
	}
}

/* A gauge's value as an int field: whole and in range, else unknown. */
static int as_int(double v)
{
	if (!isfinite(v) || v != floor(v) || v < -2147483647.0 || v > 2147483647.0) {
		return INT_UNKNOWN;
	}
	return (int)v;
}

static int64_t as_ns(double seconds)
{
	double ns = seconds * 1e9;
	if (!isfinite(ns) || fabs(ns) > 9e18) {
		return PTP_NS_UNKNOWN;
	}
	return (int64_t)llround(ns);
}

/* A non-finite gauge (NaN, +-Inf) says nothing a field can hold. */
static double finite_or_nan(double v)
{
	return isfinite(v) ? v : NAN;
}

/* Sets a part answered unless something (synctop_part_up, chrony_up) said
 * it failed. */
static void part_seen(obs_state *state)
{
	if (*state == OBS_NOT_COLLECTED) {
		*state = OBS_OK;
	}
}

/* -------------------------------------------------- node_exporter's timex */

static void map_timex(prom_node *pn, const prom_sample *s)
{
	kernel_clock_obs *k = &pn->obs.kernel;
	const char *name = metric_name(s) + strlen("node_timex_");
	double v = s->value;
	if (strncmp(metric_name(s), "node_timex_", 11) != 0) {
		return;
	}
	k->state = OBS_OK;
	pn->has_data = true;
	if (strcmp(name, "sync_status") == 0) {
		k->synchronised = v == 1 ? 1 : v == 0 ? 0 : INT_UNKNOWN;
	} else if (strcmp(name, "status") == 0) {
		k->status = as_int(v);
	} else if (strcmp(name, "offset_seconds") == 0) {
		k->offset_s = isfinite(v) ? -v : NAN; /* reference - node in the kernel */
	} else if (strcmp(name, "maxerror_seconds") == 0) {
		k->max_error_s = finite_or_nan(v);
	} else if (strcmp(name, "estimated_error_seconds") == 0) {
		k->est_error_s = finite_or_nan(v);
	} else if (strcmp(name, "frequency_adjustment_ratio") == 0) {
		k->freq_adjust_ppm = isfinite(v) ? (v - 1.0) * 1e6 : NAN;
	} else if (strcmp(name, "loop_time_constant") == 0) {
		k->time_constant = as_int(v);
	} else if (strcmp(name, "tick_seconds") == 0) {
		k->tick_s = finite_or_nan(v);
	} else if (strcmp(name, "tai_offset_seconds") == 0) {
		k->tai_offset_s = as_int(v);
	}
}

/* ------------------------------------------------------- chrony_exporter */

/* SuperQ/chrony_exporter collector/tracking.go: chronyd's tracking report
 * as its protocol sends it.  system_time_seconds is chrony's pending
 * correction (positive = the clock is slow, as `chronyc tracking` says);
 * last_offset_seconds has chronyc's CSV sign (collectors/chrony_parse.c). */
/* chrony_exporter's source_state (facebook/time ntp/chrony packet.go
 * SourceStateDesc, in chrony's RPY_SD_ST_* order) as chronyc's letter
 * (client.c process_cmd_sources): sync '*', unreach '?', falseticker 'x',
 * jittery '~', candidate '+' (RPY_SD_ST_UNSELECTED), outlier '-'
 * (RPY_SD_ST_SELECTABLE). */
static chrony_source_state chrony_exporter_state(const char *name)
{
	static const struct {
		const char *name;
		chrony_source_state state;
	} states[] = {
		{"sync", CHRONY_STATE_SELECTED},       {"unreach", CHRONY_STATE_UNUSABLE},
		{"falseticker", CHRONY_STATE_FALSETICKER}, {"jittery", CHRONY_STATE_JITTERY},
		{"candidate", CHRONY_STATE_COMBINED},  {"outlier", CHRONY_STATE_NOT_COMBINED},
	};
	for (size_t i = 0; name && i < sizeof states / sizeof states[0]; i++) {
		if (strcmp(states[i].name, name) == 0) {
			return states[i].state;
		}
	}
	return CHRONY_STATE_UNKNOWN;
}

/* ModeTypeDesc in the same file: "client", "peer", "reference clock". */
static chrony_source_mode chrony_exporter_mode(const char *name)
{
	if (!name) {
		return CHRONY_MODE_UNKNOWN;
	}
	if (strcmp(name, "client") == 0) {
		return CHRONY_MODE_SERVER;
	}
	if (strcmp(name, "peer") == 0) {
		return CHRONY_MODE_PEER;
	}
	return strcmp(name, "reference clock") == 0 ? CHRONY_MODE_REFCLOCK : CHRONY_MODE_UNKNOWN;
}

/* The source a chrony_sources_* sample is about, added on first sight;
 * NULL beyond what the part holds (counted in n_sources_total).  Every
 * series of one source carries the same source_address and source_name. */
static chrony_source *chrony_exporter_source(prom_node *pn, const prom_sample *s, int *index)
{
	chrony_obs *c = &pn->obs.chrony;
	const char *addr = prom_sample_label(s, "source_address");
	const char *name = prom_sample_label(s, "source_name");
	const char *key = name && *name ? name : addr;
	if (!key || !*key) {
		return NULL;
	}
	for (int i = 0; i < c->n_sources; i++) {
		if (strncmp(c->sources[i].name, key, sizeof c->sources[i].name - 1) == 0) {
			*index = i;
			return &c->sources[i];
		}
	}
	c->n_sources_total++;
	if (c->n_sources >= CHRONY_MAX_SOURCES) {
		return NULL;
	}
	*index = c->n_sources;
	chrony_source *src = &c->sources[c->n_sources++];
	memset(src, 0, sizeof *src);
	snprintf(src->name, sizeof src->name, "%s", key);
	src->stratum = INT_UNKNOWN;
	src->poll = INT_UNKNOWN;
	src->last_rx_s = -1;
	src->adjusted_offset_s = src->measured_offset_s = src->error_s = NAN;
	return src;
}

/* collector/sources.go: one series per value and source.  The reach
 * register comes as reachability_ratio (its set bits / 8) and
 * reachability_success (its newest bit): the count is exact, the order of
 * the older bits is not sent, so they are laid out newest first (the
 * chrony.reach rule counts missed polls, it does not read the order). */
static void map_chrony_exporter_source(prom_node *pn, const char *name, const prom_sample *s)
{
	int i = 0;
	chrony_source *src = chrony_exporter_source(pn, s, &i);
	double v = s->value;
	if (!src) {
		return;
	}
	if (strcmp(name, "state_info") == 0) {
		src->state = chrony_exporter_state(prom_sample_label(s, "source_state"));
		src->mode = chrony_exporter_mode(prom_sample_label(s, "source_mode"));
		if (src->state != CHRONY_STATE_UNKNOWN) {
			pn->chrony_src_state |= 1u << i;
		}
	} else if (strcmp(name, "reachability_ratio") == 0) {
		if (isfinite(v) && v >= 0 && v <= 1) {
			pn->chrony_src_answered[i] = (unsigned char)(lround(v * 8) + 1);
		}
	} else if (strcmp(name, "reachability_success") == 0) {
		if (v == 0 || v == 1) {
			pn->chrony_src_newest[i] = (unsigned char)(v + 1);
		}
	} else if (strcmp(name, "stratum") == 0) {
		src->stratum = as_int(v);
	} else if (strcmp(name, "polling_interval_seconds") == 0) {
		src->poll = isfinite(v) && v > 0 ? (int)lround(log2(v)) : INT_UNKNOWN;
	} else if (strcmp(name, "last_sample_age_seconds") == 0) {
		/* chronyd sends 2^32 - 1 for a source never sampled */
		src->last_rx_s = isfinite(v) && v >= 0 && v < 4294967295.0 ? (int64_t)v : -1;
	} else if (strcmp(name, "last_sample_offset_seconds") == 0) {
		src->adjusted_offset_s = finite_or_nan(v); /* LatestMeas: chronyc's adjusted offset */
	} else if (strcmp(name, "last_sample_error_margin_seconds") == 0) {
		src->error_s = finite_or_nan(v);
	}
}

static void map_chrony_exporter(prom_node *pn, const prom_sample *s)
{
	chrony_tracking *t = &pn->obs.chrony.tracking;
	const char *full = metric_name(s);
	double v = s->value;
	if (strcmp(full, "chrony_up") == 0) {
		pn->has_data = true;
		if (v == 0) {
			pn->obs.chrony.state = OBS_COMMAND_FAILED;
			snprintf(pn->obs.chrony.error, sizeof pn->obs.chrony.error,
				 "chrony_exporter cannot talk to chronyd (chrony_up 0): is chronyd running, its "
				 "command socket reachable?");
		} else {
			part_seen(&pn->obs.chrony.state);
		}
		return;
	}
	if (strncmp(full, "chrony_sources_", 15) == 0) {
		part_seen(&pn->obs.chrony.state);
		pn->has_data = true;
		map_chrony_exporter_source(pn, full + 15, s);
		return;
	}
	if (strncmp(full, "chrony_tracking_", 16) != 0) {
		return;
	}
	const char *name = full + 16;
	part_seen(&pn->obs.chrony.state);
	pn->has_data = true;
	if (strcmp(name, "system_time_seconds") == 0) {
		t->system_time_offset_s = isfinite(v) ? -v : NAN;
	} else if (strcmp(name, "last_offset_seconds") == 0) {
		t->last_offset_s = finite_or_nan(v);
	} else if (strcmp(name, "rms_offset_seconds") == 0) {
		t->rms_offset_s = finite_or_nan(v);
	} else if (strcmp(name, "frequency_ppms") == 0) {
		t->frequency_ppm = finite_or_nan(v);
	} else if (strcmp(name, "residual_frequency_ppms") == 0) {
		t->residual_frequency_ppm = finite_or_nan(v);
	} else if (strcmp(name, "skew_ppms") == 0) {
		t->skew_ppm = finite_or_nan(v);
	} else if (strcmp(name, "root_delay_seconds") == 0) {
		t->root_delay_s = finite_or_nan(v);
	} else if (strcmp(name, "root_dispersion_seconds") == 0) {
		t->root_dispersion_s = finite_or_nan(v);
	} else if (strcmp(name, "update_interval_seconds") == 0) {
		t->update_interval_s = finite_or_nan(v);
	} else if (strcmp(name, "reference_timestamp_seconds") == 0) {
		t->ref_time = finite_or_nan(v);
	} else if (strcmp(name, "stratum") == 0) {
		t->stratum = as_int(v);
	} else if (strcmp(name, "info") == 0) {
		const char *refid = prom_sample_label(s, "tracking_refid");
		const char *ref_name = prom_sample_label(s, "tracking_name");
		char *end = NULL;
		unsigned long id = refid ? strtoul(refid, &end, 16) : 0;
		if (refid && *refid && end && *end == '\0' && id <= 0xFFFFFFFFul) {
			t->reference_id = (uint32_t)id;
			t->has_reference_id = true;
		}
		if (ref_name) {
			snprintf(t->reference_name, sizeof t->reference_name, "%s", ref_name);
		}
	}
}

/* chrony_exporter has no leap status: chronyd reports stratum 0 exactly
 * when it is unsynchronised (observation.h chrony_tracking_has_reference);
 * otherwise the leap second the kernel was told (chronyd's default
 * leapsecmode system), else normal. */
static void settle_chrony_exporter_leap(prom_node *pn)
{
	chrony_tracking *t = &pn->obs.chrony.tracking;
	const kernel_clock_obs *k = &pn->obs.kernel;
	if (t->leap != CHRONY_LEAP_UNKNOWN || t->stratum == INT_UNKNOWN) {
		return;
	}
	if (t->stratum == 0) {
		t->leap = CHRONY_LEAP_UNSYNC;
	} else if (k->state == OBS_OK && k->status != INT_UNKNOWN && (k->status & KERNEL_STA_INS)) {
		t->leap = CHRONY_LEAP_INSERT;
	} else if (k->state == OBS_OK && k->status != INT_UNKNOWN && (k->status & KERNEL_STA_DEL)) {
		t->leap = CHRONY_LEAP_DELETE;
	} else {
		t->leap = CHRONY_LEAP_NORMAL;
	}
}

/* chrony_exporter's chrony_sources_* (its sources collector, off by
 * default) list chronyd's sources; a source whose state or reach did not
 * come is dropped and counted as one not held.  Without that list (only
 * tracking, or synctop's textfile) the part holds no source and says how
 * many there are (synctop's selection series name each), else that there
 * is at least one it does not hold, so the rules that need the list know it
 * is missing rather than empty (observation.h n_sources_total). */
static void settle_chrony_sources(prom_node *pn)
{
	observation *obs = &pn->obs;
	chrony_obs *c = &obs->chrony;
	if (c->state != OBS_OK) {
		return;
	}
	if (c->n_sources_total > 0) {
		int kept = 0;
		for (int i = 0; i < c->n_sources; i++) {
			int answered = pn->chrony_src_answered[i] - 1;
			if (!(pn->chrony_src_state & (1u << i)) || answered < 0) {
				continue;
			}
			chrony_source *src = &c->sources[i];
			src->reach = answered >= 8 ? 0377u : (1u << answered) - 1u;
			if (pn->chrony_src_newest[i] == 1 && answered > 0 && answered < 8) {
				src->reach <<= 1; /* the newest poll went unanswered */
			}
			c->sources[kept++] = *src;
		}
		c->n_sources = kept; /* n_sources_total still counts the dropped */
		return;
	}
	c->n_sources = 0;
	c->n_sources_total = obs->selection.n_sources_total > 0 ? obs->selection.n_sources_total : 1;
}

/* ----------------------------------------------------- synctop's textfile */

static obs_state *part_state_named(observation *obs, const char *part, char **error, size_t *error_len)
{
	static const struct {
		const char *name;
		size_t state_off, error_off, error_len;
	} parts[] = {
		{"chrony", offsetof(observation, chrony.state), offsetof(observation, chrony.error), OBS_ERROR_LEN},
		{"chrony_selection", offsetof(observation, selection.state), offsetof(observation, selection.error),
		 OBS_ERROR_LEN},
		{"ptp", offsetof(observation, ptp.state), offsetof(observation, ptp.error), OBS_ERROR_LEN},
		{"nic", offsetof(observation, nic.state), offsetof(observation, nic.error), OBS_ERROR_LEN},
		{"clock_check", offsetof(observation, clock.state), offsetof(observation, clock.error), OBS_ERROR_LEN},
	};
	for (size_t i = 0; part && i < sizeof parts / sizeof parts[0]; i++) {
		if (strcmp(parts[i].name, part) == 0) {
			*error = (char *)obs + parts[i].error_off;
			*error_len = parts[i].error_len;
			return (obs_state *)((char *)obs + parts[i].state_off);
		}
	}
	return NULL;
}

static chrony_leap leap_from_number(double v)
{
	switch (as_int(v)) {
	case 0: return CHRONY_LEAP_NORMAL;
	case 1: return CHRONY_LEAP_INSERT;
	case 2: return CHRONY_LEAP_DELETE;
	case 3: return CHRONY_LEAP_UNSYNC;
	default: return CHRONY_LEAP_UNKNOWN;
	}
}

static ptp_port_state port_state_named(const char *name)
{
	for (int st = PTP_PORT_INITIALIZING; name && st <= PTP_PORT_GRAND_MASTER; st++) {
		if (strcmp(ptp_port_state_name((ptp_port_state)st), name) == 0) {
			return (ptp_port_state)st;
		}
	}
	return PTP_PORT_UNKNOWN;
}

static void map_synctop_chrony(observation *obs, const char *name, double v)
{
	chrony_tracking *t = &obs->chrony.tracking;
	part_seen(&obs->chrony.state);
	if (strcmp(name, "offset_seconds") == 0) {
		t->system_time_offset_s = finite_or_nan(v);
	} else if (strcmp(name, "last_offset_seconds") == 0) {
		t->last_offset_s = finite_or_nan(v);
	} else if (strcmp(name, "rms_offset_seconds") == 0) {
		t->rms_offset_s = finite_or_nan(v);
	} else if (strcmp(name, "frequency_ratio") == 0) {
		t->frequency_ppm = isfinite(v) ? v * 1e6 : NAN;
	} else if (strcmp(name, "skew_ratio") == 0) {
		t->skew_ppm = isfinite(v) ? v * 1e6 : NAN;
	} else if (strcmp(name, "root_delay_seconds") == 0) {
		t->root_delay_s = finite_or_nan(v);
	} else if (strcmp(name, "root_dispersion_seconds") == 0) {
		t->root_dispersion_s = finite_or_nan(v);
	} else if (strcmp(name, "update_interval_seconds") == 0) {
		t->update_interval_s = finite_or_nan(v);
	} else if (strcmp(name, "stratum") == 0) {
		t->stratum = as_int(v);
	} else if (strcmp(name, "leap_status") == 0) {
		t->leap = leap_from_number(v);
	}
}

static void map_synctop_selection(observation *obs, const prom_sample *s)
{
	chrony_selection *sel = &obs->selection;
	const char *source = prom_sample_label(s, "source");
	const char *state = prom_sample_label(s, "state");
	part_seen(&sel->state);
	sel->n_sources_total++;
	if (!source || !state || strlen(state) != 1 || sel->n_sources >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_select_source *src = &sel->sources[sel->n_sources++];
	memset(src, 0, sizeof *src);
	src->state = state[0];
	snprintf(src->name, sizeof src->name, "%s", source);
	src->last_sample_ago_s = -1;
	src->score = NAN;
	src->interval_lo_s = src->interval_hi_s = NAN;
}

static void map_synctop_ptp(observation *obs, const char *name, const prom_sample *s)
{
	ptp_obs *p = &obs->ptp;
	double v = s->value;
	if (strcmp(name, "phc_sys_offset_seconds") == 0) {
		/* shown, not judged: who steers the system clock was not exported */
		part_seen(&obs->phc.state);
		obs->phc.reported_sys_minus_phc_ns = as_ns(v);
		return;
	}
	part_seen(&p->state);
	if (strcmp(name, "gm_clock_class") == 0) {
		p->gm_clock_class = as_int(v);
	} else if (strcmp(name, "offset_seconds") == 0) {
		p->offset_from_master_ns = as_ns(v);
	} else if (strcmp(name, "mean_path_delay_seconds") == 0) {
		p->mean_path_delay_ns = as_ns(v);
	} else if (strcmp(name, "steps_removed") == 0) {
		p->steps_removed = as_int(v);
	} else if (strcmp(name, "gm_present") == 0) {
		p->gm_present = v == 1 ? 1 : v == 0 ? 0 : INT_UNKNOWN;
	} else if (strcmp(name, "grandmaster_info") == 0) {
		const char *gm = prom_sample_label(s, "grandmaster");
		if (gm) {
			snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm);
		}
	} else if (strcmp(name, "port_state") == 0 && p->n_ports < PTP_MAX_PORTS) {
		const char *port = prom_sample_label(s, "port");
		ptp_port *pp = &p->ports[p->n_ports++];
		pp->state = port_state_named(prom_sample_label(s, "state"));
		pp->port_number = port ? as_int(strtod(port, NULL)) : INT_UNKNOWN;
	}
}

/* A synctop_* sample of the node its `node` label names (index_sample). */
static void map_synctop(prom_node *pn, const prom_sample *s)
{
	const char *full = metric_name(s);
	observation *obs = &pn->obs;
	const char *name = full + 8;
	double v = s->value;
	pn->has_data = true;
	if (strcmp(name, "node_up") == 0) {
		if (v == 0) {
			snprintf(pn->error, sizeof pn->error,
				 "synctop (exporting through %s) could not poll this node at its last sweep",
				 pn->instance[0] ? pn->instance : "its textfile");
		}
	} else if (strcmp(name, "node_observation_timestamp_seconds") == 0) {
		/* synctop's own clock when the node last answered: its age */
		if (isfinite(v)) {
			obs->taken_at = v;
		}
	} else if (strcmp(name, "node_poll_rtt_seconds") == 0) {
		obs->rtt_s = finite_or_nan(v);
	} else if (strcmp(name, "part_up") == 0) {
		char *error = NULL;
		size_t error_len = 0;
		obs_state *st = part_state_named(obs, prom_sample_label(s, "part"), &error, &error_len);
		if (st && v == 0) {
			*st = OBS_COMMAND_FAILED;
			snprintf(error, error_len, "failing at synctop's last poll (its own --check says why)");
		} else if (st && v == 1) {
			*st = OBS_OK;
		}
	} else if (strcmp(name, "chrony_source_selection") == 0) {
		map_synctop_selection(obs, s);
	} else if (strncmp(name, "chrony_", 7) == 0) {
		map_synctop_chrony(obs, name + 7, v);
	} else if (strncmp(name, "ptp_", 4) == 0) {
		map_synctop_ptp(obs, name + 4, s);
	} else if (strcmp(name, "nic_hardware_timestamping") == 0) {
		/* 1 says hardware both ways; 0 does not say what there is instead */
		const char *iface = prom_sample_label(s, "interface");
		if (v == 1) {
			part_seen(&obs->nic.state);
			obs->nic.caps = NIC_CAP_HW_TX | NIC_CAP_HW_RX;
			snprintf(obs->nic.interface, sizeof obs->nic.interface, "%s", iface ? iface : "");
		}
	} else if (strcmp(name, "clock_check_offset_seconds") == 0) {
		part_seen(&obs->clock.state);
		obs->clock.offset_s = finite_or_nan(v);
		obs->clock.exchanges = 1;
	} else if (strcmp(name, "clock_check_uncertainty_seconds") == 0) {
		part_seen(&obs->clock.state);
		obs->clock.uncertainty_s = finite_or_nan(v);
	} else if (strcmp(name, "clock_check_timestamp_seconds") == 0) {
		part_seen(&obs->clock.state);
		obs->clock.measured_at = finite_or_nan(v);
	}
}

/* ---------------------------------------------- OpenShift linuxptp-daemon */

/* pkg/daemon/metrics.go ptpPortRole, openshift_ptp_interface_role's help:
 * 0 PASSIVE, 1 SLAVE, 2 MASTER, 3 FAULTY, 4 UNKNOWN, 5 LISTENING. */
static ptp_port_state openshift_role(double v)
{
	switch (as_int(v)) {
	case 0: return PTP_PORT_PASSIVE;
	case 1: return PTP_PORT_SLAVE;
	case 2: return PTP_PORT_MASTER;
	case 3: return PTP_PORT_FAULTY;
	case 5: return PTP_PORT_LISTENING;
	default: return PTP_PORT_UNKNOWN;
	}
}

/* linuxptp-daemon pkg/daemon/metrics.go: faultyOffset, and ClockState's values. */
#define OPENSHIFT_FAULTY_OFFSET 999999.0
enum { OPENSHIFT_FREERUN = 0, OPENSHIFT_LOCKED = 1, OPENSHIFT_HOLDOVER = 2 };

static bool label_is(const prom_sample *s, const char *label, const char *want)
{
	const char *v = prom_sample_label(s, label);
	return v && strcmp(v, want) == 0;
}

/* linuxptp-daemon reads ptp4l's and phc2sys's log lines and pmc's
 * PARENT_DATA_SET (pkg/daemon/metrics.go extractMetrics, pmc.go
 * handleParentDS), labelling every series with its Kubernetes `node`:
 *   offset_ns{from="master",process="ptp4l"}   ptp4l's "master offset":
 *                                              offsetFromMaster, ns
 *   delay_ns{from="master",process="ptp4l"}    its "path delay", ns
 *   offset_ns{from="phc",process="phc2sys",iface="CLOCK_REALTIME"}
 *                                              phc2sys's "CLOCK_REALTIME phc
 *                                              offset": system - PHC on the
 *                                              UTC timescale (read_phc: dst
 *                                              minus src), ns
 *   clock_class{process="ptp4l"}               the grandmaster's clockClass
 *   interface_role{process="ptp4l",iface}      each port's role
 *   process_status{process,config}             0 down, 1 up
 *   clock_state{process="ptp4l",iface}         the servo: 0 FREERUN, 1 LOCKED,
 *                                              2 HOLDOVER, 3 other (metrics.go
 *                                              ClockState's help; event.go
 *                                              UpdateClockStateMetrics);
 *                                              ptp4l's log line servo state
 *                                              s0/s1 is FREERUN, s2/s3
 *                                              LOCKED (extractRegularMetrics)
 * When ptp4l's slave port turns FAULTY, linuxptp-daemon writes faultyOffset
 * (999999, metrics.go) as ptp4l's master offset and phc2sys's offset, with a
 * path delay of 0 (extractPTP4lEventState -> updatePTPMetrics): a marker, not
 * a measurement, read as unknown. */
static void map_openshift_ptp(prom_node *pn, const prom_sample *s)
{
	const char *full = metric_name(s);
	observation *obs = &pn->obs;
	ptp_obs *p = &obs->ptp;
	const char *name = full + 14;
	const char *iface = prom_sample_label(s, "iface");
	const char *config = prom_sample_label(s, "config");
	double v = s->value;
	pn->has_data = true;
	if (strcmp(name, "process_status") == 0) {
		if (label_is(s, "process", "ptp4l") && v == 0) {
			p->state = OBS_COMMAND_FAILED;
			snprintf(p->error, sizeof p->error, "ptp4l (%s) is down: linuxptp-daemon's process_status 0",
				 config ? config : "?");
		} else if (label_is(s, "process", "ptp4l")) {
			part_seen(&p->state);
		} else if (label_is(s, "process", "phc2sys") && v == 0) {
			obs->phc.state = OBS_COMMAND_FAILED;
			snprintf(obs->phc.error, sizeof obs->phc.error,
				 "phc2sys (%s) is down: linuxptp-daemon's process_status 0; nothing steers the "
				 "system clock from the PHC", config ? config : "?");
		}
		return;
	}
	if (label_is(s, "process", "phc2sys")) {
		if (strcmp(name, "offset_ns") == 0 && label_is(s, "from", "phc") && iface &&
		    strcmp(iface, "CLOCK_REALTIME") == 0 && v == OPENSHIFT_FAULTY_OFFSET) {
			part_seen(&obs->phc.state); /* phc2sys runs; what it reports is unknown */
		} else if (strcmp(name, "offset_ns") == 0 && label_is(s, "from", "phc") && iface &&
		    strcmp(iface, "CLOCK_REALTIME") == 0 && isfinite(v) && fabs(v) < 9e18) {
			part_seen(&obs->phc.state);
			obs->phc.reported_sys_minus_phc_ns = (int64_t)llround(v);
			obs->phc.reported_by_phc2sys = true;
		}
		return;
	}
	if (!label_is(s, "process", "ptp4l")) {
		return; /* ts2phc, synce4l, chronyd: not the PTP part's */
	}
	part_seen(&p->state);
	if (strcmp(name, "offset_ns") == 0 && label_is(s, "from", "master") && v == OPENSHIFT_FAULTY_OFFSET) {
		pn->openshift_faulty_offset = true;
	} else if (strcmp(name, "clock_state") == 0) {
		int state = isfinite(v) && v >= 0 && v <= 3 ? as_int(v) : 3;
		if (pn->openshift_clock_state == 0 || pn->openshift_clock_state == OPENSHIFT_LOCKED + 1) {
			pn->openshift_clock_state = (unsigned char)(state + 1); /* the first not LOCKED stays */
		}
	} else if (strcmp(name, "offset_ns") == 0 && label_is(s, "from", "master")) {
		p->offset_from_master_ns = isfinite(v) && fabs(v) < 9e18 ? (int64_t)llround(v) : PTP_NS_UNKNOWN;
	} else if (strcmp(name, "delay_ns") == 0 && label_is(s, "from", "master")) {
		p->mean_path_delay_ns = isfinite(v) && fabs(v) < 9e18 ? (int64_t)llround(v) : PTP_NS_UNKNOWN;
	} else if (strcmp(name, "clock_class") == 0) {
		p->gm_clock_class = as_int(v);
	} else if (strcmp(name, "interface_role") == 0 && iface && p->n_ports < PTP_MAX_PORTS) {
		ptp_port *pp = &p->ports[p->n_ports++];
		pp->state = openshift_role(v);
		snprintf(pp->interface, sizeof pp->interface, "%s", iface);
	}
}

/* ptp4l's servo as linuxptp-daemon saw it.  FREERUN (s0/s1) on a port that
 * follows a master is what ptp4l itself calls UNCALIBRATED (linuxptp port.c:
 * the port turns SLAVE once the servo locks); HOLDOVER is not locked either.
 * The faulty-offset marker makes the offset and path delay unknown. */
static void settle_openshift_ptp(prom_node *pn)
{
	ptp_obs *p = &pn->obs.ptp;
	int state = pn->openshift_clock_state - 1;
	if (state == OPENSHIFT_FREERUN || state == OPENSHIFT_HOLDOVER) {
		for (int i = 0; i < p->n_ports; i++) {
			if (p->ports[i].state == PTP_PORT_SLAVE) {
				p->ports[i].state = PTP_PORT_UNCALIBRATED;
			}
		}
	}
	if (pn->openshift_faulty_offset) {
		p->offset_from_master_ns = PTP_NS_UNKNOWN;
		p->mean_path_delay_ns = PTP_NS_UNKNOWN;
	}
}

/* The PHC phc2sys follows is the one on the port ptp4l follows a master on:
 * name it, so a finding says which interface. */
static void settle_openshift_phc(observation *obs)
{
	const ptp_port *follow = ptp_following_port(&obs->ptp);
	if (obs->phc.reported_by_phc2sys && !obs->phc.interface[0] && follow) {
		snprintf(obs->phc.interface, sizeof obs->phc.interface, "%s", follow->interface);
	}
}

/* ---------------------------------------------------------------- build */

/* Which node a sample is about, by the naming of its family: its entry's
 * list gets it (query order is kept per node, as the mapping reads them). */
static void index_family(prom_map *m, const naming *nm, const prom_vector *v, prom_query_id id)
{
	for (size_t i = 0; v && i < v->n_samples; i++) {
		const prom_sample *s = &v->samples[i];
		const char *instance = prom_sample_label(s, "instance");
		size_t idx = 0;
		if (id == PROM_Q_SYNCTOP || id == PROM_Q_OPENSHIFT_PTP || id == PROM_Q_OPENSHIFT_TIME) {
			/* synctop's and linuxptp-daemon's series: by their `node` label */
			const char *node_name = prom_sample_label(s, "node");
			const char *prefix = id == PROM_Q_SYNCTOP ? "synctop_" : "openshift_ptp_";
			if (id != PROM_Q_OPENSHIFT_TIME &&
			    (!node_name || strncmp(metric_name(s), prefix, strlen(prefix)) != 0)) {
				m->unnamed++;
				continue;
			}
			idx = node_name ? entry_get(m, node_name, instance) : 0;
		} else {
			char name[NODE_NAME_LEN + 1];
			if (!exporter_node_name(nm, s, name, sizeof name)) {
				m->unnamed++;
				continue;
			}
			idx = entry_get(m, name, instance);
		}
		if (idx) {
			entry_add(m, idx, id, s);
		}
	}
}

static void put_together(const prom_map *m, size_t i, prom_node *pn);

/* Whether node i has a series about its clock (not only `up`). */
static bool entry_has_data(const prom_map *m, size_t i, prom_node **tmp)
{
	if (!*tmp) {
		*tmp = xmalloc(sizeof **tmp);
	}
	put_together(m, i, *tmp);
	return (*tmp)->has_data;
}

/* A target that is down makes every node it served in this answer unknown,
 * and is itself shown when it served none (its series went stale with it)
 * and no other target serves a node of its name. */
static void index_up(prom_map *m, const naming *nm, const prom_vector *v, const prom_vector *served_by)
{
	prom_index *ix = m->ix;
	prom_node *tmp = NULL;
	for (size_t i = 0; v && i < v->n_samples; i++) {
		const prom_sample *s = &v->samples[i];
		const char *instance = prom_sample_label(s, "instance");
		if (s->value != 0 || !instance) {
			continue; /* a target that is up and serves no clock series is no node */
		}
		bool served = false;
		for (size_t k = 0; k < m->n_nodes; k++) {
			if (strcmp(ix->entries[k].instance, instance) == 0) {
				ix->entries[k].down = s;
				served = true;
			}
		}
		for (size_t k = 0; served_by && k < served_by->n_samples; k++) {
			const prom_sample *sv = &served_by->samples[k];
			const char *si = prom_sample_label(sv, "instance");
			const char *sn = prom_sample_label(sv, "node");
			if (!si || !sn || strcmp(si, instance) != 0) {
				continue;
			}
			size_t known = find_index(m, sn);
			/* a node another target still serves is not this one's */
			if (known && strcmp(ix->entries[known - 1].instance, instance) != 0 &&
			    entry_has_data(m, known - 1, &tmp)) {
				continue;
			}
			size_t idx = entry_get(m, sn, instance);
			if (idx) {
				ix->entries[idx - 1].down = s;
				served = true;
			}
		}
		char name[NODE_NAME_LEN + 1];
		/* a node of that name whose series come from another target (two
		 * exporters on one host) is not the down target's */
		if (!served && exporter_node_name(nm, s, name, sizeof name) && !find_index(m, name)) {
			size_t idx = entry_get(m, name, instance);
			if (idx) {
				ix->entries[idx - 1].down = s;
			}
		}
	}
	free(tmp);
}

/* Node i's observation from its samples, into pn (overwritten whole). */
static void put_together(const prom_map *m, size_t i, prom_node *pn)
{
	const prom_index *ix = m->ix;
	const prom_entry *e = &ix->entries[i];
	const prom_map_options *opt = &ix->opt;
	observation *obs = &pn->obs;
	static prom_node blank; /* zeros and observation_init's unknowns: one copy, not two passes */
	static bool blank_ready;
	if (!blank_ready) {
		observation_init(&blank.obs);
		blank_ready = true;
	}
	*pn = blank; /* in the cache: one node at a time */
	copy_text(pn->name, sizeof pn->name, e->name);
	copy_text(pn->instance, sizeof pn->instance, e->instance);
	for (size_t r = e->first; r; r = ix->refs[r - 1].next) {
		const prom_ref *ref = &ix->refs[r - 1];
		switch (ref->query) {
		case PROM_Q_TIMEX: map_timex(pn, ref->s); break;
		case PROM_Q_CHRONY: map_chrony_exporter(pn, ref->s); break;
		case PROM_Q_SYNCTOP: map_synctop(pn, ref->s); break;
		case PROM_Q_OPENSHIFT_PTP: map_openshift_ptp(pn, ref->s); break;
		default:
			/* timestamp(): the value is when the target was scraped */
			note_time(pn, ref->s->value);
			break;
		}
	}
	if (e->down) {
		const char *job = prom_sample_label(e->down, "job");
		snprintf(pn->error, sizeof pn->error,
			 "Prometheus cannot scrape %s (job %s): up == 0; its Targets page says why",
			 prom_sample_label(e->down, "instance"), job ? job : "?");
	}
	settle_chrony_exporter_leap(pn);
	settle_chrony_sources(pn);
	settle_openshift_ptp(pn);
	settle_openshift_phc(obs);
	chrony_tracking_settle(&obs->chrony.tracking);
	kernel_clock_settle(&obs->kernel);
	if (isnan(obs->taken_at) && pn->has_data) {
		obs->taken_at = opt->now; /* no scrape time asked or answered: as of now */
	}
	if (!pn->has_data && !pn->error[0]) {
		snprintf(pn->error, sizeof pn->error,
			 "Prometheus gave this node's scrape time but none of its values (the source's error "
			 "says which query failed)");
	}
	if (pn->error[0] || !pn->has_data) {
		return;
	}
	double age = opt->now - obs->taken_at;
	if (isfinite(age) && age > opt->stale_after_s) {
		snprintf(pn->error, sizeof pn->error,
			 "stale: its newest sample in Prometheus is %.0f s old (more than %.0f s)", age,
			 opt->stale_after_s);
	}
}

/* The index of the answers (which stay the caller's, or ix->owned). */
static void index_build(const prom_map_options *opt, prom_map *out)
{
	prom_index *ix = out->ix;
	naming nm = {&ix->opt, ix};
	ix->opt = *opt;
	if (opt->node_label && strcmp(opt->node_label, "nodename") == 0) {
		index_unames(ix, ix->answers[PROM_Q_UNAME]);
	}
	static const prom_query_id order[] = {
		PROM_Q_TIMEX,   PROM_Q_TIMEX_TIME,	  PROM_Q_CHRONY,	 PROM_Q_CHRONY_TIME,
		PROM_Q_SYNCTOP, PROM_Q_OPENSHIFT_PTP, PROM_Q_OPENSHIFT_TIME,
	};
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
		index_family(out, &nm, ix->answers[order[k]], order[k]);
	}
	index_up(out, &nm, ix->answers[PROM_Q_UP], ix->answers[PROM_Q_SERVED]);
}

static void index_free(prom_index *ix)
{
	if (!ix) {
		return;
	}
	free(ix->refs);
	free(ix->unames);
	free(ix->scratch);
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		prom_vector_free(&ix->owned[q]);
	}
	free(ix);
}

void prometheus_map_build(const prom_vector *const answers[PROM_Q_COUNT], const prom_map_options *opt,
			  prom_map *out)
{
	memset(out, 0, sizeof *out);
	out->ix = xcalloc(1, sizeof *out->ix);
	memcpy(out->ix->answers, answers, sizeof out->ix->answers);
	index_build(opt, out);
	/* every node now, in the mapping of their own */
	if (out->n_nodes) {
		grow_nodes(out, out->n_nodes);
	}
	for (size_t i = 0; i < out->n_nodes; i++) {
		put_together(out, i, &out->nodes[i]);
	}
	prom_index *ix = out->ix;
	for (size_t i = 0; i < out->n_nodes; i++) {
		free(ix->entries[i].name);
	}
	free(ix->entries);
	out->ix = NULL; /* names from nodes from now on */
	index_free(ix);
}

void prometheus_map_build_owning(prom_vector *answers[PROM_Q_COUNT], const prom_map_options *opt, prom_map *out)
{
	memset(out, 0, sizeof *out);
	out->ix = xcalloc(1, sizeof *out->ix);
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		if (answers[q]) {
			out->ix->owned[q] = *answers[q];
			memset(answers[q], 0, sizeof *answers[q]);
			out->ix->answers[q] = &out->ix->owned[q];
		}
	}
	index_build(opt, out);
}

uint64_t prometheus_map_digest(const prom_map *m, size_t i)
{
	if (!m->ix || i >= m->n_nodes || !m->ix->entries[i].dated) {
		return 0;
	}
	const prom_entry *e = &m->ix->entries[i];
	uint64_t h = e->down ? digest_mix(e->digest ^ 0xD0, e->down->digest) : e->digest;
	return h ? h : 1;
}

bool prometheus_map_stale(const prom_map *m, double taken_at)
{
	if (!m->ix) {
		return true;
	}
	double age = m->ix->opt.now - taken_at; /* as put_together judges it */
	return isfinite(age) && age > m->ix->opt.stale_after_s;
}

const prom_node *prometheus_map_node(const prom_map *m, size_t i)
{
	if (i >= m->n_nodes) {
		return NULL;
	}
	if (!m->ix) {
		return &m->nodes[i];
	}
	prom_index *ix = m->ix;
	if (ix->in_scratch != i + 1) {
		if (!ix->scratch) {
			ix->scratch = xmalloc(sizeof *ix->scratch);
		}
		put_together(m, i, ix->scratch);
		ix->in_scratch = i + 1;
	}
	return ix->scratch;
}

void prometheus_map_free(prom_map *m)
{
	if (m->nodes) {
		munmap(m->nodes, m->cap * sizeof *m->nodes);
	}
	if (m->ix) {
		for (size_t i = 0; i < m->n_nodes; i++) {
			free(m->ix->entries[i].name);
		}
		free(m->ix->entries);
		index_free(m->ix);
	}
	free(m->slots);
	memset(m, 0, sizeof *m);
}

bool prometheus_map_adopt(prom_map *m, const prom_node *pn)
{
	if (m->ix || prometheus_map_find(m, pn->name)) {
		return false; /* an owning map is whole as built */
	}
	prom_node *dst = node_get(m, pn->name, pn->instance);
	if (!dst) {
		return false; /* a name node_get refuses never made it into a map */
	}
	*dst = *pn;
	return true;
}

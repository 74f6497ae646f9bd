/* consistency.c - the cluster-wide checks (see consistency.h for the
 * contract, docs/checks.md for every finding).
 *
 * A first set of passes collects each check's values from the nodes that
 * answered their last poll; sorting them gives the majorities and medians in
 * O(n log n).  A last pass builds each node's findings from its own values
 * and those cluster figures, with no node compared to another directly, so
 * the work stays O(n log n) for any fleet. */
#include <config.h>

#include "consistency.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster.h"
#include "health.h"
#include "sanitize.h"
#include "units.h"
#include "xalloc.h"

/* One finding per check at most: grandmaster, domain, UTC offset, reference,
 * leap, the two spreads, the clock median and the upstream split. */
#define MAX_CLUSTER_FINDINGS 9
/* --config groups the upstream split compares; a file with more (not met
 * in practice) has the rest left out of that check. */
#define SPLIT_MAX_GROUPS 64
#define NAME_LEN 64 /* remote names quoted in messages */

/* ------------------------------------------------------------ findings */

typedef struct {
	int count;
	finding items[MAX_CLUSTER_FINDINGS];
} cluster_findings;

static finding *finding_new(cluster_findings *l, severity sev, const char *code)
{
	finding *f = &l->items[l->count++]; /* each check adds at most one */
	finding_start(f, sev, code);
	return f;
}


/* Names that came from a node (or the configuration) are sanitised before
 * they reach a message, which may go to a terminal or into JSON. */
static const char *clean(char *dst, size_t dst_len, const char *src)
{
	sanitize_text(src, strnlen(src, CONSISTENCY_KEY_LEN), dst, dst_len, SANITIZE_SINGLE_LINE);
	return dst;
}


/* ------------------------------------------------------- node values */

static bool has_own_finding(const node *nd, const char *code)
{
	int own = nd->n_own_findings < nd->findings.count ? nd->n_own_findings : nd->findings.count;
	for (int i = 0; i < own && i < MAX_FINDINGS; i++) {
		const char *c = nd->findings.items[i].code;
		if (c && strcmp(c, code) == 0) {
			return true;
		}
	}
	return false;
}

typedef struct {
	char s[CONSISTENCY_KEY_LEN];
} key;

/* Bounded copy: node fields are fixed-size arrays that need not end in NUL. */
static void key_set(key *k, const char *src, size_t src_len)
{
	size_t len = strnlen(src, src_len < sizeof k->s - 1 ? src_len : sizeof k->s - 1);
	memcpy(k->s, src, len);
	k->s[len] = '\0';
}

/* Addresses, host names and clock identities compare case-insensitively. */
static bool key_eq(const char *a, const char *b)
{
	return strncasecmp(a, b, CONSISTENCY_KEY_LEN) == 0;
}

static bool gm_key(const node *nd, key *k)
{
	const ptp_obs *p = &nd->obs.ptp;
	if (!node_answered(nd) || p->state != OBS_OK) {
		return false;
	}
	const char *gm = cluster_node_grandmaster(p);
	if (!gm) {
		return false; /* follows nobody: the port state finding says so */
	}
	key_set(k, gm, PTP_ID_LEN);
	/* pmc prints identities in lower-case hex, as the configuration wants
	 * them; one spelling keeps the summary's majority stable. */
	for (char *c = k->s; *c; c++) {
		if (*c >= 'A' && *c <= 'Z') {
			*c = (char)(*c - 'A' + 'a');
		}
	}
	return k->s[0] != '\0';
}

/* snprintf("%d") without the printf machinery: this runs for every node
 * every pass. */
static void key_set_int(key *k, int v)
{
	char digits[16];
	size_t n = 0, len = 0;
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0) {
		k->s[len++] = '-';
	}
	while (n) {
		k->s[len++] = digits[--n];
	}
	k->s[len] = '\0';
}

static bool domain_key(const node *nd, key *k)
{
	const ptp_obs *p = &nd->obs.ptp;
	if (!node_answered(nd) || p->state != OBS_OK || p->domain_number == INT_UNKNOWN) {
		return false;
	}
	key_set_int(k, p->domain_number);
	return true;
}

static bool utc_key(const node *nd, key *k)
{
	const ptp_obs *p = &nd->obs.ptp;
	if (!node_answered(nd) || p->state != OBS_OK || p->current_utc_offset_valid != 1 ||
	    p->current_utc_offset == INT_UNKNOWN) {
		return false;
	}
	key_set_int(k, p->current_utc_offset);
	return true;
}

static bool chrony_synchronised(const chrony_obs *c)
{
	chrony_leap l = c->tracking.leap;
	return c->state == OBS_OK &&
	       (l == CHRONY_LEAP_NORMAL || l == CHRONY_LEAP_INSERT || l == CHRONY_LEAP_DELETE);
}

typedef enum {
	REF_NONE = 0, /* no answer, not synchronised, nothing named */
	REF_LOCAL,    /* its own clock (`local`) */
	REF_EXTERNAL,
} ref_kind;

/* What chronyd follows, named as `chronyc -c -n` shows it: tracking's
 * reference name (an address, or a refclock's name), else the selected
 * source's name, else the reference ID as a dotted quad (an IPv4 server's
 * address). */
static ref_kind reference_key(const node *nd, key *k)
{
	const chrony_obs *c = &nd->obs.chrony;
	const chrony_tracking *t = &c->tracking;
	if (!node_answered(nd) || !chrony_synchronised(c)) {
		return REF_NONE;
	}
	if (chrony_tracking_is_local(t)) {
		return REF_LOCAL;
	}
	key_set(k, t->reference_name, sizeof t->reference_name);
	if (k->s[0] != '\0') {
		return REF_EXTERNAL;
	}
	const chrony_source *sel = chrony_selected_source(c);
	if (sel) {
		key_set(k, sel->name, sizeof sel->name);
		if (k->s[0] != '\0') {
			return REF_EXTERNAL;
		}
	}
	if (t->has_reference_id && t->reference_id != 0) {
		uint32_t id = t->reference_id;
		snprintf(k->s, sizeof k->s, "%u.%u.%u.%u", (unsigned)(id >> 24),
			 (unsigned)(id >> 16) & 0xffu, (unsigned)(id >> 8) & 0xffu, (unsigned)id & 0xffu);
		return REF_EXTERNAL;
	}
	return REF_NONE;
}

/* Does the node follow `want` by any of the names chronyc gives it? */
static bool reference_matches(const node *nd, const char *want)
{
	key k;
	if (reference_key(nd, &k) != REF_EXTERNAL) {
		return false;
	}
	if (key_eq(k.s, want)) {
		return true;
	}
	const chrony_obs *c = &nd->obs.chrony;
	const chrony_source *sel = chrony_selected_source(c);
	if (sel) {
		key_set(&k, sel->name, sizeof sel->name);
		if (k.s[0] != '\0' && key_eq(k.s, want)) {
			return true;
		}
	}
	uint32_t id = c->tracking.reference_id;
	if (c->tracking.has_reference_id && id != 0) {
		snprintf(k.s, sizeof k.s, "%u.%u.%u.%u", (unsigned)(id >> 24),
			 (unsigned)(id >> 16) & 0xffu, (unsigned)(id >> 8) & 0xffu, (unsigned)id & 0xffu);
		if (key_eq(k.s, want)) {
			return true;
		}
	}
	return false;
}

/* A node listed in the inventory under the address the others follow is
 * that reference itself: it follows something else by design. */
/* The node's name as an address: "[v6addr]:port" -> "v6addr",
 * "host:port" -> "host"; a bare IPv6 address (several ':') is kept. */
static void host_address(const node *nd, key *out)
{
	key_set(out, nd->host, sizeof nd->host);
	char *h = out->s;
	if (h[0] == '[') {
		char *end = strchr(h, ']');
		size_t len = end ? (size_t)(end - h - 1) : strlen(h + 1);
		memmove(h, h + 1, len);
		h[len] = '\0';
		return;
	}
	char *colon = strchr(h, ':');
	if (colon && !strchr(colon + 1, ':') && colon[1] != '\0' &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		*colon = '\0';
	}
}

static bool is_host(const node *nd, const char *name)
{
	key host;
	host_address(nd, &host);
	return name[0] != '\0' && key_eq(host.s, name);
}

/* "insert", "delete" or "none": a pending leap second as chrony (when
 * synchronised) or PTP (leap61/leap59) announce it; either announcing one
 * makes the node announce it.  detail (may be NULL) says who said what. */
static bool leap_key(const node *nd, key *k, char *detail, size_t detail_len)
{
	if (!node_answered(nd)) {
		return false;
	}
	const chrony_obs *c = &nd->obs.chrony;
	const ptp_obs *p = &nd->obs.ptp;
	bool chrony = chrony_synchronised(c);
	bool ptp = p->state == OBS_OK && (p->leap61 == 0 || p->leap61 == 1) &&
		   (p->leap59 == 0 || p->leap59 == 1);
	if (!chrony && !ptp) {
		return false;
	}
	bool insert = (chrony && c->tracking.leap == CHRONY_LEAP_INSERT) || (ptp && p->leap61 == 1);
	bool del = (chrony && c->tracking.leap == CHRONY_LEAP_DELETE) || (ptp && p->leap59 == 1);
	const char *name = insert ? "insert" : del ? "delete" : "none";
	memcpy(k->s, name, strlen(name) + 1);
	if (detail) {
		char chrony_part[48] = "", ptp_part[48] = "";
		if (chrony) {
			snprintf(chrony_part, sizeof chrony_part, "chrony: %s",
				 chrony_leap_name(c->tracking.leap));
		}
		if (ptp) {
			snprintf(ptp_part, sizeof ptp_part, "PTP: leap61 %d, leap59 %d", p->leap61,
				 p->leap59);
		}
		snprintf(detail, detail_len, "%s%s%s", chrony_part, chrony && ptp ? "; " : "",
			 ptp_part);
	}
	return true;
}

static const char *leap_phrase(const char *k)
{
	if (strcmp(k, "insert") == 0) {
		return "a leap second insertion";
	}
	if (strcmp(k, "delete") == 0) {
		return "a leap second deletion";
	}
	return "no leap second";
}

static bool clock_value(const node *nd)
{
	const clock_check_obs *cc = &nd->obs.clock;
	return node_answered(nd) && cc->state == OBS_OK && isfinite(cc->offset_s) &&
	       isfinite(cc->uncertainty_s);
}

/* ------------------------------------------------------------ tallies */

/* The outcome of one vote: the most shared value and the runner-up. */
typedef struct {
	size_t voters;
	size_t distinct;
	key top;             /* the first (by name) of the most shared values */
	size_t top_count;
	size_t top_groups;   /* values shared by top_count nodes (> 1 = tie) */
	key second;          /* another tied value, else the runner-up; "" if none */
	size_t second_count;
} tally;

static int key_cmp(const void *a, const void *b)
{
	return strncasecmp(((const key *)a)->s, ((const key *)b)->s, CONSISTENCY_KEY_LEN);
}

/* Sort order: case-insensitive groups, then by exact spelling within one, so
 * the name a group is shown by does not depend on qsort's whims. */
static int key_order(const void *a, const void *b)
{
	int c = key_cmp(a, b);
	return c ? c : strncmp(((const key *)a)->s, ((const key *)b)->s, CONSISTENCY_KEY_LEN);
}

static void tally_keys(key *keys, size_t n, tally *t)
{
	memset(t, 0, sizeof *t);
	t->voters = n;
	if (n == 0) {
		return;
	}
	qsort(keys, n, sizeof *keys, key_order);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && key_cmp(&keys[i], &keys[j]) == 0) {
			j++;
		}
		size_t count = j - i;
		t->distinct++;
		if (count > t->top_count) {
			if (t->top_count > 0) {
				t->second = t->top;
				t->second_count = t->top_count;
			}
			t->top = keys[i];
			t->top_count = count;
			t->top_groups = 1;
		} else {
			if (count == t->top_count) {
				t->top_groups++;
			}
			if (count > t->second_count) {
				t->second = keys[i];
				t->second_count = count;
			}
		}
		i = j;
	}
}

/* A value most nodes share, unique: nodes on another value are a minority. */
static bool has_majority(const tally *t)
{
	return t->distinct > 1 && t->top_groups == 1;
}

static bool is_split(const tally *t)
{
	return t->distinct > 1 && t->top_groups > 1;
}

/* Where a node's value stands in the vote. */
typedef enum {
	VOTE_AGREES,   /* with the majority, or there is no majority to disagree with */
	VOTE_SPLIT,    /* two or more values share the most nodes */
	VOTE_OUTVOTED, /* one value has the most nodes and this node's differs */
} vote;

static vote vote_of(const tally *t, const char *value)
{
	if (is_split(t)) {
		return VOTE_SPLIT;
	}
	return has_majority(t) && !key_eq(value, t->top.s) ? VOTE_OUTVOTED : VOTE_AGREES;
}

/* -------------------------------------------------------------- stats */

typedef struct {
	size_t count;
	double min, max, median; /* NAN when count == 0 */
} stats;

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void stats_of(double *v, size_t n, stats *s)
{
	s->count = n;
	if (n == 0) {
		s->min = s->max = s->median = NAN;
		return;
	}
	qsort(v, n, sizeof *v, double_cmp);
	s->min = v[0];
	s->max = v[n - 1];
	/* halves first: the sum of two huge values could overflow */
	s->median = n % 2 ? v[n / 2] : v[n / 2 - 1] / 2.0 + v[n / 2] / 2.0;
}

/* ------------------------------------------------------------- figures */

typedef struct {
	tally gm, domain, utc, reference, leap;
	size_t local_nodes;
	stats chrony, ptp, clock;
} figures;

/* The scratch arrays the figures are computed from, one slot per node. */
typedef struct {
	key *gm, *domain, *utc, *reference, *leap;
	double *chrony, *ptp, *clock;
	size_t n_gm, n_domain, n_utc, n_reference, n_leap, n_chrony, n_ptp, n_clock;
} votes;

/* One pass over the nodes: each node is far from the next in memory, so
 * reading everything it contributes at once is what keeps 10,000 nodes
 * cheap. */
static void votes_collect(const node *nodes, size_t n, const node_settings *settings,
			  const node_settings *defaults, votes *v, size_t *local_nodes)
{
	*local_nodes = 0;
	for (size_t i = 0; i < n; i++) {
		const node *nd = &nodes[i];
		if (!node_answered(nd)) {
			continue;
		}
		int64_t ns;
		v->n_gm += gm_key(nd, &v->gm[v->n_gm]);
		v->n_domain += domain_key(nd, &v->domain[v->n_domain]);
		v->n_utc += utc_key(nd, &v->utc[v->n_utc]);
		v->n_leap += leap_key(nd, &v->leap[v->n_leap], NULL, 0);
		switch (reference_key(nd, &v->reference[v->n_reference])) {
		case REF_EXTERNAL:
			v->n_reference++;
			break;
		case REF_LOCAL:
			(*local_nodes)++;
			break;
		case REF_NONE:
			break;
		}
		v->n_chrony += cluster_chrony_offset(nd, &v->chrony[v->n_chrony]);
		if (cluster_ptp_offset(nd, &ns)) {
			v->ptp[v->n_ptp++] = (double)ns;
		}
		/* Only a measurement more precise than the limit it is judged by
		 * says where the clocks are: on a loaded client or a slow link
		 * the round trips grow, and vague offsets would drag the median. */
		const node_settings *own = settings ? &settings[i] : defaults;
		if (clock_value(nd) && nd->obs.clock.uncertainty_s <= own->th.clock_median_warn_s) {
			v->clock[v->n_clock++] = nd->obs.clock.offset_s;
		}
	}
}

static void figures_collect(const node *nodes, size_t n, const node_settings *settings,
			    const node_settings *defaults, figures *fig)
{
	size_t slots = n ? n : 1;
	votes v;
	memset(&v, 0, sizeof v);
	key *keys = xmalloc(5 * slots * sizeof *keys);
	double *values = xmalloc(3 * slots * sizeof *values);
	v.gm = keys;
	v.domain = keys + slots;
	v.utc = keys + 2 * slots;
	v.reference = keys + 3 * slots;
	v.leap = keys + 4 * slots;
	v.chrony = values;
	v.ptp = values + slots;
	v.clock = values + 2 * slots;

	votes_collect(nodes, n, settings, defaults, &v, &fig->local_nodes);
	tally_keys(v.gm, v.n_gm, &fig->gm);
	tally_keys(v.domain, v.n_domain, &fig->domain);
	tally_keys(v.utc, v.n_utc, &fig->utc);
	tally_keys(v.reference, v.n_reference, &fig->reference);
	tally_keys(v.leap, v.n_leap, &fig->leap);
	stats_of(v.chrony, v.n_chrony, &fig->chrony);
	stats_of(v.ptp, v.n_ptp, &fig->ptp);
	stats_of(v.clock, v.n_clock, &fig->clock);

	free(values);
	free(keys);
}

/* -------------------------------------------------------------- checks */

static void check_grandmaster(const node *nd, const node_settings *ns, const tally *t,
			      cluster_findings *out)
{
	key k;
	if (ns->th.expect_ptp == EXPECT_NO || !gm_key(nd, &k)) {
		return;
	}
	char gm[NAME_LEN], want[NAME_LEN], other[NAME_LEN];
	finding *f;
	key configured;
	key_set(&configured, ns->grandmaster, sizeof ns->grandmaster);

	if (configured.s[0] != '\0') {
		if (key_eq(k.s, configured.s)) {
			return;
		}
		clean(gm, sizeof gm, k.s);
		clean(want, sizeof want, configured.s);
		f = finding_new(out, SEVERITY_CRIT, "cluster.grandmaster");
		finding_message(f, "Follows grandmaster %s, not the configured %s", gm, want);
		finding_hint(f, "`pmc -u -b 0 'GET PARENT_DATA_SET'`: %s's Announce must reach this "
			     "node in its domainNumber (VLAN, multicast); give a rogue master "
			     "`priority1 255` or clients `slaveOnly 1` in ptp4l.conf.", want);
		return;
	}
	vote v = vote_of(t, k.s);
	if (v == VOTE_AGREES) {
		return;
	}
	clean(gm, sizeof gm, k.s);
	clean(want, sizeof want, t->top.s);
	if (v == VOTE_SPLIT) {
		clean(other, sizeof other, t->second.s);
		f = finding_new(out, SEVERITY_WARN, "cluster.grandmaster");
		finding_message(f, "PTP split: grandmasters %s and %s have %zu nodes each; this node "
				"follows %s", want, other, t->top_count, gm);
		finding_hint(f, "Set `grandmaster` in the synctop configuration to the intended "
			     "clock identity; compare `pmc -u -b 0 'GET PARENT_DATA_SET'` on both "
			     "sides (domainNumber, priority1/2, network path).");
		return;
	}
	f = finding_new(out, SEVERITY_CRIT, "cluster.grandmaster");
	finding_message(f, "Follows grandmaster %s while %zu of %zu PTP nodes follow %s", gm,
			t->top_count, t->voters, want);
	finding_hint(f, "`pmc -u -b 0 'GET PARENT_DATA_SET'`: %s's Announce must reach this node "
		     "in its domainNumber (VLAN, multicast); a node that is its own master wants "
		     "`slaveOnly 1` in ptp4l.conf; or set `grandmaster` in the synctop config.", want);
}

static void check_domain(const node *nd, const node_settings *ns, const tally *t,
			 cluster_findings *out)
{
	key k;
	if (ns->th.expect_ptp == EXPECT_NO || !domain_key(nd, &k)) {
		return;
	}
	finding *f;
	vote v = vote_of(t, k.s);
	if (v == VOTE_AGREES) {
		return;
	}
	if (v == VOTE_SPLIT) {
		f = finding_new(out, SEVERITY_WARN, "cluster.ptp_domain");
		finding_message(f, "PTP split: domains %s and %s have %zu nodes each; this node "
				"uses %s", t->top.s, t->second.s, t->top_count, k.s);
		finding_hint(f, "Set one `domainNumber` in the [global] section of every ptp4l.conf "
			     "and restart ptp4l; `pmc -u -b 0 'GET DEFAULT_DATA_SET'` shows it.");
		return;
	}
	f = finding_new(out, SEVERITY_CRIT, "cluster.ptp_domain");
	finding_message(f, "PTP domainNumber %s while %zu of %zu PTP nodes use %s", k.s,
			t->top_count, t->voters, t->top.s);
	finding_hint(f, "Set `domainNumber %s` in the [global] section of ptp4l.conf and restart "
		     "ptp4l; confirm with `pmc -u -b 0 -d %s 'GET DEFAULT_DATA_SET'`.",
		     t->top.s, t->top.s);
}

static void check_utc_offset(const node *nd, const node_settings *ns, const tally *t,
			     cluster_findings *out)
{
	key k;
	if (ns->th.expect_ptp == EXPECT_NO || !utc_key(nd, &k)) {
		return;
	}
	finding *f;
	vote v = vote_of(t, k.s);
	if (v == VOTE_SPLIT) {
		f = finding_new(out, SEVERITY_WARN, "cluster.utc_offset");
		finding_message(f, "PTP split: currentUtcOffset %s s and %s s on %zu nodes each; this "
				"node has %s s", t->top.s, t->second.s, t->top_count, k.s);
	} else if (v == VOTE_OUTVOTED) {
		/* UTC = PTP time - currentUtcOffset: a smaller offset puts UTC ahead. */
		long ahead = strtol(t->top.s, NULL, 10) - (long)nd->obs.ptp.current_utc_offset;
		f = finding_new(out, SEVERITY_CRIT, "cluster.utc_offset");
		finding_message(f, "PTP currentUtcOffset %s s while %zu of %zu PTP nodes have %s s: "
				"its UTC is %+ld s from theirs", k.s, t->top_count, t->voters,
				t->top.s, ahead);
	} else {
		return;
	}
	finding_hint(f, "The grandmaster announces TAI-UTC: `pmc -u -b 0 'GET "
		     "TIME_PROPERTIES_DATA_SET'`; on it set `utc_offset 37` in ptp4l.conf (37 s "
		     "since 2017) and check what feeds its leap data (ts2phc, GNSS).");
}

static void check_reference(const node *nd, const node_settings *ns, const tally *t,
			    cluster_findings *out)
{
	key k;
	if (ns->th.expect_chrony == EXPECT_NO) {
		return;
	}
	ref_kind kind = reference_key(nd, &k);
	if (kind == REF_NONE) {
		return;
	}
	char ref[NAME_LEN], want[NAME_LEN], other[NAME_LEN];
	const char *ref_raw = kind == REF_LOCAL ? "its own clock (chrony `local`)" : k.s;
	finding *f;

	/* An upstream longer than a key (a 64+ byte DNS name) cannot match
	 * what chronyc -n prints anyway: an address or a refclock name. */
	key up;
	key_set(&up, ns->ntp_upstream, sizeof ns->ntp_upstream);
	if (up.s[0] != '\0') {
		if (is_host(nd, up.s) || reference_matches(nd, up.s)) {
			return;
		}
		clean(ref, sizeof ref, ref_raw);
		clean(want, sizeof want, up.s);
		f = finding_new(out, SEVERITY_CRIT, "cluster.reference");
		finding_message(f, "Follows %s, not the configured upstream %s", ref, want);
		finding_hint(f, "Add `server %s iburst prefer` to chrony.conf and restart chronyd; "
			     "`chronyc -n sources -v` must show it as `^*` (ntp_upstream is matched "
			     "against the address chronyc -n prints).", want);
		return;
	}
	if (t->distinct == 0 || is_host(nd, t->top.s)) {
		return; /* no reference to compare with, or this node is it */
	}
	if (kind == REF_EXTERNAL && !is_split(t) && key_eq(k.s, t->top.s)) {
		return; /* with the majority */
	}
	clean(ref, sizeof ref, ref_raw);
	clean(want, sizeof want, t->top.s);
	if (kind == REF_LOCAL) {
		if (has_own_finding(nd, "chrony.local_reference")) {
			return; /* its own rule said it already */
		}
		f = finding_new(out, SEVERITY_WARN, "cluster.reference");
		if (is_split(t)) {
			finding_message(f, "Serves its own clock (chrony `local`) while the other chrony "
					"nodes follow %zu different references", t->distinct);
		} else {
			finding_message(f, "Serves its own clock (chrony `local`) while %zu of %zu chrony "
					"nodes follow %s", t->top_count, t->voters, want);
		}
		finding_hint(f, "Its upstream is lost or missing: `chronyc -n sources -v`; add "
			     "`server %s iburst` to chrony.conf (or set ntp_upstream if `local` is "
			     "intended here).", want);
		return;
	}
	vote v = vote_of(t, k.s);
	if (v == VOTE_SPLIT) {
		clean(other, sizeof other, t->second.s);
		f = finding_new(out, SEVERITY_WARN, "cluster.reference");
		finding_message(f, "NTP split: references %s and %s have %zu nodes each; this node "
				"follows %s", want, other, t->top_count, ref);
		finding_hint(f, "Different upstreams drift apart (20-50 ms on-premises vs cloud): "
			     "point every chrony.conf at one (`server HOST iburst`) and set "
			     "ntp_upstream in the synctop configuration.");
		return;
	}
	if (v == VOTE_AGREES) {
		return;
	}
	f = finding_new(out, SEVERITY_WARN, "cluster.reference");
	finding_message(f, "Follows %s while %zu of %zu chrony nodes follow %s", ref, t->top_count,
			t->voters, want);
	finding_hint(f, "Different upstreams drift apart (20-50 ms on-premises vs cloud): add "
		     "`server %s iburst prefer` to chrony.conf, or set ntp_upstream for this group "
		     "if intended; `chronyc -n sources -v`.", want);
}

static void check_leap(const node *nd, const tally *t, cluster_findings *out)
{
	key k;
	char detail[112];
	if (!leap_key(nd, &k, NULL, 0)) {
		return;
	}
	vote v = vote_of(t, k.s);
	if (v == VOTE_AGREES) {
		return;
	}
	leap_key(nd, &k, detail, sizeof detail);
	finding *f;
	if (v == VOTE_SPLIT) {
		f = finding_new(out, SEVERITY_WARN, "cluster.leap");
		finding_message(f, "Leap split: %zu nodes announce %s and %zu %s; this node %s (%s)",
				t->top_count, leap_phrase(t->top.s), t->second_count,
				leap_phrase(t->second.s), leap_phrase(k.s), detail);
	} else {
		f = finding_new(out, SEVERITY_WARN, "cluster.leap");
		finding_message(f, "Announces %s while %zu of %zu nodes announce %s (%s)",
				leap_phrase(k.s), t->top_count, t->voters, leap_phrase(t->top.s),
				detail);
	}
	finding_hint(f, "Compare the source's announcement: `chronyc tracking` (Leap status), "
		     "`pmc -u -b 0 'GET TIME_PROPERTIES_DATA_SET'` (leap61/59); `leapsectz right/UTC` "
		     "in chrony.conf lets chronyd check it against tzdata.");
}

/* Severity of an outlier: the spread's, but crit only when this node itself
 * is beyond half the crit spread (a node just past the warn line is not
 * made crit by someone else's far larger offset). */
static severity spread_severity(double spread, double dev, double warn, double crit)
{
	if (!(spread > warn) || !(fabs(dev) > warn / 2.0)) {
		return SEVERITY_OK;
	}
	if (spread > crit && fabs(dev) > crit / 2.0) {
		return SEVERITY_CRIT;
	}
	return SEVERITY_WARN;
}

static void check_chrony_spread(const node *nd, const node_settings *ns, const stats *s,
				cluster_findings *out)
{
	double off;
	if (ns->th.expect_chrony == EXPECT_NO || !cluster_chrony_offset(nd, &off)) {
		return;
	}
	const thresholds *th = &ns->th;
	double spread = s->max - s->min, dev = off - s->median;
	severity sev = spread_severity(spread, dev, th->cluster_chrony_spread_warn_s,
				       th->cluster_chrony_spread_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	char v[UNITS_BUF_LEN], d[UNITS_BUF_LEN], m[UNITS_BUF_LEN], sp[UNITS_BUF_LEN];
	char limit[UNITS_BUF_LEN];
	finding *f = finding_new(out, sev, "cluster.offset_spread");
	finding_message(f, "System time offset %s is %s from the median %s; spread %s over %zu "
			"chrony nodes (%s above %s)", units_format_seconds(off, v, sizeof v),
			units_format_seconds(dev, d, sizeof d),
			units_format_seconds(s->median, m, sizeof m),
			units_magnitude_seconds(spread, sp, sizeof sp), s->count, severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->cluster_chrony_spread_crit_s :
				    th->cluster_chrony_spread_warn_s, limit, sizeof limit));
	finding_hint(f, "Compare `chronyc -n sources -v` and `chronyc tracking` here and on a node "
		     "near the median (same upstream? see cluster.reference); `chronyc makestep` "
		     "steps this clock, `makestep 1 3` in chrony.conf at start.");
}

static void check_ptp_spread(const node *nd, const node_settings *ns, const stats *s,
			     cluster_findings *out)
{
	int64_t off;
	if (ns->th.expect_ptp == EXPECT_NO || !cluster_ptp_offset(nd, &off)) {
		return;
	}
	const thresholds *th = &ns->th;
	double spread = s->max - s->min, dev = (double)off - s->median;
	severity sev = spread_severity(spread, dev, (double)th->cluster_ptp_spread_warn_ns,
				       (double)th->cluster_ptp_spread_crit_ns);
	if (sev == SEVERITY_OK) {
		return;
	}
	char v[UNITS_BUF_LEN], d[UNITS_BUF_LEN], m[UNITS_BUF_LEN], sp[UNITS_BUF_LEN];
	char limit[UNITS_BUF_LEN];
	finding *f = finding_new(out, sev, "cluster.ptp_spread");
	finding_message(f, "offsetFromMaster %s is %s from the median %s; spread %s over %zu PTP "
			"slaves (%s above %s)", units_format_ns(off, v, sizeof v),
			units_format_seconds(dev * 1e-9, d, sizeof d),
			units_format_seconds(s->median * 1e-9, m, sizeof m),
			units_magnitude_seconds(spread * 1e-9, sp, sizeof sp), s->count, severity_name(sev),
			units_magnitude_seconds((double)(sev == SEVERITY_CRIT ? th->cluster_ptp_spread_crit_ns :
					     th->cluster_ptp_spread_warn_ns) * 1e-9,
				    limit, sizeof limit));
	finding_hint(f, "`pmc -u -b 0 'GET CURRENT_DATA_SET'` here and on a node near the median; "
		     "check servo lock (s2) in `journalctl -u ptp4l`, `ethtool -T IFACE` for "
		     "hardware timestamping, and `delayAsymmetry` in ptp4l.conf.");
}

static void check_clock_median(const node *nd, const node_settings *ns, const stats *s,
			       cluster_findings *out)
{
	if (!clock_value(nd) || has_own_finding(nd, "clock.offset")) {
		return; /* none, or already flagged against the client's clock */
	}
	const clock_check_obs *cc = &nd->obs.clock;
	double dev = cc->offset_s - s->median;
	double excess = fabs(dev) - cc->uncertainty_s;
	if (!(excess > ns->th.clock_median_warn_s)) {
		return;
	}
	char v[UNITS_BUF_LEN], u[UNITS_BUF_LEN], d[UNITS_BUF_LEN], m[UNITS_BUF_LEN];
	char limit[UNITS_BUF_LEN], claim[UNITS_BUF_LEN];
	finding *f = finding_new(out, SEVERITY_WARN, "cluster.clock_median");
	finding_message(f, "Clock %s ± %s is %s from the median %s of %zu nodes' clocks (warn above "
			"%s beyond the uncertainty)", units_format_seconds(cc->offset_s, v, sizeof v),
			units_magnitude_seconds(cc->uncertainty_s, u, sizeof u),
			units_format_seconds(dev, d, sizeof d),
			units_format_seconds(s->median, m, sizeof m), s->count,
			units_magnitude_seconds(ns->th.clock_median_warn_s, limit, sizeof limit));
	const chrony_tracking *t = &nd->obs.chrony.tracking;
	if (chrony_synchronised(&nd->obs.chrony) && isfinite(t->system_time_offset_s)) {
		finding_hint(f, "The other clocks agree, this one does not, yet chronyd claims %s: a "
			     "wrong source or a clock it does not steer; `chronyc sources -v`, "
			     "`chronyc tracking`.",
			     units_format_seconds(t->system_time_offset_s, claim, sizeof claim));
	} else {
		finding_hint(f, "The other clocks agree, this one does not: check its time daemon "
			     "(`chronyc sources -v`, `chronyc tracking`, `timedatectl`) and compare "
			     "`date +%%s.%%N` with a neighbour's.");
	}
}

/* ------------------------------------------------------ upstream split */

/* One --config group (or the nodes no group names): the reference most of
 * its chrony nodes follow and the median of its clock checks. */
typedef struct {
	int group;             /* node_settings.group; 0 = no group */
	const char *name;      /* node_settings.group_name of one of its nodes */
	key upstream;          /* "" when none follows one, or two tie */
	size_t clock_nodes;
	double clock_median_s; /* NAN when clock_nodes == 0 */
} group_figure;

typedef struct {
	size_t n;
	group_figure g[SPLIT_MAX_GROUPS];
} group_figures;

typedef struct {
	int group;
	key k;
} group_key;

typedef struct {
	int group;
	double v;
} group_value;

static int group_key_order(const void *a, const void *b)
{
	const group_key *x = a, *y = b;
	if (x->group != y->group) {
		return x->group < y->group ? -1 : 1;
	}
	return key_order(&x->k, &y->k);
}

static int group_value_order(const void *a, const void *b)
{
	const group_value *x = a, *y = b;
	if (x->group != y->group) {
		return x->group < y->group ? -1 : 1;
	}
	return (x->v > y->v) - (x->v < y->v);
}

static group_figure *group_find(group_figures *gf, int group)
{
	for (size_t i = 0; i < gf->n; i++) {
		if (gf->g[i].group == group) {
			return &gf->g[i];
		}
	}
	return NULL;
}

/* Each group's upstream (a plurality of its references; a tie names none)
 * and clock-check median, over the nodes that answered: the same references
 * cluster.reference votes on, and the same precise-enough clock checks the
 * fleet's median (cluster.clock_median) takes. */
static void group_figures_collect(const node *nodes, size_t n, const node_settings *settings,
				  group_figures *gf)
{
	gf->n = 0;
	if (!settings) {
		return; /* no --config: one group, nothing to compare */
	}
	size_t slots = n ? n : 1;
	group_key *refs = xmalloc(slots * sizeof *refs);
	group_value *clocks = xmalloc(slots * sizeof *clocks);
	size_t n_refs = 0, n_clocks = 0;
	for (size_t i = 0; i < n; i++) {
		const node *nd = &nodes[i];
		const node_settings *ns = &settings[i];
		if (!node_answered(nd)) {
			continue;
		}
		if (!group_find(gf, ns->group)) {
			if (gf->n == SPLIT_MAX_GROUPS) {
				continue;
			}
			group_figure *g = &gf->g[gf->n++];
			g->group = ns->group;
			g->name = ns->group_name;
			g->upstream.s[0] = '\0';
			g->clock_nodes = 0;
			g->clock_median_s = NAN;
		}
		if (reference_key(nd, &refs[n_refs].k) == REF_EXTERNAL) {
			refs[n_refs++].group = ns->group;
		}
		if (clock_value(nd) && nd->obs.clock.uncertainty_s <= ns->th.clock_median_warn_s) {
			clocks[n_clocks].group = ns->group;
			clocks[n_clocks++].v = nd->obs.clock.offset_s;
		}
	}
	qsort(refs, n_refs, sizeof *refs, group_key_order);
	for (size_t i = 0; i < n_refs;) {
		size_t end = i;
		while (end < n_refs && refs[end].group == refs[i].group) {
			end++;
		}
		group_figure *g = group_find(gf, refs[i].group);
		size_t best = 0;
		bool tied = false;
		for (size_t j = i; j < end;) {
			size_t k = j;
			while (k < end && key_cmp(&refs[k].k, &refs[j].k) == 0) {
				k++;
			}
			if (k - j > best) {
				best = k - j;
				tied = false;
				if (g) {
					g->upstream = refs[j].k;
				}
			} else if (k - j == best) {
				tied = true;
			}
			j = k;
		}
		if (g && tied) {
			g->upstream.s[0] = '\0';
		}
		i = end;
	}
	qsort(clocks, n_clocks, sizeof *clocks, group_value_order);
	for (size_t i = 0; i < n_clocks;) {
		size_t end = i;
		while (end < n_clocks && clocks[end].group == clocks[i].group) {
			end++;
		}
		group_figure *g = group_find(gf, clocks[i].group);
		if (g) {
			size_t m = end - i;
			const group_value *v = clocks + i;
			g->clock_nodes = m;
			g->clock_median_s = m % 2 ? v[m / 2].v : v[m / 2 - 1].v / 2.0 + v[m / 2].v / 2.0;
		}
		i = end;
	}
	free(clocks);
	free(refs);
}

static const char *group_label(const group_figure *g, char *buf, size_t len)
{
	if (g->group == 0) {
		return "(no group)";
	}
	sanitize_text(g->name, strnlen(g->name, NODE_SETTINGS_GROUP_LEN), buf, len, SANITIZE_SINGLE_LINE);
	return buf;
}

/* The other group, following another upstream, whose clocks are farthest
 * from this node's group's; NULL when none. */
static const group_figure *farthest_other(const group_figures *gf, const group_figure *own)
{
	const group_figure *far = NULL;
	for (size_t i = 0; i < gf->n; i++) {
		const group_figure *h = &gf->g[i];
		if (h == own || h->upstream.s[0] == '\0' || h->clock_nodes == 0 ||
		    key_eq(h->upstream.s, own->upstream.s)) {
			continue;
		}
		if (!far || fabs(h->clock_median_s - own->clock_median_s) >
				    fabs(far->clock_median_s - own->clock_median_s)) {
			far = h;
		}
	}
	return far;
}

/* Hybrid clusters: groups that follow different upstreams (on-premises
 * servers, a cloud's) whose clocks, measured by one client, sit further
 * apart than the clock check's offset limit.  Every node of each such group
 * is told, as with the other splits: synctop cannot tell which is right. */
static void check_upstream_split(const node *nd, const node_settings *ns, group_figures *gf,
				 cluster_findings *out)
{
	if (gf->n < 2) {
		return;
	}
	const group_figure *own = group_find(gf, ns->group);
	if (!own || own->upstream.s[0] == '\0' || own->clock_nodes == 0) {
		return;
	}
	const group_figure *far = farthest_other(gf, own);
	if (!far) {
		return;
	}
	double apart = own->clock_median_s - far->clock_median_s;
	if (!(fabs(apart) > ns->th.clock_offset_warn_s)) {
		return;
	}
	char g1[NAME_LEN], g2[NAME_LEN], u1[NAME_LEN], u2[NAME_LEN];
	char d[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding *f = finding_new(out, SEVERITY_WARN, "cluster.upstream_split");
	finding_message(f, "Group %s follows %s, group %s follows %s: clocks %s apart (medians of %zu "
			"and %zu clock checks, warn above %s)",
			group_label(own, g1, sizeof g1), clean(u1, sizeof u1, own->upstream.s),
			group_label(far, g2, sizeof g2), clean(u2, sizeof u2, far->upstream.s),
			units_magnitude_seconds(fabs(apart), d, sizeof d), own->clock_nodes,
			far->clock_nodes, units_magnitude_seconds(ns->th.clock_offset_warn_s, limit, sizeof limit));
	finding_hint(f, "Different upstreams drift apart (20-50 ms on-premises vs cloud): have both "
		     "groups follow one source (`server HOST iburst` in chrony.conf), or serve one "
		     "group from the other; ntp_upstream per group in the synctop configuration says "
		     "which is intended.");
}

/* ------------------------------------------------------------------ API */

static void summary_fill(const figures *fig, consistency_summary *out)
{
	out->gm_nodes = fig->gm.voters;
	out->n_gms = fig->gm.distinct;
	out->gm_tied = is_split(&fig->gm);
	out->majority_gm_nodes = fig->gm.top_count;
	snprintf(out->majority_gm, sizeof out->majority_gm, "%s",
		 out->gm_tied ? "" : fig->gm.top.s);

	out->reference_nodes = fig->reference.voters;
	out->n_references = fig->reference.distinct;
	out->reference_tied = is_split(&fig->reference);
	out->majority_reference_nodes = fig->reference.top_count;
	snprintf(out->majority_reference, sizeof out->majority_reference, "%s",
		 out->reference_tied ? "" : fig->reference.top.s);
	out->local_clock_nodes = fig->local_nodes;

	out->chrony_nodes = fig->chrony.count;
	out->chrony_spread_s = fig->chrony.max - fig->chrony.min;
	out->chrony_median_s = fig->chrony.median;
	out->ptp_nodes = fig->ptp.count;
	out->ptp_spread_ns = fig->ptp.max - fig->ptp.min;
	out->ptp_median_ns = fig->ptp.median;
	out->clock_nodes = fig->clock.count;
	out->clock_median_s = fig->clock.median;
}

void consistency_evaluate(node *nodes, size_t n, const node_settings *settings,
			  consistency_summary *out)
{
	figures fig;
	group_figures groups;
	node_settings defaults;
	node_settings_init(&defaults);
	figures_collect(nodes, n, settings, &defaults, &fig);
	group_figures_collect(nodes, n, settings, &groups);

	size_t flagged = 0, chrony_outliers = 0, ptp_outliers = 0, split_nodes = 0;
	for (size_t i = 0; i < n; i++) {
		node *nd = &nodes[i];
		const node_settings *ns = settings ? &settings[i] : &defaults;
		cluster_findings l;
		l.count = 0; /* not `= {0}`: clearing 3.7 KiB per node would dominate */
		if (node_answered(nd)) {
			check_grandmaster(nd, ns, &fig.gm, &l);
			check_domain(nd, ns, &fig.domain, &l);
			check_utc_offset(nd, ns, &fig.utc, &l);
			check_reference(nd, ns, &fig.reference, &l);
			check_leap(nd, &fig.leap, &l);
			int before = l.count;
			check_chrony_spread(nd, ns, &fig.chrony, &l);
			chrony_outliers += (size_t)(l.count - before);
			before = l.count;
			check_ptp_spread(nd, ns, &fig.ptp, &l);
			ptp_outliers += (size_t)(l.count - before);
			check_clock_median(nd, ns, &fig.clock, &l);
			before = l.count;
			check_upstream_split(nd, ns, &groups, &l);
			split_nodes += (size_t)(l.count - before);
		}
		health_set_cluster_findings(nd, l.items, l.count, &ns->th);
		flagged += l.count > 0;
	}

	if (out) {
		memset(out, 0, sizeof *out);
		summary_fill(&fig, out);
		out->chrony_outliers = chrony_outliers;
		out->ptp_outliers = ptp_outliers;
		out->flagged_nodes = flagged;
		out->upstream_split_nodes = split_nodes;
	}
}

/* order.c - filter, then sort with precomputed keys. */
#include <config.h>

#include "order.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "health.h"
#include "xalloc.h"

/* A kept node as the sort sees it: integers only, so that a comparison is
 * a few integer compares (the keys are turned into them once per build). */
typedef struct {
	uint64_t k1;    /* the column's key, direction applied; UINT64_MAX = unknown, last */
	uint64_t off;   /* the default order's |offset|, direction applied, unknown last */
	uint32_t rank;  /* status, worst first (or best first, reversed) */
	uint32_t host;  /* host rank, A-Z whatever the direction */
	uint32_t index; /* into the keys: the last tie-break */
} entry;

#define UNKNOWN_KEY UINT64_MAX

/* Order-preserving integers for doubles, NAN last in either direction. */
static uint64_t key_up(double v)
{
	uint64_t u;
	if (isnan(v)) {
		return UNKNOWN_KEY;
	}
	if (v == 0) {
		v = 0; /* -0 sorts as +0 */
	}
	memcpy(&u, &v, sizeof u);
	return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63)); /* never all ones */
}

static uint64_t key_down(double v)
{
	return isnan(v) ? UNKNOWN_KEY : ~key_up(v); /* key_up is never 0 */
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Which of two entries comes first: a total order (the index breaks the
 * last tie), so the sort need not be stable. */
static inline int cmp_entries(const entry *x, const entry *y)
{
	int d = cmp_u64(x->k1, y->k1);
	if (!d) {
		d = cmp_u64(x->rank, y->rank);
	}
	if (!d) {
		d = cmp_u64(x->off, y->off);
	}
	if (!d) {
		d = cmp_u64(x->host, y->host);
	}
	if (!d) {
		d = cmp_u64(x->index, y->index);
	}
	return d;
}

/* Sorts positions into e: runs of 16 by insertion, then merged bottom-up.
 * Our own rather than qsort: the comparison is inlined, where qsort pays a
 * call through a pointer for each of ~130,000 comparisons of 10,000 rows. */
static void sort_positions(uint32_t *p, size_t n, const entry *e)
{
	enum { RUN = 16 };
	for (size_t lo = 0; lo < n; lo += RUN) {
		size_t hi = lo + RUN < n ? lo + RUN : n;
		for (size_t i = lo + 1; i < hi; i++) {
			uint32_t v = p[i];
			size_t j = i;
			while (j > lo && cmp_entries(&e[v], &e[p[j - 1]]) < 0) {
				p[j] = p[j - 1];
				j--;
			}
			p[j] = v;
		}
	}
	if (n <= RUN) {
		return;
	}
	uint32_t *tmp = xmalloc(n * sizeof *tmp), *src = p, *dst = tmp;
	for (size_t w = RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				dst[k++] = cmp_entries(&e[src[j]], &e[src[i]]) < 0 ? src[j++] : src[i++];
			}
			while (i < mid) {
				dst[k++] = src[i++];
			}
			while (j < hi) {
				dst[k++] = src[j++];
			}
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != p) {
		memcpy(p, src, n * sizeof *p);
	}
	free(tmp);
}

/* Text keys: most are equal (one source for the whole fleet), and strcmp
 * says so far cheaper than strverscmp. */
static int cmp_text(const char *a, const char *b)
{
	return strcmp(a, b) == 0 ? 0 : strverscmp(a, b);
}

static int cmp_text_ptr(const void *a, const void *b)
{
	return cmp_text(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_rank_host(const void *a, const void *b, void *ctx)
{
	const node *nodes = ctx;
	return strverscmp(nodes[*(const size_t *)a].host, nodes[*(const size_t *)b].host);
}

void order_rank_hosts(const node *nodes, size_t n, size_t *rank)
{
	size_t *by_name = xmalloc((n ? n : 1) * sizeof *by_name);
	for (size_t i = 0; i < n; i++) {
		by_name[i] = i;
	}
	qsort_r(by_name, n, sizeof *by_name, cmp_rank_host, (void *)nodes);
	for (size_t r = 0; r < n; r++) {
		rank[by_name[r]] = r;
	}
	free(by_name);
}

void order_key_of(const node *nd, column_id column, const node_filter *f, order_key *out)
{
	out->match = !f || filter_match(f, nd);
	out->rank = node_status_rank(health_live_status(nd));
	out->abs_offset = columns_abs_offset(nd);
	out->connecting = !nd->has_observation && nd->error[0] == '\0';
	out->host_width = (int)strnlen(nd->host, sizeof nd->host);
	out->data_mask = columns_data_mask(nd);
	out->num = NAN;
	out->text = false;
	out->str[0] = '\0';
	if (column == COL_STATUS || column == COL_NODE) {
		return; /* compared by rank and host rank (cmp_entries) */
	}
	sort_key k;
	/* the age as of time 0: the same order as at any one time */
	columns_sort_key(nd, column, 0, &k);
	if (k.numeric) {
		out->num = k.num;
	} else {
		out->text = true;
		snprintf(out->str, sizeof out->str, "%s", k.str);
	}
}

/* The text keys' places in version order: equal texts share one.  Writes
 * ranks[i] for each kept key with a text (the others are unknown). */
static uint64_t rank_texts(const order_key *keys, size_t n, uint64_t *ranks)
{
	const char **texts = xmalloc((n ? n : 1) * sizeof *texts);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (keys[i].match && keys[i].text && keys[i].str[0]) {
			texts[m++] = keys[i].str;
		}
	}
	qsort(texts, m, sizeof *texts, cmp_text_ptr);
	uint64_t distinct = 0;
	for (size_t i = 0; i < n; i++) {
		ranks[i] = UNKNOWN_KEY;
		if (!keys[i].match || !keys[i].text || !keys[i].str[0]) {
			continue;
		}
		/* binary search for the first equal text: its place is the rank */
		size_t lo = 0, hi = m;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_text(texts[mid], keys[i].str) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		ranks[i] = lo;
	}
	distinct = m;
	free(texts);
	return distinct;
}

size_t order_sort_keys(const order_key *keys, size_t n, const size_t *host_rank, column_id column, bool reverse,
		       size_t *out)
{
	bool up = !reverse;
	bool num_up = columns_info(column)->descending ? reverse : !reverse;
	bool text = false;
	uint64_t *ranks = NULL, n_texts = 0;
	size_t count = 0;

	if (n == 0) {
		return 0;
	}
	if (column != COL_STATUS && column != COL_NODE) {
		for (size_t i = 0; i < n && !text; i++) {
			text = keys[i].match && keys[i].text;
		}
	}
	if (text) {
		ranks = xmalloc(n * sizeof *ranks);
		n_texts = rank_texts(keys, n, ranks);
	}
	entry *e = xmalloc(n * sizeof *e);
	uint32_t *pos = xmalloc(n * sizeof *pos);
	for (size_t i = 0; i < n; i++) {
		const order_key *k = &keys[i];
		if (!k->match) {
			continue;
		}
		pos[count] = (uint32_t)count;
		entry *en = &e[count++];
		en->index = (uint32_t)i;
		en->host = (uint32_t)host_rank[i];
		/* the default order: worst status, then largest |offset| (both
		 * flipped when it is the order asked for and reversed) */
		bool dflt_up = column == COL_STATUS ? up : true;
		en->rank = (uint32_t)(dflt_up ? k->rank : NODE_STATUS_RANK_MAX - k->rank);
		en->off = dflt_up ? key_down(k->abs_offset) : key_up(k->abs_offset);
		if (column == COL_STATUS) {
			en->k1 = 0;
		} else if (column == COL_NODE) {
			en->k1 = up ? host_rank[i] : UNKNOWN_KEY - 1 - host_rank[i];
		} else if (text) {
			/* a number among text keys is an unknown one */
			uint64_t r = ranks[i];
			en->k1 = r == UNKNOWN_KEY ? r : up ? r : n_texts - r;
		} else {
			en->k1 = num_up ? key_up(k->num) : key_down(k->num);
		}
	}
	sort_positions(pos, count, e);
	for (size_t i = 0; i < count; i++) {
		out[i] = e[pos[i]].index;
	}
	free(pos);
	free(e);
	free(ranks);
	return count;
}

size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out)
{
	size_t *rank = xmalloc((n ? n : 1) * sizeof *rank);
	order_rank_hosts(nodes, n, rank);
	size_t count = order_build_ranked(nodes, n, rank, f, column, reverse, now, out);
	free(rank);
	return count;
}

size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out)
{
	(void)now; /* the age sorts on the poll time */
	order_key *keys = xmalloc((n ? n : 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		order_key_of(&nodes[i], column, f, &keys[i]);
	}
	size_t count = order_sort_keys(keys, n, host_rank, column, reverse, out);
	free(keys);
	return count;
}

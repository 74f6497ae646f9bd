/* order.c - filter, then sort with precomputed keys. */
#include <config.h>

#include "order.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "xalloc.h"

typedef struct {
	column_id column;
	int direction; /* +1 the column's natural direction, -1 reversed */
	int num_sign;  /* the same for numeric keys, which may sort biggest first */
	const size_t *host_rank; /* NULL: compare host names */
	const node *nodes;
} order_spec;

/* 32 bytes: glibc's qsort moves entries this small itself instead of
 * sorting pointers to them (and chasing those pointers in comparisons). */
typedef struct {
	double num;        /* numeric key, NAN = unknown */
	double abs_offset; /* the default order's tie-break */
	const char *str;   /* text key; NULL for a numeric one */
	uint32_t index;    /* into nodes */
	int32_t rank;      /* status, worst first */
} entry;
_Static_assert(sizeof(entry) <= 32 || sizeof(void *) > 8, "sort entries are moved, not pointed to, up to 32 bytes");

/* Host names in version order ("gpu9" before "gpu10"): by their precomputed
 * rank when there is one, which saves strverscmp in most comparisons. */
static int cmp_host(const entry *x, const entry *y, const order_spec *s)
{
	const size_t *r = s->host_rank;
	if (r) {
		return r[x->index] < r[y->index] ? -1 : r[x->index] > r[y->index];
	}
	return strverscmp(s->nodes[x->index].host, s->nodes[y->index].host);
}

/* Text keys: most are equal (one source for the whole fleet), and strcmp
 * says so far cheaper than strverscmp. */
static int cmp_text(const char *a, const char *b)
{
	return strcmp(a, b) == 0 ? 0 : strverscmp(a, b);
}

/* NAN after everything else, in either direction. */
static int cmp_num(double a, double b, int sign)
{
	if (isnan(a) || isnan(b)) {
		return isnan(a) - isnan(b);
	}
	return a < b ? -sign : a > b ? sign : 0;
}

static int cmp_default(const entry *x, const entry *y, int direction, const order_spec *s)
{
	int d = (x->rank - y->rank) * direction;
	if (d) {
		return d;
	}
	d = cmp_num(x->abs_offset, y->abs_offset, -direction);
	if (d) {
		return d;
	}
	return cmp_host(x, y, s);
}

static int cmp_entries(const void *a, const void *b, void *ctx)
{
	const entry *x = a, *y = b;
	const order_spec *s = ctx;
	int d = 0;

	if (s->column == COL_STATUS) {
		d = cmp_default(x, y, s->direction, s);
	} else if (s->column == COL_NODE && s->host_rank) {
		d = cmp_host(x, y, s) * s->direction; /* the rank is the key */
	} else if (!x->str || !y->str) {
		/* a text key against a number: the text one is unknown */
		double xn = x->str ? NAN : x->num, yn = y->str ? NAN : y->num;
		d = cmp_num(xn, yn, s->num_sign);
	} else {
		bool xe = x->str[0] == '\0', ye = y->str[0] == '\0';
		if (xe || ye) {
			d = xe - ye;
		} else {
			d = cmp_text(x->str, y->str) * s->direction;
		}
	}
	if (!d && s->column != COL_STATUS) {
		d = cmp_default(x, y, 1, s);
	}
	if (!d) {
		d = x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
	}
	return d;
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

size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out)
{
	return order_build_ranked(nodes, n, NULL, f, column, reverse, now, out, NULL);
}

size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out, order_found *found)
{
	int direction = reverse ? -1 : 1;
	order_spec spec = {column, direction, columns_info(column)->descending ? -direction : direction,
			   host_rank, nodes};
	bool keyless = column == COL_STATUS || (column == COL_NODE && host_rank);
	entry *e;
	sort_key *keys = NULL; /* the text keys the entries point into */
	size_t count = 0;

	if (found) {
		found->data_mask = 0;
		found->node_width = 4;
		found->connecting = 0;
	}
	if (n == 0) {
		return 0;
	}
	e = xmalloc(n * sizeof *e);
	if (!keyless) {
		keys = xmalloc(n * sizeof *keys);
	}
	/* One pass over the nodes for everything: each is big, and visiting
	 * 10,000 of them again costs milliseconds in cache and TLB misses. */
	for (size_t i = 0; i < n; i++) {
		const node *nd = &nodes[i];
		if (found) {
			found->connecting += !nd->has_observation && nd->error[0] == '\0';
		}
		if (f && !filter_match(f, nd)) {
			continue;
		}
		entry *en = &e[count];
		en->index = (uint32_t)i;
		en->rank = columns_status_rank(cluster_node_status(nd));
		en->abs_offset = columns_abs_offset(nd);
		en->num = NAN;
		en->str = NULL;
		if (!keyless) {
			sort_key *k = &keys[count];
			columns_sort_key(nd, column, now, k);
			if (k->numeric) {
				en->num = k->num;
			} else {
				en->str = k->str;
			}
		}
		if (found) {
			found->data_mask |= columns_data_mask(nd);
			int w = (int)strnlen(nd->host, sizeof nd->host);
			found->node_width = w > found->node_width ? w : found->node_width;
		}
		count++;
	}
	qsort_r(e, count, sizeof *e, cmp_entries, &spec);
	for (size_t i = 0; i < count; i++) {
		out[i] = e[i].index;
	}
	free(keys);
	free(e);
	return count;
}

/* prometheus_query.c - parse an instant query's answer (prometheus_query.h).
 *
 * An event parser (yajl), not a tree: a 10,000-node fleet answers a family
 * in 15 MB of JSON, and building jansson's tree of it (an object, a hash
 * table and a string allocation per label, then copying every label out)
 * cost more than a second and hundreds of MB per refresh.  Here each result
 * item is followed as its events come and becomes one sample in one
 * allocation.  The shape is checked as it goes; the first thing wrong is
 * reported only once the text is known to be JSON, in the order a person
 * would look for it (the envelope before the items). */
#include <config.h>

#include "prometheus_query.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "sanitize.h"
#include "xalloc.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t err_len, const char *fmt, ...)
{
	char raw[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* the server's words reach the terminal: one clean line */
	sanitize_text(raw, strlen(raw), err, err_len, SANITIZE_SINGLE_LINE);
	return -1;
}

static void copy_short(char *dst, size_t cap, const unsigned char *s, size_t len);

/* Clinger's fast path: a plain decimal of at most 15 significant digits and
 * a power of ten within 1e22 is one exact integer times or divided by one
 * exact power, a single correctly rounded operation: strtod's own result,
 * without its cost (10,000 nodes: 400,000 numbers a refresh).  false for
 * anything else, which strtod then reads. */
static bool fast_decimal(const char *s, size_t len, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	size_t i = 0;
	bool neg = false, any = false;
	uint64_t m = 0;
	int digits = 0, exp10 = 0;
	if (i < len && (s[i] == '-' || s[i] == '+')) {
		neg = s[i++] == '-';
	}
	for (int frac = 0; frac < 2; frac++) {
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			digits += digits > 0 || s[i] != '0';
			if (digits > 15) {
				return false;
			}
			m = m * 10 + (uint64_t)(s[i] - '0');
			exp10 -= frac;
			any = true;
		}
		if (frac == 0 && !(i < len && s[i] == '.')) {
			break;
		}
		i += frac == 0;
	}
	if (!any) {
		return false;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = false, edigits = false;
		int e = 0;
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+')) {
			eneg = s[i++] == '-';
		}
		for (; i < len && s[i] >= '0' && s[i] <= '9' && e < 1000; i++) {
			e = e * 10 + (s[i] - '0');
			edigits = true;
		}
		if (!edigits) {
			return false;
		}
		exp10 += eneg ? -e : e;
	}
	if (i != len || exp10 < -22 || exp10 > 22) {
		return false;
	}
	double v = (double)m;
	v = exp10 < 0 ? v / pow10[-exp10] : v * pow10[exp10];
	*out = neg ? -v : v;
	return true;
}

/* A JSON number (a sample's time) as strtod reads it. */
static double parse_number(const unsigned char *s, size_t len)
{
	char num[64];
	double v;
	if (fast_decimal((const char *)s, len, &v)) {
		return v;
	}
	copy_short(num, sizeof num, s, len);
	return strtod(num, NULL);
}

/* A sample value as Prometheus formats it (strconv.FormatFloat 'f' -1, or
 * NaN/+Inf/-Inf): a whole string strtod reads, nothing else. */
static int parse_value(const char *s, double *out)
{
	char *end = NULL;
	size_t len = strlen(s);
	if (!*s || len > 64) {
		return -1;
	}
	if (fast_decimal(s, len, out)) {
		return 0;
	}
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0') {
		return -1;
	}
	*out = v;
	return 0;
}

/* ----------------------------------------------------------- the parser */

/* What the container at each depth is. */
typedef enum {
	C_SKIP = 0,  /* not read: an unknown key's value, or a wrong shape */
	C_ROOT,      /* the envelope */
	C_WARNINGS,  /* "warnings": [...] */
	C_DATA,      /* "data": {...} */
	C_RESULT,    /* "result": [...] */
	C_ITEM,      /* one result: {"metric": ..., "value": ...} */
	C_METRIC,    /* its labels */
	C_VALUE,     /* [T, "V"] */
	C_VALUES,    /* a range query's [[T, "V"], ...] */
	C_POINT,     /* one of them */
} container;

/* The keys read, per container; K_OTHER's value is skipped. */
typedef enum {
	K_OTHER = 0,
	K_STATUS,
	K_ERROR_TYPE,
	K_ERROR,
	K_WARNINGS,
	K_DATA,
	K_RESULT_TYPE,
	K_RESULT,
	K_METRIC,
	K_VALUE,
	K_VALUES,
	K_COUNT,
} key_id;

#define MAX_DEPTH 8     /* deeper than C_VALUE's is never read */
#define SHORT_TEXT 300  /* status, errorType, error, resultType: cut to fit */
#define VALUE_TEXT 72   /* longer than parse_value accepts: not a number */

typedef struct {
	size_t name, name_len, value, value_len; /* offsets into item.text */
} label_ref;

typedef struct {
	prom_vector *out;
	prom_matrix *matrix;            /* a range query's answer: its series go here */
	size_t max_points;
	int depth;                      /* containers open */
	container stack[MAX_DEPTH + 1]; /* stack[d]: the container at depth d (1-based) */
	key_id key[MAX_DEPTH + 1];      /* the last key read in the object at depth d */
	unsigned seen[MAX_DEPTH + 1];   /* bit k: key k came already (a duplicate is not JSON) */
	int skip;                       /* containers open inside a skipped one */
	char fatal[160];                /* why the parse was cancelled */

	/* the envelope, as it came */
	bool root_object;
	bool has_status, has_error_type, has_error, data_object, has_result_type;
	char status[SHORT_TEXT], error_type[SHORT_TEXT], error[SHORT_TEXT], result_type[SHORT_TEXT];
	int result_kind;                /* 0 absent, 1 an array, 2 something else */
	size_t index;                   /* the result item being read */
	char item_error[400];           /* the first item's trouble, "" if none */
	size_t cap;                     /* samples allocated */

	/* the result item being read */
	struct {
		int metric;                 /* 0 absent, 1 an object, 2 something else */
		int value_elems;            /* elements of "value" seen */
		bool value_array, value_bad, has_values;
		double t;
		char value[VALUE_TEXT];
		char bad_label[48];         /* the first label whose value is no string */
		char *text;                 /* label names and values, each NUL-terminated */
		size_t text_len, text_cap;
		label_ref *labels;
		size_t n_labels, labels_cap;
		size_t pending_name, pending_name_len; /* the label key just read */
		double *points;             /* a range series: t, v pairs */
		size_t n_points, points_cap;
		int point_elems;            /* elements of the pair being read */
		bool point_bad;
		double point_t;
	} item;
} parser;

static void copy_short(char *dst, size_t cap, const unsigned char *s, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static size_t item_text_add(parser *p, const unsigned char *s, size_t len)
{
	if (p->item.text_len + len + 1 > p->item.text_cap) {
		p->item.text_cap = (p->item.text_len + len + 1) * 2;
		p->item.text = xrealloc(p->item.text, p->item.text_cap);
	}
	size_t at = p->item.text_len;
	memcpy(p->item.text + at, s, len);
	p->item.text[at + len] = '\0';
	p->item.text_len += len + 1;
	return at;
}

static void item_error(parser *p, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void item_error(parser *p, const char *fmt, ...)
{
	va_list ap;
	if (p->item_error[0]) {
		return; /* the first one says it */
	}
	va_start(ap, fmt);
	vsnprintf(p->item_error, sizeof p->item_error, fmt, ap);
	va_end(ap);
}

static void add_warning(parser *p, const unsigned char *text, size_t len)
{
	prom_vector *out = p->out;
	size_t used = strlen(out->warnings);
	char clean[PROM_WARNINGS_LEN];
	sanitize_text((const char *)text, len, clean, sizeof clean, SANITIZE_SINGLE_LINE);
	snprintf(out->warnings + used, sizeof out->warnings - used, "%s%s", used ? "; " : "", clean);
	out->n_warnings++;
}

/* Labels Prometheus sends on nearly every sample: pointed to, not copied. */
static const char *common_label(const char *name, size_t len)
{
	static const char *const common[] = {"__name__", "instance", "job", "node"};
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
		if (common[i][0] == name[0] && strlen(common[i]) == len && memcmp(common[i], name, len) == 0) {
			return common[i];
		}
	}
	return NULL;
}

/* The samples' labels live in blocks of this size, a vector's list of them:
 * 200,000 samples a refresh are a hundred allocations, not 200,000. */
#define LABEL_BLOCK (256u << 10)

typedef struct label_block {
	struct label_block *next;
	size_t used, cap;       /* bytes after the header */
} label_block;

/* bytes (aligned for prom_label) from v's blocks. */
static void *vector_alloc(prom_vector *v, size_t bytes)
{
	label_block *b = v->blocks;
	bytes = (bytes + 7u) & ~(size_t)7u;
	if (!b || b->cap - b->used < bytes) {
		size_t cap = bytes > LABEL_BLOCK - sizeof *b ? bytes : LABEL_BLOCK - sizeof *b;
		label_block *nb = xmalloc(sizeof *nb + cap);
		nb->next = b;
		nb->used = 0;
		nb->cap = cap;
		v->blocks = b = nb;
	}
	void *at = (char *)(b + 1) + b->used;
	b->used += bytes;
	return at;
}

/* A sample's digest (prom_sample.digest): its labels' text as both parsers
 * lay it out (name, NUL, value, NUL, in order), eight bytes at a time while
 * it is in the cache, and its value's bits. */
static uint64_t sample_digest(const char *text, size_t len, size_t n_labels, double value)
{
	uint64_t h = 0x243F6A8885A308D3ull ^ n_labels, w;
	for (; len >= 8; text += 8, len -= 8) {
		memcpy(&w, text, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	w = 0;
	if (len) {
		memcpy(&w, text, len); /* text is NULL when no item had labels yet */
	}
	h = (h ^ w) * 0x9E3779B97F4A7C15ull;
	memcpy(&w, &value, sizeof w);
	h = (h ^ (h >> 29) ^ w) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 32);
}

/* The labels of the item being read, as one block: the array, then the
 * strings not shared; in v's blocks, or on its own (a range series) when v
 * is NULL. */
static prom_label *item_labels(parser *p, size_t *n_out, prom_vector *v)
{
	size_t n = p->item.n_labels;
	size_t bytes = (n ? n : 1) * sizeof(prom_label) + p->item.text_len;
	prom_label *labels = v ? vector_alloc(v, bytes) : xmalloc(bytes);
	char *text = (char *)(labels + (n ? n : 1));
	if (p->item.text_len) {
		memcpy(text, p->item.text, p->item.text_len);
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = text + p->item.labels[i].name;
		const char *shared = common_label(name, p->item.labels[i].name_len);
		labels[i].name = (char *)(shared ? shared : name);
		labels[i].value = text + p->item.labels[i].value;
	}
	*n_out = n;
	return labels;
}

/* A range series is complete: its newest max_points points. */
static void series_end(parser *p, size_t index)
{
	if (!p->item.value_array) {
		item_error(p, "result %zu: \"values\" is not [[time, \"value\"], ...]", index);
		return;
	}
	if (p->item.value_bad) {
		item_error(p, "result %zu: a point is not [time, \"value\"]", index);
		return;
	}
	if (p->item.bad_label[0]) {
		item_error(p, "result %zu: label %.40s is not a string", index, p->item.bad_label);
		return;
	}
	prom_matrix *m = p->matrix;
	if (m->n_series == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		m->series = xrealloc(m->series, p->cap * sizeof *m->series);
	}
	prom_series *s = &m->series[m->n_series++];
	s->labels = item_labels(p, &s->n_labels, NULL);
	size_t n = p->item.n_points;
	size_t from = n > p->max_points ? n - p->max_points : 0;
	s->n_points = n - from;
	s->t = xmalloc((s->n_points ? s->n_points : 1) * 2 * sizeof *s->t);
	s->v = s->t + s->n_points;
	for (size_t i = 0; i < s->n_points; i++) {
		s->t[i] = p->item.points[2 * (from + i)];
		s->v[i] = p->item.points[2 * (from + i) + 1];
	}
}

/* The item is complete: a sample, or the first item error. */
static void item_end(parser *p)
{
	size_t index = p->index++;
	double value = 0;
	if (p->item_error[0]) {
		return; /* the answer fails anyway: no more samples */
	}
	if (p->item.metric != 1) {
		item_error(p, "result %zu has no \"metric\" object", index);
		return;
	}
	if (p->matrix) {
		series_end(p, index);
		return;
	}
	if (!p->item.value_array || p->item.value_bad || p->item.value_elems != 2) {
		item_error(p, "result %zu: \"value\" is not [time, \"value\"]%s", index,
			   p->item.has_values ? " (a range vector: not an instant query)" : "");
		return;
	}
	if (parse_value(p->item.value, &value) != 0) {
		item_error(p, "result %zu: value \"%.40s\" is not a number", index, p->item.value);
		return;
	}
	if (p->item.bad_label[0]) {
		item_error(p, "result %zu: label %.40s is not a string", index, p->item.bad_label);
		return;
	}
	size_t n = 0;
	prom_label *labels = item_labels(p, &n, p->out);
	prom_vector *out = p->out;
	if (out->n_samples == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		out->samples = xrealloc(out->samples, p->cap * sizeof *out->samples);
	}
	prom_sample *s = &out->samples[out->n_samples++];
	s->labels = labels;
	s->n_labels = n;
	s->t = p->item.t;
	s->value = value;
	s->digest = sample_digest(p->item.text, p->item.text_len, n, value);
}

static void item_begin(parser *p)
{
	p->item.metric = 0;
	p->item.value_elems = 0;
	p->item.value_array = p->item.value_bad = p->item.has_values = false;
	p->item.t = NAN;
	p->item.value[0] = '\0';
	p->item.bad_label[0] = '\0';
	p->item.text_len = 0;
	p->item.n_labels = 0;
	p->item.n_points = 0;
}

static key_id key_named(container c, const unsigned char *s, size_t len)
{
	static const struct {
		container in;
		const char *name;
		key_id id;
	} keys[] = {
		{C_ROOT, "status", K_STATUS},       {C_ROOT, "errorType", K_ERROR_TYPE},
		{C_ROOT, "error", K_ERROR},         {C_ROOT, "warnings", K_WARNINGS},
		{C_ROOT, "data", K_DATA},           {C_DATA, "resultType", K_RESULT_TYPE},
		{C_DATA, "result", K_RESULT},       {C_ITEM, "metric", K_METRIC},
		{C_ITEM, "value", K_VALUE},         {C_ITEM, "values", K_VALUES},
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].in == c && strlen(keys[i].name) == len && memcmp(keys[i].name, s, len) == 0) {
			return keys[i].id;
		}
	}
	return K_OTHER;
}

static void point_add(parser *p, double t, double v)
{
	if (p->item.n_points == p->item.points_cap) {
		p->item.points_cap = p->item.points_cap ? p->item.points_cap * 2 : 256;
		p->item.points = xrealloc(p->item.points, p->item.points_cap * 2 * sizeof *p->item.points);
	}
	p->item.points[2 * p->item.n_points] = t;
	p->item.points[2 * p->item.n_points + 1] = v;
	p->item.n_points++;
}

/* Where a scalar or a container arrives: its parent and the key it is under. */
static container parent(const parser *p)
{
	return p->depth > 0 ? p->stack[p->depth] : C_SKIP;
}

static key_id parent_key(const parser *p)
{
	return p->depth > 0 ? p->key[p->depth] : K_OTHER;
}

typedef enum { V_STRING, V_NUMBER, V_OTHER, V_OBJECT, V_ARRAY } value_kind;

/* A value arrives (a scalar, or a container about to open): note what it
 * means; for a container, the context it opens. */
static container value_in(parser *p, value_kind kind, const unsigned char *s, size_t len)
{
	if (p->skip > 0) {
		return C_SKIP;
	}
	if (p->depth == 0) {
		p->root_object = kind == V_OBJECT;
		return kind == V_OBJECT ? C_ROOT : C_SKIP;
	}
	switch (parent(p)) {
	case C_ROOT:
		switch (parent_key(p)) {
		case K_STATUS:
			if ((p->has_status = kind == V_STRING)) {
				copy_short(p->status, sizeof p->status, s, len);
			}
			break;
		case K_ERROR_TYPE:
			if ((p->has_error_type = kind == V_STRING)) {
				copy_short(p->error_type, sizeof p->error_type, s, len);
			}
			break;
		case K_ERROR:
			if ((p->has_error = kind == V_STRING)) {
				copy_short(p->error, sizeof p->error, s, len);
			}
			break;
		case K_WARNINGS:
			return kind == V_ARRAY ? C_WARNINGS : C_SKIP;
		case K_DATA:
			p->data_object = kind == V_OBJECT;
			return kind == V_OBJECT ? C_DATA : C_SKIP;
		default:
			break;
		}
		return C_SKIP;
	case C_WARNINGS:
		if (kind == V_STRING) {
			add_warning(p, s, len);
		} else {
			add_warning(p, (const unsigned char *)"(not a string)", 14);
		}
		return C_SKIP;
	case C_DATA:
		if (parent_key(p) == K_RESULT_TYPE) {
			if ((p->has_result_type = kind == V_STRING)) {
				copy_short(p->result_type, sizeof p->result_type, s, len);
			}
		} else if (parent_key(p) == K_RESULT) {
			p->result_kind = kind == V_ARRAY ? 1 : 2;
			return kind == V_ARRAY ? C_RESULT : C_SKIP;
		}
		return C_SKIP;
	case C_RESULT:
		if (kind == V_OBJECT) {
			item_begin(p);
			return C_ITEM;
		}
		item_error(p, "result %zu is not an object", p->index++);
		return C_SKIP;
	case C_ITEM:
		if (parent_key(p) == K_METRIC) {
			p->item.metric = kind == V_OBJECT ? 1 : 2;
			return kind == V_OBJECT ? C_METRIC : C_SKIP;
		}
		if (parent_key(p) == K_VALUE) {
			p->item.value_array = kind == V_ARRAY;
			return kind == V_ARRAY ? C_VALUE : C_SKIP;
		}
		if (parent_key(p) == K_VALUES) {
			p->item.has_values = true;
			if (p->matrix) {
				p->item.value_array = kind == V_ARRAY;
				return kind == V_ARRAY ? C_VALUES : C_SKIP;
			}
		}
		return C_SKIP;
	case C_METRIC:
		if (kind == V_STRING) {
			if (p->item.n_labels == p->item.labels_cap) {
				p->item.labels_cap = p->item.labels_cap ? p->item.labels_cap * 2 : 16;
				p->item.labels = xrealloc(p->item.labels, p->item.labels_cap * sizeof *p->item.labels);
			}
			label_ref *l = &p->item.labels[p->item.n_labels++];
			l->name = p->item.pending_name;
			l->name_len = p->item.pending_name_len;
			l->value = item_text_add(p, s, len);
			l->value_len = len;
		} else if (!p->item.bad_label[0]) {
			snprintf(p->item.bad_label, sizeof p->item.bad_label, "%s",
				 p->item.text + p->item.pending_name);
		}
		return C_SKIP;
	case C_VALUE:
		if (p->item.value_elems == 0 && kind == V_NUMBER) {
			p->item.t = parse_number(s, len);
		} else if (p->item.value_elems == 1 && kind == V_STRING) {
			/* longer than any number: kept cut, and refused */
			copy_short(p->item.value, sizeof p->item.value, s, len);
		} else {
			p->item.value_bad = true;
		}
		p->item.value_elems++;
		return C_SKIP;
	case C_VALUES:
		if (kind != V_ARRAY) {
			p->item.value_bad = true;
			return C_SKIP;
		}
		p->item.point_elems = 0;
		p->item.point_bad = false;
		return C_POINT;
	case C_POINT:
		if (p->item.point_elems == 0 && kind == V_NUMBER) {
			p->item.point_t = parse_number(s, len);
		} else if (p->item.point_elems == 1 && kind == V_STRING) {
			char text[VALUE_TEXT];
			double v;
			copy_short(text, sizeof text, s, len);
			if (parse_value(text, &v) != 0) {
				p->item.point_bad = true;
			} else {
				point_add(p, p->item.point_t, v);
			}
		} else {
			p->item.point_bad = true;
		}
		p->item.point_elems++;
		return C_SKIP;
	case C_SKIP:
		break;
	}
	return C_SKIP;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	parser *p = ctx;
	if (memchr(s, '\0', len)) {
		snprintf(p->fatal, sizeof p->fatal, "a string holds a NUL character");
		return 0;
	}
	value_in(p, V_STRING, s, len);
	return 1;
}

static int on_number(void *ctx, const char *s, size_t len)
{
	value_in(ctx, V_NUMBER, (const unsigned char *)s, len);
	return 1;
}

static int on_null(void *ctx)
{
	value_in(ctx, V_OTHER, (const unsigned char *)"", 0);
	return 1;
}

static int on_boolean(void *ctx, int b)
{
	(void)b;
	value_in(ctx, V_OTHER, (const unsigned char *)"", 0);
	return 1;
}

static int open_container(parser *p, value_kind kind)
{
	container c = value_in(p, kind, (const unsigned char *)"", 0);
	if (p->skip > 0 || c == C_SKIP || p->depth >= MAX_DEPTH) {
		p->skip++;
		return 1;
	}
	p->depth++;
	p->stack[p->depth] = c;
	p->key[p->depth] = K_OTHER;
	p->seen[p->depth] = 0;
	return 1;
}

static int close_container(parser *p)
{
	if (p->skip > 0) {
		p->skip--;
		return 1;
	}
	if (p->stack[p->depth] == C_ITEM) {
		item_end(p);
	} else if (p->stack[p->depth] == C_POINT && (p->item.point_bad || p->item.point_elems != 2)) {
		p->item.value_bad = true;
	}
	p->depth--;
	return 1;
}

static int on_start_map(void *ctx)
{
	return open_container(ctx, V_OBJECT);
}

static int on_start_array(void *ctx)
{
	return open_container(ctx, V_ARRAY);
}

static int on_end(void *ctx)
{
	return close_container(ctx);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
	parser *p = ctx;
	if (memchr(s, '\0', len)) {
		snprintf(p->fatal, sizeof p->fatal, "a key holds a NUL character");
		return 0;
	}
	if (p->skip > 0) {
		return 1;
	}
	container c = p->stack[p->depth];
	if (c == C_METRIC) {
		/* a label twice is not a Prometheus answer (jansson's JSON_REJECT_DUPLICATES did this) */
		for (size_t i = 0; i < p->item.n_labels; i++) {
			const label_ref *l = &p->item.labels[i];
			if (l->name_len == len && memcmp(p->item.text + l->name, s, len) == 0) {
				snprintf(p->fatal, sizeof p->fatal, "label %.40s twice in result %zu", p->item.text + l->name,
					 p->index);
				return 0;
			}
		}
		p->item.pending_name = item_text_add(p, s, len);
		p->item.pending_name_len = len;
		return 1;
	}
	key_id k = key_named(c, s, len);
	if (k != K_OTHER && (p->seen[p->depth] & (1u << k))) {
		snprintf(p->fatal, sizeof p->fatal, "duplicate key \"%.*s\"", (int)(len < 40 ? len : 40),
			 (const char *)s);
		return 0;
	}
	p->seen[p->depth] |= 1u << k;
	p->key[p->depth] = k;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

/* The envelope and the items, checked in the order the old tree parser did. */
static int verdict(parser *p, char *err, size_t err_len)
{
	if (!p->root_object) {
		return fail(err, err_len, "not a Prometheus API answer (the JSON is not an object)");
	}
	if (!p->has_status) {
		return fail(err, err_len, "not a Prometheus API answer (no \"status\")");
	}
	if (strcmp(p->status, "success") != 0) {
		return fail(err, err_len, "Prometheus says %s: %s", p->has_error_type ? p->error_type : p->status,
			    p->has_error ? p->error : "(no error text)");
	}
	if (!p->data_object || !p->has_result_type) {
		return fail(err, err_len, "not a Prometheus API answer (no \"data\" with a \"resultType\")");
	}
	if (strcmp(p->result_type, p->matrix ? "matrix" : "vector") != 0) {
		return fail(err, err_len, "expected %s, got a %.20s", p->matrix ? "a range vector (matrix)" : "an instant vector",
			    p->result_type);
	}
	if (p->result_kind != 1) {
		return fail(err, err_len, "\"result\" is not an array");
	}
	if (p->item_error[0]) {
		return fail(err, err_len, "%s", p->item_error);
	}
	return 0;
}

/* Runs the parser over body; the verdict, or why it is not JSON. */
static int run(parser *p, const char *body, size_t len, char *err, size_t err_len)
{
	yajl_handle h = yajl_alloc(&callbacks, NULL, p);
	if (!h) {
		return fail(err, err_len, "cannot start the JSON parser");
	}
	yajl_status st = yajl_parse(h, (const unsigned char *)body, len);
	if (st == yajl_status_ok) {
		st = yajl_complete_parse(h);
	}
	int rc;
	if (st != yajl_status_ok) {
		size_t at = yajl_get_bytes_consumed(h);
		if (p->fatal[0]) {
			rc = fail(err, err_len, "not JSON (%s)", p->fatal);
		} else {
			unsigned char *why = yajl_get_error(h, 0, (const unsigned char *)body, len);
			rc = fail(err, err_len, "not JSON (%s at byte %zu)", why ? (const char *)why : "?", at);
			yajl_free_error(h, why);
		}
	} else {
		rc = verdict(p, err, err_len);
	}
	yajl_free(h);
	free(p->item.text);
	free(p->item.labels);
	free(p->item.points);
	return rc;
}

/* ------------------------------------------------------- the fast path */

/* Prometheus writes an instant vector one way (web/api/v1's encoder): no
 * space, the keys in this order, the labels a flat object of strings.  An
 * answer exactly so is read here in one pass without yajl (10,000 nodes:
 * 28 MB a refresh, half the refresh's CPU through yajl's events); anything
 * else - a warning, an error, an escape or a byte outside printable ASCII in
 * a string, another layout, a value that is no number, a cut answer - is
 * left to the parser above, which knows what to say about it.  Both give
 * the same samples (a unit test splits answers at every byte). */

#define FAST_MAX_LABELS 32

typedef struct {
	const char *p, *end;
} cursor;

static bool lit(cursor *c, const char *s, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0) {
		return false;
	}
	c->p += n;
	return true;
}

#define LIT(c, s) lit((c), (s), sizeof(s) - 1)

/* A string's text after its opening quote, the closing one consumed: only
 * printable ASCII without escapes (what needs yajl's checks is not here). */
static bool plain_string(cursor *c, const char **s, size_t *len)
{
	const char *q = c->p;
	while (q < c->end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' && *q != '\\') {
		q++;
	}
	if (q >= c->end || *q != '"') {
		return false;
	}
	*s = c->p;
	*len = (size_t)(q - c->p);
	c->p = q + 1;
	return true;
}

static bool digit_at(const cursor *c, const char *q)
{
	return q < c->end && *q >= '0' && *q <= '9';
}

/* A number as JSON writes it (RFC 8259 section 6), nothing more. */
static bool json_number(cursor *c, const char **s, size_t *len)
{
	const char *q = c->p;
	if (q < c->end && *q == '-') {
		q++;
	}
	if (q < c->end && *q == '0') {
		q++;
	} else if (digit_at(c, q)) {
		while (digit_at(c, q)) {
			q++;
		}
	} else {
		return false;
	}
	if (q < c->end && *q == '.') {
		if (!digit_at(c, ++q)) {
			return false;
		}
		while (digit_at(c, q)) {
			q++;
		}
	}
	if (q < c->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < c->end && (*q == '+' || *q == '-')) {
			q++;
		}
		if (!digit_at(c, q)) {
			return false;
		}
		while (digit_at(c, q)) {
			q++;
		}
	}
	*s = c->p;
	*len = (size_t)(q - c->p);
	c->p = q;
	return true;
}

/* One result item, {"metric":{...},"value":[T,"V"]}, as a sample of out. */
static bool fast_item(cursor *c, prom_vector *out, size_t *cap)
{
	struct {
		const char *s;
		size_t len;
	} name[FAST_MAX_LABELS], value[FAST_MAX_LABELS];
	size_t n = 0, text = 0;
	if (!LIT(c, "{\"metric\":{")) {
		return false;
	}
	if (!LIT(c, "}")) {
		for (;;) {
			if (n == FAST_MAX_LABELS || !LIT(c, "\"") || !plain_string(c, &name[n].s, &name[n].len) ||
			    !LIT(c, ":\"") || !plain_string(c, &value[n].s, &value[n].len)) {
				return false;
			}
			for (size_t k = 0; k < n; k++) {
				if (name[k].len == name[n].len && memcmp(name[k].s, name[n].s, name[n].len) == 0) {
					return false; /* a label twice: the parser above says so */
				}
			}
			text += name[n].len + value[n].len + 2;
			n++;
			if (LIT(c, "}")) {
				break;
			}
			if (!LIT(c, ",")) {
				return false;
			}
		}
	}
	const char *num, *val;
	size_t num_len, val_len;
	char vtext[VALUE_TEXT];
	double v;
	if (!LIT(c, ",\"value\":[") || !json_number(c, &num, &num_len) || !LIT(c, ",\"") ||
	    !plain_string(c, &val, &val_len) || !LIT(c, "]}") || val_len >= sizeof vtext) {
		return false;
	}
	memcpy(vtext, val, val_len);
	vtext[val_len] = '\0';
	if (parse_value(vtext, &v) != 0) {
		return false;
	}
	prom_label *labels = vector_alloc(out, (n ? n : 1) * sizeof(prom_label) + text);
	char *at = (char *)(labels + (n ? n : 1));
	for (size_t k = 0; k < n; k++) {
		const char *shared = common_label(name[k].s, name[k].len);
		memcpy(at, name[k].s, name[k].len);
		at[name[k].len] = '\0';
		labels[k].name = (char *)(shared ? shared : at);
		at += name[k].len + 1;
		memcpy(at, value[k].s, value[k].len);
		at[value[k].len] = '\0';
		labels[k].value = at;
		at += value[k].len + 1;
	}
	if (out->n_samples == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		out->samples = xrealloc(out->samples, *cap * sizeof *out->samples);
	}
	prom_sample *s = &out->samples[out->n_samples++];
	s->labels = labels;
	s->n_labels = n;
	s->t = parse_number((const unsigned char *)num, num_len);
	s->value = v;
	s->digest = sample_digest((const char *)(labels + (n ? n : 1)), text, n, v);
	return true;
}

bool prometheus_query_parse_fast(const char *body, size_t len, prom_vector *out)
{
	cursor c = {body, body + len};
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	if (LIT(&c, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[")) {
		bool ok = LIT(&c, "]");
		while (!ok && fast_item(&c, out, &cap)) {
			ok = LIT(&c, "]");
			if (!ok && !LIT(&c, ",")) {
				break;
			}
		}
		if (ok && LIT(&c, "}}") && c.p == c.end) {
			if (!out->samples) {
				out->samples = xcalloc(1, sizeof *out->samples);
			}
			return true;
		}
	}
	prom_vector_free(out);
	return false;
}

int prometheus_query_parse(const char *body, size_t len, prom_vector *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (len == 0) {
		return fail(err, err_len, "empty answer");
	}
	if (prometheus_query_parse_fast(body, len, out)) {
		return 0;
	}
	parser *p = xcalloc(1, sizeof *p);
	p->out = out;
	int rc = run(p, body, len, err, err_len);
	free(p);
	if (rc == 0 && !out->samples) {
		out->samples = xcalloc(1, sizeof *out->samples); /* an answer, empty: not NULL, as callers test */
	}
	if (rc != 0) {
		/* no half answer: the warnings stay, the samples go */
		size_t n_warnings = out->n_warnings;
		char warnings[PROM_WARNINGS_LEN];
		memcpy(warnings, out->warnings, sizeof warnings);
		prom_vector_free(out);
		out->n_warnings = n_warnings;
		memcpy(out->warnings, warnings, sizeof warnings);
	}
	return rc;
}

int prometheus_range_parse(const char *body, size_t len, size_t max_points, prom_matrix *out, char *err,
			   size_t err_len)
{
	prom_vector warnings_only;
	memset(out, 0, sizeof *out);
	memset(&warnings_only, 0, sizeof warnings_only);
	if (len == 0) {
		return fail(err, err_len, "empty answer");
	}
	parser *p = xcalloc(1, sizeof *p);
	p->out = &warnings_only; /* the warnings land there */
	p->matrix = out;
	p->max_points = max_points;
	int rc = run(p, body, len, err, err_len);
	free(p);
	out->n_warnings = warnings_only.n_warnings;
	memcpy(out->warnings, warnings_only.warnings, sizeof out->warnings);
	if (rc != 0) {
		prom_matrix_free(out);
	}
	return rc;
}

void prom_matrix_free(prom_matrix *m)
{
	for (size_t i = 0; i < m->n_series; i++) {
		free(m->series[i].labels);
		free(m->series[i].t); /* t and v: one block */
	}
	free(m->series);
	m->series = NULL;
	m->n_series = 0;
}

const char *prom_series_label(const prom_series *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++) {
		/* the common names are one string each (common_label), often the
		 * caller's literal too: the pointer says it before strcmp */
		if (s->labels[i].name == name || strcmp(s->labels[i].name, name) == 0) {
			return s->labels[i].value;
		}
	}
	return NULL;
}

void prom_vector_free(prom_vector *v)
{
	for (label_block *b = v->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	v->blocks = NULL;
	free(v->samples);
	v->samples = NULL;
	v->n_samples = 0;
}

void prom_vector_take(prom_vector *into, prom_vector *from)
{
	into->samples = xrealloc(into->samples, (into->n_samples + from->n_samples + 1) * sizeof *into->samples);
	memcpy(into->samples + into->n_samples, from->samples, from->n_samples * sizeof *from->samples);
	into->n_samples += from->n_samples;
	label_block *last = from->blocks;
	while (last && last->next) {
		last = last->next;
	}
	if (last) {
		last->next = into->blocks; /* order does not matter: they are only freed */
		into->blocks = from->blocks;
	}
	free(from->samples);
	from->samples = NULL;
	from->n_samples = 0;
	from->blocks = NULL;
}

const char *prom_sample_label(const prom_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++) {
		/* the common names are one string each (common_label), often the
		 * caller's literal too: the pointer says it before strcmp */
		if (s->labels[i].name == name || strcmp(s->labels[i].name, name) == 0) {
			return s->labels[i].value;
		}
	}
	return NULL;
}

/* json_value.c - model values as JSON values (json_value.h). */
#include <config.h>

#include "json_value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sanitize.h"

/* Largest model string is 256 bytes; sanitising can triple it. */
#define JSON_VALUE_TEXT_BUF 1024

/* json_object_set_new() and json_array_append_new() take the value even when
 * they fail; a NULL value or container means allocation failed somewhere, and
 * *ok carries that up so the whole build returns NULL. */
void json_value_put(json_t *obj, const char *key, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(obj, key, v) != 0) {
		*ok = false;
	}
}

void json_value_append(json_t *arr, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(arr, v) != 0) {
		*ok = false;
	}
}

/* A sanitised copy of a fixed-size model string; null when it is empty. */
json_t *json_value_text(const char *s, size_t max)
{
	char buf[JSON_VALUE_TEXT_BUF];
	size_t len = sanitize_text(s, strnlen(s, max), buf, sizeof buf, 0);
	return len > 0 ? json_string(buf) : json_null();
}

json_t *json_value_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_value_int(int v)
{
	return v == INT_UNKNOWN ? json_null() : json_integer(v);
}

json_t *json_value_ns(int64_t v)
{
	return v == PTP_NS_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

/* 0/1 flags with INT_UNKNOWN */
json_t *json_value_flag(int v)
{
	return v == INT_UNKNOWN ? json_null() : json_boolean(v != 0);
}

/* A whole number held in a double: an integer while it fits one. */
json_t *json_value_whole(double v)
{
	if (!isfinite(v)) {
		return json_null();
	}
	return fabs(v) < 9.2e18 ? json_integer((json_int_t)v) : json_real(v);
}

json_t *json_value_count(size_t v)
{
	return json_integer((json_int_t)v);
}

/* "2026-01-31T12:34:56.789Z", or null when t is not a representable time. */
json_t *json_value_time(double t)
{
	if (!isfinite(t) || fabs(t) > 1e15) {
		return json_null();
	}
	long long ms = llround(t * 1000.0);
	long long sec = ms / 1000;
	long long frac = ms % 1000;
	if (frac < 0) {
		frac += 1000;
		sec--;
	}
	time_t tt = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
		return json_null();
	}
	char buf[80]; /* the compiler cannot see the ranges of tm fields */
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	return json_string(buf);
}

/* The error of a part that failed: its own text, else the state's name. */
json_t *json_value_part_error(obs_state state, const char *error, size_t max)
{
	if (state == OBS_OK) {
		return json_null();
	}
	json_t *e = json_value_text(error, max);
	if (json_is_null(e)) {
		json_decref(e);
		e = json_string(obs_state_name(state));
	}
	return e;
}

int json_value_clamp(int n, int max)
{
	if (n < 0) {
		return 0;
	}
	return n < max ? n : max;
}

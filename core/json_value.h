/* json_value.h - model values as JSON values, shared by every JSON writer
 * (the snapshot in report_json.c and each collector's part).
 *
 * Unknown is null, never 0: NAN, INT_UNKNOWN, PTP_NS_UNKNOWN and empty
 * strings all become null.  Remote text is sanitised (sanitize.h). */
#ifndef SYNCTOP_JSON_VALUE_H
#define SYNCTOP_JSON_VALUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "observation.h"

/* json_object_set_new() and json_array_append_new() take the value even
 * when they fail; a NULL value or container means allocation failed
 * somewhere, and *ok carries that up so the whole build returns NULL. */
void json_value_put(json_t *obj, const char *key, json_t *v, bool *ok);
void json_value_append(json_t *arr, json_t *v, bool *ok);

/* A sanitised copy of a fixed-size model string; null when it is empty. */
json_t *json_value_text(const char *s, size_t max);
json_t *json_value_number(double v);    /* NAN: null */
json_t *json_value_int(int v);          /* INT_UNKNOWN: null */
json_t *json_value_ns(int64_t v);       /* PTP_NS_UNKNOWN: null */
json_t *json_value_flag(int v);         /* 0/1 as a boolean, INT_UNKNOWN: null */
json_t *json_value_whole(double v);     /* an integer while it fits one */
json_t *json_value_count(size_t v);
/* "2026-01-31T12:34:56.789Z", or null when t is not a representable time. */
json_t *json_value_time(double t);
/* The error of a part that failed: its own text, else the state's name;
 * null when state is OBS_OK. */
json_t *json_value_part_error(obs_state state, const char *error, size_t max);
/* n clamped to 0..max: how many of an array's entries are held. */
int json_value_clamp(int n, int max);

#endif
